import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import execa from 'execa';

/** What the CLI's e2e suites share: the built CLI, tiny scenarios, the run JSON's shape they read, a temp dir per suite. */
export const ROOT = resolve(__dirname, '../..');
export const CLI = join(ROOT, 'dist', 'surface', 'cli', 'main.js');
export const TINY_SMOKE = join(ROOT, 'scenarios', 'tiny-smoke.yaml');

export function mla(args: string[], env: NodeJS.ProcessEnv = {}): Promise<execa.ExecaReturnValue> {
  return execa('node', [CLI, ...args], { cwd: ROOT, reject: false, env: { NO_COLOR: '1', ...env } });
}

/** Lines of a JavaScript stack trace (`    at fn (/path/file.js:12:3)`). */
export const jsStackLines = (text: string) => text.split('\n').filter((l) => /^\s+at .*\.(c?js|mjs|ts):\d+:\d+\)?$/.test(l));
/** Any line shaped like a stack frame. */
export const stackLines = (text: string) => text.split('\n').filter((l) => /^\s+at /.test(l));

export interface Where {
  step: number;
  request: string;
  stage: string;
  chunk?: number;
}

export interface RunJson {
  format: string;
  version: number;
  verdict: 'agree' | 'diverge';
  device: { name: string };
  scenario: { requests: { name: string }[]; schedule: Record<string, unknown>; reference: string };
  cases: {
    trace: {
      name: string;
      pieces: { step: number; request: string; kind: string; route: string; start: number; count: number; chunks: number }[];
      paths: Record<string, { stages: (Where & { stats: { shape: number[]; size: number; infCount: number; nanCount: number } })[] }>;
    };
    comparison: {
      verdict: string;
      firstDivergence: (Where & { verdict: string; culprit: string }) | null;
      stages: (Where & { verdict: string; pairs: { a: string; b: string; verdict: string }[] })[];
    };
  }[];
}

/** Version of the run JSON this suite reads. */
export const RUN_VERSION = 6;

export const tinyScenario = (name: string, extra = '') =>
  `name: ${name}\nmodel: {preset: tiny}\nweights: {synthetic: {seed: 3}}\nprompt:\n  ids: [5, 17, 256, 999, 42]\n${extra}`;

/**
 * A tiny serving schedule: `chat` prefills 12 tokens in chunks of 5 (its later chunks attend to
 * cached context, 2 context chunks of 5), decodes 3 through MQA with 3 KV splits, then prefills a
 * second turn; `hit` finds 7 tokens in the prefix cache and prefills 6 after them.
 */
export const tinySchedule = (name: string, extra = '', schedule = '') =>
  `name: ${name}\nmodel: {preset: tiny}\nweights: {synthetic: {seed: 3}}\nreference: on\n` +
  `schedule: {block_size: 4, context_chunk: 5, kv_splits: 3${schedule}}\n` +
  'requests:\n' +
  '  - {name: chat, steps: [{prefill: 12, chunk: 5}, {decode: 3}, {prefill: 4}]}\n' +
  '  - {name: hit, steps: [{cached: 7}, {prefill: 6}]}\n' +
  extra;

/**
 * Two requests prefilling together with context 3 and 12: at step 1 they share 3 context chunks of
 * 5 tokens, so `short`'s chunks 1 and 2 are empty (FA2 reports +inf LSE for them).
 */
export const emptyChunkSchedule = (name: string, extra = '') =>
  `name: ${name}\nmodel: {preset: tiny}\nweights: {synthetic: {seed: 3}}\nreference: on\n` +
  'schedule: {block_size: 4, context_chunk: 5, kv_splits: 3, prefill_kernel: fa2}\n' +
  'requests:\n' +
  '  - {name: short, steps: [{prefill: 3}, {prefill: 4}]}\n' +
  '  - {name: long, steps: [{prefill: 12}, {prefill: 4}]}\n' +
  extra;

export const pairsAt = (j: RunJson, w: Where) =>
  j.cases[0]!.comparison.stages.find(
    (s) => s.step === w.step && s.request === w.request && s.stage === w.stage && s.chunk === w.chunk,
  )!.pairs.map((p) => `${p.a}-${p.b}:${p.verdict}`);

/** A temp dir for one suite (made before its tests, the CLI built if it is not), and files written into it. */
export function suiteDir(): { path: () => string; file: (name: string) => string; write: (name: string, text: string) => string } {
  let dir = '';
  const file = (name: string) => join(dir, name);
  beforeAll(async () => {
    if (!existsSync(CLI)) await execa('npm', ['run', 'build'], { cwd: ROOT });
    dir = mkdtempSync(join(tmpdir(), 'mla-diff-e2e-'));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return { path: () => dir, file, write: (name, text) => (writeFileSync(file(name), text), file(name)) };
}
