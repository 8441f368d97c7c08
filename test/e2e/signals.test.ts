/**
 * SIGINT / SIGTERM through the built CLI: exit 130 / 143 and one line; no report, no temp file; everything
 * the run started (an external backend's whole process tree, llama.cpp's child, sweep workers) killed and its
 * exchange directory removed, unless --keep-external (the line names it).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import execa from 'execa';
import { CLI, ROOT, stackLines, suiteDir, tinyScenario } from './cli-helpers';

jest.setTimeout(120_000);

const dir = suiteDir();
const EXIT = { SIGINT: 130, SIGTERM: 143 } as const;
const SIGNALS = ['SIGINT', 'SIGTERM'] as const;
const HAVE_LLAMA = existsSync(join(ROOT, 'node_modules', '@node-llama-cpp', 'linux-x64', 'bins', 'linux-x64'));
const HAVE_PYTHON = execa.sync('python3', ['-c', 'pass'], { reject: false }).exitCode === 0;

/** 21 pieces of a tiny layer with the reference on: seconds of work after the `case` log line. */
const LONG = tinyScenario('long-decode', 'reference: on\nrequests:\n  - {name: a, steps: [{prefill: 32}, {decode: 20}]}\n').replace(
  /prompt:\n {2}ids: \[[^\]]*\]\n/,
  '',
);

/** Resolves when `stream` has carried text matching `re`. */
function seen(stream: Readable, re: RegExp): Promise<void> {
  let text = '';
  return new Promise((done) =>
    stream.on('data', (c: Buffer) => {
      text += String(c);
      if (re.test(text)) done();
    }),
  );
}

const until = async (ok: () => boolean, ms = 60_000) => {
  for (const t0 = Date.now(); !ok() && Date.now() - t0 < ms;) await new Promise((t) => setTimeout(t, 50));
};

/** Processes whose environment holds `marker` (MLA_DIFF_DIR under this test's TMPDIR: every descendant of a backend inherits it). */
function carrying(marker: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      if (readFileSync(`/proc/${name}/environ`, 'latin1').includes(marker)) pids.push(Number(name));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids.filter((p) => p !== process.pid);
}

/** A fresh TMPDIR for one run: what the run leaves in it is what it left behind. */
function freshTmp(name: string): string {
  const t = dir.file(`tmp-${name}`);
  rmSync(t, { recursive: true, force: true });
  mkdirSync(t);
  return t;
}

interface Started {
  child: execa.ExecaChildProcess;
  tmp: string;
}

function start(args: string[], name: string): Started {
  const tmp = freshTmp(name);
  const child = execa('node', [CLI, ...args, '--device', 'wasm', '--verbose'], {
    cwd: ROOT,
    reject: false,
    env: { NO_COLOR: '1', TMPDIR: tmp },
  });
  return { child, tmp };
}

/** After the signal: no process of the run left (polled while they are reaped), nothing left in its TMPDIR but what `keep` allows. */
async function nothingLeft(s: Started, keep: RegExp | null = null) {
  await until(() => carrying(`MLA_DIFF_DIR=${s.tmp}`).length === 0, 5000);
  expect(carrying(`MLA_DIFF_DIR=${s.tmp}`)).toEqual([]);
  expect(readdirSync(s.tmp).filter((f) => !keep?.test(f))).toEqual([]);
}

const externalScenario = (name: string, command: string) =>
  dir.write(`${name}.yaml`, tinyScenario(name, `reference: on\nexternal:\n  command: ${JSON.stringify(command)}\n  timeout_s: 120\n`));

/** Backends that leave processes behind in every way a process group alone misses some of; each touches `ready` once all run. */
const BACKENDS: [string, (ready: string) => string, boolean][] = [
  ['a shell job: sleep & sleep; wait', (r) => `sleep 300 & sleep 301 & touch ${r}; wait`, true],
  [
    'a child in its own group (set -m) and one that left the session (setsid)',
    (r) => `setsid sleep 302 & set -m; sleep 303 & touch ${r}; wait`,
    true,
  ],
  [
    'python: a child with start_new_session, then sleep',
    (r) =>
      `python3 -c 'import subprocess,time; subprocess.Popen(["sleep","304"], start_new_session=True); open("${r}","w"); time.sleep(305)'`,
    HAVE_PYTHON,
  ],
  [
    'node: a detached child, then a timer',
    (r) =>
      `node -e 'require("child_process").spawn("sleep",["306"],{detached:true,stdio:"ignore"}); ` +
      `require("fs").writeFileSync("${r}",""); setTimeout(()=>{},3e5)'`,
    true,
  ],
];

describe('signals', () => {
  it.each(SIGNALS)('%s mid-run: one line, exit 130/143, no report and no temp file', async (signal) => {
    const scenario = dir.write(`long-${signal}.yaml`, LONG);
    const out = dir.file(`out-${signal}/run.json`);
    const s = start(['run', scenario, '--out', out], `long-${signal}`);
    await seen(s.child.stderr!, /mla-diff: case /);
    await new Promise((t) => setTimeout(t, 300));
    s.child.kill(signal);
    const r = await s.child;
    expect(r.exitCode).toBe(EXIT[signal]);
    expect(r.stderr.split('\n').filter((l) => l.includes('interrupted'))).toEqual([`mla-diff: interrupted (${signal})`]);
    expect(stackLines(r.stderr)).toEqual([]);
    expect(existsSync(out)).toBe(false);
    const left = readdirSync(dir.path(), { recursive: true }).map(String);
    expect(left.filter((f) => f.includes('.tmp-') || f.includes(`out-${signal}`))).toEqual([]);
  });

  const cases = BACKENDS.flatMap(([label, command, ok]) => SIGNALS.map((signal) => [label, signal, command, ok] as const));
  it.each(cases)('%s, %s: its whole tree killed, the exchange directory gone, exit 130/143', async (label, signal, command, ok) => {
    if (!ok) return console.warn(`signals.test.ts: skipped "${label}" (python3 is not installed)`);
    const name = `${label.replace(/\W+/g, '-')}-${signal}`;
    const ready = dir.file(`${name}.ready`);
    const s = start(['run', externalScenario(name, command(ready))], name);
    await until(() => existsSync(ready));
    expect(carrying(`MLA_DIFF_DIR=${s.tmp}`).length).toBeGreaterThanOrEqual(2);
    s.child.kill(signal);
    const r = await s.child;
    expect(r.exitCode).toBe(EXIT[signal]);
    expect(r.stderr.split('\n').filter((l) => l.includes('interrupted'))).toEqual([`mla-diff: interrupted (${signal})`]);
    await nothingLeft(s);
  });

  it('--keep-external: the exchange directory stays and the one line names it', async () => {
    const ready = dir.file('keep.ready');
    const s = start(['run', externalScenario('keep', `sleep 300 & touch ${ready}; wait`), '--keep-external'], 'keep');
    await until(() => existsSync(ready));
    s.child.kill('SIGINT');
    const r = await s.child;
    expect(r.exitCode).toBe(130);
    const line = r.stderr.split('\n').filter((l) => l.includes('interrupted'));
    expect(line).toEqual([expect.stringMatching(/^mla-diff: interrupted \(SIGINT\); exchange directory kept: \S+$/)]);
    const kept = /kept: (\S+)$/.exec(line[0]!)![1]!;
    expect(existsSync(join(kept, 'request.json'))).toBe(true);
    await nothingLeft(s, /^mla-diff-external-/);
  });

  it('a second SIGINT while it cleans up: it still ends at once, nothing left running', async () => {
    const ready = dir.file('twice.ready');
    const s = start(['run', externalScenario('twice', `sleep 300 & sleep 301 & touch ${ready}; wait`)], 'twice');
    await until(() => existsSync(ready));
    s.child.kill('SIGINT');
    s.child.kill('SIGINT');
    const t0 = Date.now();
    const r = await s.child;
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(r.exitCode === 130 || r.signal === 'SIGINT').toBe(true);
    await until(() => carrying(`MLA_DIFF_DIR=${s.tmp}`).length === 0, 5000);
    expect(carrying(`MLA_DIFF_DIR=${s.tmp}`)).toEqual([]);
  });

  it('SIGTERM to a sweep: each worker stops its backend, no worker left, the point directory gone, exit 143', async () => {
    const ready = dir.file('sweep-ready');
    const matrix = dir.write(
      'sweep.yaml',
      'format: mla-diff/sweep\nversion: 1\nname: sigs\nbase:\n  model: {preset: tiny}\n  prompt: {length: 5}\n  reference: on\n' +
        `  external:\n    command: ${JSON.stringify(`sleep 300 & touch ${ready}-$$; wait`)}\n    timeout_s: 120\naxes:\n  seed: [1, 2]\n`,
    );
    const s = start(['sweep', matrix, '--jobs', '2'], 'sweep');
    await until(() => readdirSync(dir.path()).filter((f) => f.startsWith('sweep-ready-')).length === 2);
    s.child.kill('SIGTERM');
    const r = await s.child;
    expect(r.exitCode).toBe(143);
    expect(r.stderr).toContain('mla-diff: interrupted (SIGTERM)');
    await until(() => carrying(`TMPDIR=${s.tmp}`).length === 0, 10_000);
    expect(carrying(`TMPDIR=${s.tmp}`)).toEqual([]); // the workers too: they carry the sweep's TMPDIR
    await nothingLeft(s);
  });

  (HAVE_LLAMA ? it : it.skip)('SIGINT while llama.cpp runs: its child killed, its job directory gone, exit 130', async () => {
    const scenario = dir.write(
      'llama.yaml',
      'version: 1\nname: llama\nmodel: { preset: glm-5 }\nweights: { synthetic: { seed: 3 } }\n' +
        'cases: [{ name: tp8, tp: { size: 8, rank: 0 } }]\n' +
        'requests:\n  - name: chat\n    steps: [{ prefill: 16 }, { decode: 1 }]\nreference: on\nengines:\n  - llama.cpp\n',
    );
    const s = start(['run', scenario], 'llama');
    const cmdline = (p: number) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'latin1');
      } catch {
        return '';
      }
    };
    const child = () => carrying(`TMPDIR=${s.tmp}`).filter((p) => cmdline(p).includes('child.js'));
    await until(() => child().length > 0);
    expect(child().length).toBeGreaterThan(0);
    s.child.kill('SIGINT');
    const r = await s.child;
    expect(r.exitCode).toBe(130);
    expect(r.stderr.split('\n').filter((l) => l.includes('interrupted'))).toEqual(['mla-diff: interrupted (SIGINT)']);
    await until(() => child().length === 0, 5000);
    expect(child()).toEqual([]);
    expect(readdirSync(s.tmp)).toEqual([]);
  });
});
