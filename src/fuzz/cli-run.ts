import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Outcome } from './classify';
import { CLI, copyBase } from './cli-base';
import type { CliCase } from './cli-cases';
import { cliCase } from './cli-cases';
import { inputSeed, rng } from './rng';

type Snapshot = Map<string, string>;

/** Every regular file under `dir` (links not followed): inode, size and content hash. */
function snapshot(dir: string, out: Snapshot = new Map(), rel = ''): Snapshot {
  for (const name of readdirSync(join(dir, rel))) {
    const p = join(rel, name);
    const st = lstatSync(join(dir, p));
    if (st.isDirectory()) snapshot(dir, out, p);
    else if (st.isFile())
      out.set(
        p,
        `${st.ino}/${st.size}/${createHash('sha1')
          .update(readFileSync(join(dir, p)))
          .digest('hex')}`,
      );
  }
  return out;
}

function changed(before: Snapshot, dir: string): string[] {
  const after = snapshot(dir);
  return [...before].filter(([p, v]) => after.get(p) !== v).map(([p]) => p);
}

/** Processes whose working directory is the case folder: an external backend (or its shell) left running. */
function orphans(dir: string): number[] {
  const real = realpathSync(dir);
  const pids: number[] = [];
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      if (cwd === real || cwd.startsWith(`${real}/`)) pids.push(Number(pid));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

/** Files a run must not leave: temp files beside an output, exchange folders without --keep-external. */
function leftovers(dir: string, c: CliCase): string[] {
  const found: string[] = [];
  const walk = (rel: string) => {
    for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const p = join(rel, e.name);
      if (/\.tmp(-|$)/.test(e.name)) found.push(p);
      if (/^mla-diff-/.test(e.name) && !c.args.includes('--keep-external')) found.push(p);
      if (e.isDirectory() && !e.isSymbolicLink() && e.name !== 'here') walk(p);
    }
  };
  walk('');
  return found;
}

export function tmpfsWorks(dir: string): boolean {
  const at = mkdtempSync(join(dir, 'tmpfs-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', at], { stdio: 'ignore' });
    execFileSync('umount', [at], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(at, { recursive: true, force: true });
  }
}

const CODE = /mla-diff: error \[([\w-]+)\]([^\n]*)/;

/** Classifies a finished CLI run from its exit, stderr and what it left behind. */
function judge(c: CliCase, exit: { code: number | null; signal: string | null; ms: number; hung: boolean }, stderr: string): Outcome {
  if (exit.hung) return { class: 'hang', signature: `${c.kind}: past the CLI watchdog` };
  // the signal sent before the CLI set its handlers (startup): the default action, as a shell's 130/143; leaks judged after
  if (exit.signal && exit.signal === c.signal?.name) return { class: 'rejected', code: `killed by ${exit.signal} (default action)` };
  if (exit.signal) return { class: 'crash', signature: `${c.kind}: killed by ${exit.signal}` };
  const code = exit.code ?? -1;
  if (/internal error|std::bad_alloc|FATAL ERROR/.test(stderr))
    return {
      class: 'crash',
      signature: `${c.kind}: ${stderr.match(/(internal error|std::bad_alloc|FATAL ERROR)[^\n]{0,80}/)?.[0]}`.replace(/\/[^\s:]+/g, 'P'),
    };
  if (c.signal && code !== 130 && code !== 143 && code !== 0 && code !== 1)
    return { class: 'uncoded', signature: `${c.kind}: ${c.signal.name} → exit ${code}` };
  if (![0, 1, 2, 3, 130, 143].includes(code)) return { class: 'crash', signature: `${c.kind}: exit ${code}` };
  if (code === 0 || code === 1) return { class: 'ok' };
  if (code === 130 || code === 143) return { class: 'rejected', code: 'interrupted' };
  const m = CODE.exec(stderr);
  if (!m) return { class: 'uncoded', signature: `${c.kind}: exit ${code} without an error code` };
  if (/\bundefined\b/.test(m[2]!)) return { class: 'uncoded', code: m[1]!, signature: `${c.kind}: ${m[1]} says undefined` };
  return { class: 'rejected', code: m[1]! };
}

export interface CliResult {
  index: number;
  outcome: Outcome;
  describe: string;
  ms: number;
}

/** CLI case `index` of campaign `seed`: a fresh copy of the base in `work`, the built CLI spawned on it, judged. */
export async function runCliCase(
  base: string,
  work: string,
  seed: number,
  index: number,
  tmpfs: boolean,
  hangMs = 60_000,
): Promise<CliResult> {
  const dir = join(work, `c${index}`);
  rmSync(dir, { recursive: true, force: true });
  copyBase(base, dir);
  const c = cliCase(rng(inputSeed(seed, 'cli', index)), dir, tmpfs);
  const before = snapshot(dir);
  if (c.tmpfs) {
    const room = Number(readFileSync(join(dir, 'room'), 'utf8'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${Math.max(4, Math.ceil(room / 1024))}k`, 'tmpfs', c.tmpfs]);
  }
  const t0 = performance.now();
  const child = spawn(process.execPath, [CLI, ...c.args], {
    cwd: dir,
    env: { ...process.env, ...c.env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr = (stderr + b.toString()).slice(-20_000)));
  let hung = false;
  const sig = c.signal ? setTimeout(() => child.kill(c.signal!.name), c.signal.afterMs) : undefined;
  const dog = setTimeout(() => ((hung = true), child.kill('SIGKILL')), hangMs);
  const exit = await new Promise<{ code: number | null; signal: string | null }>((ok) =>
    child.on('exit', (code, signal) => ok({ code, signal })),
  );
  clearTimeout(dog);
  if (sig) clearTimeout(sig);
  const ms = performance.now() - t0;
  let outcome = judge(c, { ...exit, ms, hung }, stderr);
  await new Promise((ok) => setTimeout(ok, 300));
  const lost = changed(before, dir);
  const left = orphans(dir);
  for (const pid of left) process.kill(pid, 'SIGKILL');
  const junk = leftovers(dir, c);
  const interrupted = exit.code === 130 || exit.code === 143;
  const partial = interrupted ? ['o.json', 'o.html'].filter((f) => existsSync(join(dir, f))) : [];
  if (lost.length) outcome = { class: 'data-loss', signature: `${c.kind}: ${c.describe.replace(/\d+/g, 'N')} changed an input` };
  else if (left.length && outcome.class !== 'hang')
    outcome = { class: 'leak', signature: `${c.kind}: a process left running in the case folder` };
  else if ((junk.length || partial.length) && outcome.class !== 'hang')
    outcome = {
      class: 'leak',
      signature: `${c.kind}: left ${[...junk, ...partial].map((p) => p.replace(/[\w-]*\d[\w-]*/g, 'N')).join(', ')}`,
    };
  if (c.tmpfs) execFileSync('umount', ['-l', c.tmpfs]);
  const detail =
    outcome.class === 'ok' || outcome.class === 'rejected'
      ? ''
      : ` | exit ${exit.code ?? exit.signal} | ${stderr.trim().split('\n')[0]?.slice(0, 200) ?? ''}`;
  rmSync(dir, { recursive: true, force: true });
  return { index, outcome, describe: `${c.describe}: mla-diff ${c.args.map((a) => (a === '' ? "''" : a)).join(' ')}${detail}`, ms };
}
