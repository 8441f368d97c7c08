/** SIGINT / SIGTERM through the built CLI: one line, exit 3, no output file, no temp file, no backend left running. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import execa from 'execa';
import { CLI, ROOT, stackLines, suiteDir, tinyScenario } from './cli-helpers';

const dir = suiteDir();

/** 21 pieces of a tiny layer with the reference on: seconds of work after the `case` log line. */
const LONG = tinyScenario('long-decode', 'reference: on\nrequests:\n  - {name: a, steps: [{prefill: 32}, {decode: 20}]}\n').replace(
  /prompt:\n {2}ids: \[[^\]]*\]\n/,
  '',
);

/** Resolves when `stream` has carried a chunk matching `re` (a log line, a file the backend wrote). */
function seen(stream: Readable, re: RegExp): Promise<void> {
  let text = '';
  return new Promise((done) =>
    stream.on('data', (c: Buffer) => {
      text += String(c);
      if (re.test(text)) done();
    }),
  );
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function interrupt(signal: 'SIGINT' | 'SIGTERM', scenario: string, out: string, when: () => Promise<void>) {
  const child = execa('node', [CLI, 'run', scenario, '--device', 'wasm', '--verbose', '--out', out], {
    cwd: ROOT,
    reject: false,
    env: { NO_COLOR: '1' },
  });
  const started = seen(child.stderr!, /mla-diff: case /);
  await started;
  await when();
  child.kill(signal);
  return child;
}

describe('signals', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)('%s mid-run: one line, exit 3, no report and no temp file', async (signal) => {
    const scenario = dir.write(`long-${signal}.yaml`, LONG);
    const out = dir.file(`out-${signal}/run.json`);
    const r = await interrupt(signal, scenario, out, () => new Promise((t) => setTimeout(t, 300)));
    expect(r.exitCode).toBe(3);
    expect(r.stderr.split('\n').filter((l) => l.includes('interrupted'))).toEqual([`mla-diff: interrupted (${signal})`]);
    expect(stackLines(r.stderr)).toEqual([]);
    expect(existsSync(out)).toBe(false);
    const left = readdirSync(dir.path(), { recursive: true }).map(String);
    expect(left.filter((f) => f.includes('.tmp-') || f.includes(`out-${signal}`))).toEqual([]);
  });

  it('SIGINT while an external backend runs: its whole process group is killed', async () => {
    const pidFile = dir.file('backend.pid');
    const command = `echo $$ > ${JSON.stringify(pidFile)}; sleep 60 & wait`;
    const scenario = dir.write(
      'external-sleep.yaml',
      tinyScenario('external-sleep', `reference: on\nexternal:\n  command: ${JSON.stringify(command)}\n  timeout_s: 120\n`),
    );
    const r = await interrupt('SIGINT', scenario, dir.file('external-out.json'), async () => {
      while (!existsSync(pidFile) || !readFileSync(pidFile, 'utf8').trim()) await new Promise((t) => setTimeout(t, 50));
    });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain('mla-diff: interrupted (SIGINT)');
    const pgid = Number(readFileSync(pidFile, 'utf8').trim());
    for (let i = 0; i < 50 && alive(-pgid); i++) await new Promise((t) => setTimeout(t, 100)); // until reaped
    expect(alive(-pgid)).toBe(false); // the shell and its sleep: the group mla-diff started the backend in
  });
});
