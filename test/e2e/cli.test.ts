import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import execa from 'execa';
import { itWebgpu, skipReason } from './webgpu-checks';

/**
 * End to end: the built CLI (dist/surface/cli/main.js) as a user runs it. Every case is a tiny layer on
 * wasm (or cpu), a second or so each. `npm test` builds first; run alone, this builds if needed.
 */
const ROOT = resolve(__dirname, '../..');
const CLI = join(ROOT, 'dist', 'surface', 'cli', 'main.js');
const TINY_SMOKE = join(ROOT, 'scenarios', 'tiny-smoke.yaml');

jest.setTimeout(120_000);

function mla(args: string[], env: NodeJS.ProcessEnv = {}): Promise<execa.ExecaReturnValue> {
  return execa('node', [CLI, ...args], { cwd: ROOT, reject: false, env: { NO_COLOR: '1', ...env } });
}

/** Lines of a JavaScript stack trace (`    at fn (/path/file.js:12:3)`). */
const jsStackLines = (text: string) => text.split('\n').filter((l) => /^\s+at .*\.(c?js|mjs|ts):\d+:\d+\)?$/.test(l));
/** Any line shaped like a stack frame. */
const stackLines = (text: string) => text.split('\n').filter((l) => /^\s+at /.test(l));

interface Where {
  step: number;
  request: string;
  stage: string;
  chunk?: number;
}

interface RunJson {
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
const RUN_VERSION = 5;

const tinyScenario = (name: string, extra = '') =>
  `name: ${name}\nmodel: {preset: tiny}\nweights: {synthetic: {seed: 3}}\nprompt:\n  ids: [5, 17, 256, 999, 42]\n${extra}`;

/**
 * A tiny serving schedule: `chat` prefills 12 tokens in chunks of 5 (its later chunks attend to
 * cached context, 2 context chunks of 5), decodes 3 through MQA with 3 KV splits, then prefills a
 * second turn; `hit` finds 7 tokens in the prefix cache and prefills 6 after them.
 */
const tinySchedule = (name: string, extra = '', schedule = '') =>
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
const emptyChunkSchedule = (name: string, extra = '') =>
  `name: ${name}\nmodel: {preset: tiny}\nweights: {synthetic: {seed: 3}}\nreference: on\n` +
  'schedule: {block_size: 4, context_chunk: 5, kv_splits: 3, prefill_kernel: fa2}\n' +
  'requests:\n' +
  '  - {name: short, steps: [{prefill: 3}, {prefill: 4}]}\n' +
  '  - {name: long, steps: [{prefill: 12}, {prefill: 4}]}\n' +
  extra;

const pairsAt = (j: RunJson, w: Where) =>
  j.cases[0]!.comparison.stages.find((s) => s.step === w.step && s.request === w.request && s.stage === w.stage && s.chunk === w.chunk)!.pairs
    .map((p) => `${p.a}-${p.b}:${p.verdict}`);

describe('mla-diff CLI (e2e)', () => {
  let dir: string;
  const file = (name: string) => join(dir, name);
  const write = (name: string, text: string) => {
    writeFileSync(file(name), text);
    return file(name);
  };

  beforeAll(async () => {
    if (!existsSync(CLI)) await execa('npm', ['run', 'build'], { cwd: ROOT });
    dir = mkdtempSync(join(tmpdir(), 'mla-diff-e2e-'));
  });

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  describe('runs', () => {
    it.each(['wasm', 'cpu'])('tiny-smoke on %s passes (exit 0)', async (device) => {
      const r = await mla(['run', TINY_SMOKE, '--device', device]);
      expect(r.stderr).toBe('');
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toMatch(/^PASS all-heads/m);
      expect(r.stdout).toMatch(/^PASS tp1-of-2/m);
      expect(r.stdout).not.toMatch(/\u001b\[/);
    });

    it('--format json is the versioned run report', async () => {
      const r = await mla(['run', TINY_SMOKE, '--device', 'wasm', '--format', 'json']);
      expect(r.exitCode).toBe(0);
      const j = JSON.parse(r.stdout) as RunJson;
      expect(j).toMatchObject({ format: 'mla-diff/run', version: RUN_VERSION, verdict: 'agree', device: { name: 'wasm' } });
      // A prompt: is one request prefilled in one piece.
      expect(j.scenario.requests.map((r) => r.name)).toEqual(['prompt']);
      expect(j.cases[0]!.trace.pieces).toEqual([{ step: 0, request: 'prompt', kind: 'prefill', route: 'mha', start: 0, count: 7, chunks: 0 }]);
      expect(j.cases.map((c) => [c.trace.name, c.comparison.verdict, c.comparison.firstDivergence])).toEqual([
        ['all-heads', 'agree', null],
        ['tp1-of-2', 'agree', null],
      ]);
    });

    it.each([
      ['mqa', 'softmax-scale-latent', 'logits'],
      ['mha', 'rope-neox', 'q_pe'],
      ['mqa', 'kv-norm-skipped', 'kv_c_normed'],
      ['mha', 'lse-base-2', 'lse'],
    ])('a %s fault %s exits 1 and first diverges at %s, culprit the faulty path', async (path, fault, stage) => {
      const scenario = write(`fault-${fault}.yaml`, tinyScenario(`fault-${fault}`, `faults: [{path: ${path}, fault: ${fault}}]\n`));
      const r = await mla(['run', scenario, '--device', 'wasm', '--format', 'json']);
      expect(r.exitCode).toBe(1);
      const j = JSON.parse(r.stdout) as RunJson;
      expect(j).toMatchObject({ format: 'mla-diff/run', version: RUN_VERSION, verdict: 'diverge', device: { name: 'wasm' } });
      expect(j.cases[0]!.comparison.firstDivergence).toMatchObject({ step: 0, request: 'prompt', stage, culprit: path });
    });

    it('a fault in table format exits 1 and says FAIL', async () => {
      const scenario = write('fault-table.yaml', tinyScenario('fault-table', 'faults: [{path: mqa, fault: softmax-scale-latent}]\n'));
      const r = await mla(['run', scenario, '--device', 'wasm']);
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toMatch(/^FAIL full: first divergence at logits, step 0, request prompt .*mqa/m);
      expect(r.stdout).toContain('◀ first');
    });

    it('stage replay marks each divergent row introduced or inherited and names the first introduced stage; --replay off drops it', async () => {
      const scenario = write('fault-replay.yaml', tinyScenario('fault-replay', 'faults: [{path: mqa, fault: kv-norm-skipped}, {path: mqa, fault: softmax-scale-latent}]\n'));
      const r = await mla(['run', scenario, '--device', 'wasm']);
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toMatch(/^FAIL full: first divergence at kv_c_normed, .*; first introduced at kv_c_normed$/m);
      expect(r.stdout).toMatch(/│ kv_c_normed .*│ out-of-tolerance \(mqa\) · introduced ◀ first\s+│$/m);
      expect(r.stdout).toMatch(/│ logits .*│ out-of-tolerance \(mqa\) · introduced\s+│$/m);
      expect(r.stdout).toMatch(/│ attn_out_latent .*│ out-of-tolerance \(mqa\) · inherited\s+│$/m);
      expect(r.stdout).toMatch(/^stage replay: introduced at kv_c_normed, logits; \d+ inherited \(\d+ re-runs?, [\d.]+ s\)$/m);
      const off = await mla(['run', scenario, '--device', 'wasm', '--replay', 'off']);
      expect(off.exitCode).toBe(1);
      expect(off.stdout).not.toMatch(/introduced|inherited|stage replay/);
    });

    it('--quiet prints nothing; the exit code tells', async () => {
      const scenario = write('quiet.yaml', tinyScenario('quiet', 'faults: [{path: mha, fault: rope-neox}]\n'));
      const r = await mla(['run', scenario, '--device', 'wasm', '--quiet']);
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toBe('');
    });

    it('--case NAME runs only that case', async () => {
      const r = await mla(['run', TINY_SMOKE, '--device', 'wasm', '--format', 'json', '--case', 'tp1-of-2']);
      expect(r.exitCode).toBe(0);
      expect((JSON.parse(r.stdout) as RunJson).cases.map((c) => c.trace.name)).toEqual(['tp1-of-2']);
    });

    it('selftest --floor with a negative k exits 2 before running anything', async () => {
      const r = await mla(['selftest', '--floor', '-1', '--device', 'wasm']);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(/error \[usage\]/);
      expect(r.stdout).toBe('');
      expect(stackLines(r.stderr)).toEqual([]);
    });

    it('an unknown --case name exits 2', async () => {
      const r = await mla(['run', TINY_SMOKE, '--device', 'wasm', '--case', 'no-such-case']);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(/error \[invalid-value\]/);
      expect(r.stdout).toBe('');
      expect(stackLines(r.stderr)).toEqual([]);
    });
  });

  describe('schedules', () => {
    it('a tiny schedule passes (exit 0) with four paths at every piece', async () => {
      const scenario = write('schedule.yaml', tinySchedule('schedule'));
      const r = await mla(['run', scenario, '--device', 'wasm', '--format', 'json']);
      expect(r.stderr).toBe('');
      expect(r.exitCode).toBe(0);
      const j = JSON.parse(r.stdout) as RunJson;
      expect(j).toMatchObject({ format: 'mla-diff/run', version: RUN_VERSION, verdict: 'agree', scenario: { schedule: { blockSize: 4, contextChunk: 5, kvSplits: 3, prefillKernel: 'fa3' } } });
      expect(j.scenario.requests.map((q) => q.name)).toEqual(['chat', 'hit']);
      const c = j.cases[0]!;
      expect(c.comparison.firstDivergence).toBeNull();
      expect(Object.keys(c.trace.paths).sort()).toEqual(['cold', 'mha', 'mqa', 'reference']);
      // chat: 3 prefill chunks, 3 decodes, a second turn; hit: a cache fill, then a prefill after it. The
      // MHA prefills of one step share context chunk boundaries: at step 1 chat (context 5) gets 2
      // chunks like hit (context 7), its second one empty.
      expect(c.trace.pieces.map((p) => `${p.step}/${p.request}/${p.kind}/${p.route}/${p.start}+${p.count}/${p.chunks}`)).toEqual([
        '0/chat/prefill/mha/0+5/0', '0/hit/cached/mha/0+7/0',
        '1/chat/prefill/mha/5+5/2', '1/hit/prefill/mha/7+6/2',
        '2/chat/prefill/mha/10+2/2',
        '3/chat/decode/mqa/12+1/3', '4/chat/decode/mqa/13+1/3', '5/chat/decode/mqa/14+1/3',
        '6/chat/prefill/mha/15+4/3',
      ]);
      // Context chunks are compared chunk by chunk.
      expect(c.comparison.stages.filter((s) => s.step === 1 && s.request === 'hit' && s.stage === 'context_lse').map((s) => s.chunk)).toEqual([0, 1]);

      const table = await mla(['run', scenario, '--device', 'wasm']);
      expect(table.exitCode).toBe(0);
      expect(table.stdout).toMatch(/^PASS full: mha ≡ mqa ≡ cold ≡ reference at \d+ records of 8 piece\(s\)/m);
      expect(table.stdout).toContain('‖cold‖');
    });

    it('lse-layout-transposed in mha: exit 1, first divergence context_lse chunk 0 at step 1, culprit mha', async () => {
      const scenario = write('schedule-layout.yaml', tinySchedule('schedule-layout', 'faults: [{path: mha, fault: lse-layout-transposed}]\n'));
      const r = await mla(['run', scenario, '--device', 'wasm', '--format', 'json']);
      expect(r.exitCode).toBe(1);
      const j = JSON.parse(r.stdout) as RunJson;
      expect(j).toMatchObject({ version: RUN_VERSION, verdict: 'diverge' });
      expect(j.cases[0]!.comparison.firstDivergence).toMatchObject({ step: 1, request: 'chat', stage: 'context_lse', chunk: 0, culprit: 'mha' });
      // Step 0 has no context: it agrees.
      expect(j.cases[0]!.comparison.stages.filter((s) => s.step === 0).every((s) => s.verdict === 'ok')).toBe(true);

      const table = await mla(['run', scenario, '--device', 'wasm']);
      expect(table.exitCode).toBe(1);
      expect(table.stdout).toMatch(/^FAIL full: first divergence at context_lse\[chunk 0\], step 1, request chat .*mha is the wrong path/m);
      expect(table.stdout).toContain('the first divergent piece:');
      expect(table.stdout).toMatch(/│ context_lse\[0\] +│.*◀ first/);
    });

    it('the same fault with --reference off: mha is still named, the majority of mha, mqa and cold', async () => {
      const scenario = write('schedule-layout-noref.yaml', tinySchedule('schedule-layout-noref', 'faults: [{path: mha, fault: lse-layout-transposed}]\n'));
      const r = await mla(['run', scenario, '--device', 'wasm', '--format', 'json', '--reference', 'off']);
      expect(r.exitCode).toBe(1);
      const j = JSON.parse(r.stdout) as RunJson;
      expect(j.scenario.reference).toBe('off');
      expect(Object.keys(j.cases[0]!.trace.paths).sort()).toEqual(['cold', 'mha', 'mqa']);
      const f = j.cases[0]!.comparison.firstDivergence!;
      expect(f).toMatchObject({ step: 1, request: 'chat', stage: 'lse', culprit: 'mha' });
      // Where the fault first shows without the reference, mqa and cold agree and mha is the odd one out.
      expect(pairsAt(j, f)).toEqual(['mha-mqa:out-of-tolerance', 'mha-cold:out-of-tolerance', 'mqa-cold:ok']);
    });

    it('an empty context chunk under FA2 agrees when the merge maps +inf to −inf', async () => {
      const scenario = write('empty-chunk.yaml', emptyChunkSchedule('empty-chunk'));
      const r = await mla(['run', scenario, '--device', 'wasm', '--format', 'json']);
      expect(r.exitCode).toBe(0);
      const j = JSON.parse(r.stdout) as RunJson;
      const c = j.cases[0]!;
      expect(c.trace.pieces.filter((p) => p.step === 1).map((p) => [p.request, p.start, p.chunks])).toEqual([['short', 3, 3], ['long', 12, 3]]);
      // short's chunks 1 and 2 gather no rows; their LSE is +inf in every path that records it, and agrees.
      const short = (path: string, stage: string) => c.trace.paths[path]!.stages.filter((s) => s.step === 1 && s.request === 'short' && s.stage === stage);
      expect(short('mha', 'ctx_workspace').map((s) => [s.chunk, s.stats.shape[0]])).toEqual([[0, 3], [1, 0], [2, 0]]);
      for (const path of ['mha', 'reference']) {
        expect(short(path, 'chunk_lse').map((s) => s.stats.infCount === s.stats.size && s.stats.size > 0)).toEqual([false, true, true]);
      }
      expect(c.comparison.stages.filter((s) => s.stage === 'chunk_lse' && s.request === 'short').map((s) => s.verdict)).toEqual(['ok', 'ok', 'ok']);
    });

    it('merge-inf-unhandled in mha on that schedule: nan-introduced at the empty chunk, culprit mha', async () => {
      const scenario = write('empty-chunk-fault.yaml', emptyChunkSchedule('empty-chunk-fault', 'faults: [{path: mha, fault: merge-inf-unhandled}]\n'));
      const r = await mla(['run', scenario, '--device', 'wasm', '--format', 'json']);
      expect(r.exitCode).toBe(1);
      const j = JSON.parse(r.stdout) as RunJson;
      expect(j.cases[0]!.comparison.firstDivergence).toMatchObject({
        step: 1, request: 'short', stage: 'context_output', chunk: 1, verdict: 'nan-introduced', culprit: 'mha',
      });
      // long's chunks are never empty: its merges stay finite.
      expect(j.cases[0]!.trace.paths['mha']!.stages.filter((s) => s.request === 'long' && s.stage === 'context_output').every((s) => s.stats.nanCount === 0)).toBe(true);
    });
  });

  describe('bad input exits 2 with an error code and no stack trace', () => {
    // [what, error code, where the message must point (or null), arguments]; a thunk, as files are written in the temp dir.
    const cases: [string, string, RegExp | null, () => string[]][] = [
      ['a missing file', 'file-not-found', /missing\.yaml/, () => ['run', file('missing.yaml'), '--device', 'wasm']],
      ['malformed YAML', 'yaml-syntax', /malformed\.yaml:\d+/,
        () => ['run', write('malformed.yaml', 'name: t\nmodel: {preset: tiny\nprompt: {ids: [1]}\n'), '--device', 'wasm']],
      ['an unknown key', 'unknown-key', /bad\.yaml:3\b/,
        () => ['run', write('bad.yaml', 'name: t\nmodel:\n  hiden_size: 96\n  preset: tiny\nprompt: {ids: [1]}\n'), '--device', 'wasm']],
      ['an unknown preset', 'unknown-preset', /preset\.yaml:2\b/,
        () => ['run', write('preset.yaml', 'name: t\nmodel: {preset: glm-6}\nprompt: {ids: [1]}\n'), '--device', 'wasm']],
      ['a directory', 'file-unreadable', null, () => ['run', dir, '--device', 'wasm']],
      ['--device nonsense', 'usage', null, () => ['run', TINY_SMOKE, '--device', 'nonsense']],
      ['an unknown option', 'usage', null, () => ['run', TINY_SMOKE, '--devcie', 'wasm']],
      ['an unknown command', 'usage', null, () => ['frobnicate']],
      ['no command', 'usage', null, () => []],
      ['run without a scenario', 'usage', null, () => ['run']],
    ];

    it.each(cases)('%s → error [%s]', async (_what, code, where, args) => {
      const r = await mla(args());
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain(`error [${code}]`);
      if (where) expect(r.stderr).toMatch(where);
      expect(stackLines(r.stderr)).toEqual([]);
      expect(r.stderr).not.toContain('internal error');
    });

    it('a bad scenario among good ones fails before anything runs', async () => {
      const bad = write('bad-second.yaml', 'name: t\nmodel: {preset: tiny}\nprompt: {ids: [1000]}\n');
      const r = await mla(['run', TINY_SMOKE, bad, '--device', 'wasm']);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('error [invalid-value]');
      expect(r.stdout).toBe('');
    });

    it('--verbose adds the stack trace', async () => {
      const r = await mla(['run', write('verbose.yaml', 'name: t\nmodel:\n  preset: tiny\n  hiden_size: 1\nprompt: {ids: [1]}\n'), '--device', 'wasm', '--verbose']);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('error [unknown-key]');
      expect(stackLines(r.stderr).length).toBeGreaterThan(0);
    });
  });

  describe('help and stages', () => {
    it('--help exits 0 and shows examples', async () => {
      const r = await mla(['--help']);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain('Examples:');
      expect(r.stdout).toContain('mla-diff run');
    });

    it('run --help exits 0 and shows examples', async () => {
      const r = await mla(['run', '--help']);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain('Examples:');
      expect(r.stdout).toContain('--device');
    });

    it('stages exits 0 and lists the stages', async () => {
      const r = await mla(['stages']);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain('ql_nope');
      expect(r.stdout).toContain('W_UK_T');
      expect(r.stdout).toContain('softmax-scale-latent');
      expect(r.stdout).toContain('k-b-wrong-axis'); // the loader fault
      expect(r.stdout).toMatch(/Weight stage W .*kv_b_proj, W_UK, W_UV/);
    });

    it('faults lists the catalogue with bug references; --format json is versioned', async () => {
      const r = await mla(['faults']);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toMatch(/k-scale-bf16-cache .*sglang#18396/);
      expect(r.stdout).toContain('k-b-wrong-axis');
      const j = JSON.parse((await mla(['faults', '--format', 'json'])).stdout) as { format: string; faults: Record<string, { enters: string; needs: string }> };
      expect(j.format).toBe('mla-diff/faults');
      expect(Object.keys(j.faults).length).toBeGreaterThanOrEqual(12);
      expect(j.faults['yarn-mscale-missing']).toMatchObject({ enters: 'logits', needs: 'yarn' });
    });

    it('selftest --help shows its examples; an unknown selftest option is a usage error (exit 2)', async () => {
      const r = await mla(['selftest', '--help']);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain('selftest --full');
      expect((await mla(['selftest', '--fast'])).exitCode).toBe(2);
    });

    it('stages --format json is parseable', async () => {
      const r = await mla(['stages', '--format', 'json']);
      expect(r.exitCode).toBe(0);
      const j = JSON.parse(r.stdout) as { stages: Record<string, unknown>; faults: Record<string, unknown> };
      expect(Object.keys(j.stages)).toEqual(expect.arrayContaining(['ql_nope', 'W_UK_T', 'logits']));
      expect(Object.keys(j.faults)).toEqual(expect.arrayContaining(['rope-neox', 'lse-base-2']));
      expect(Object.keys((j as unknown as { loaderFaults: object }).loaderFaults)).toEqual(['k-b-wrong-axis']);
    });
  });

  describe('--out', () => {
    it('writes the JSON report to the file and one line to stdout', async () => {
      const out = file('report.json');
      const r = await mla(['run', TINY_SMOKE, '--device', 'wasm', '--format', 'json', '--out', out]);
      expect(r.exitCode).toBe(0);
      expect(r.stdout.trim().split('\n')).toHaveLength(1);
      expect(r.stdout).toMatch(/^PASS tiny-smoke/);
      expect(r.stdout).toContain(out);
      expect(JSON.parse(readFileSync(out, 'utf8'))).toMatchObject({ format: 'mla-diff/run', version: RUN_VERSION, device: { name: 'wasm' } });
    });

    it('writes a table report as plain text', async () => {
      const out = file('report.txt');
      const r = await mla(['run', TINY_SMOKE, '--device', 'wasm', '--out', out], { FORCE_COLOR: '1', NO_COLOR: undefined });
      expect(r.exitCode).toBe(0);
      expect(r.stdout.trim().split('\n')).toHaveLength(1);
      const text = readFileSync(out, 'utf8');
      expect(text).toMatch(/^mla-diff report/);
      expect(text).toMatch(/^PASS all-heads/m);
      expect(text).not.toMatch(/\u001b\[/);
    });

    it('a diverging run writes the report and exits 1 with a FAIL line', async () => {
      const scenario = write('fault-out.yaml', tinyScenario('fault-out', 'faults: [{path: mqa, fault: kv-norm-skipped}]\n'));
      const out = file('fault-out.json');
      const r = await mla(['run', scenario, '--device', 'wasm', '--format', 'json', '--out', out]);
      expect(r.exitCode).toBe(1);
      expect(r.stdout.trim().split('\n')).toHaveLength(1);
      expect(r.stdout).toMatch(/^FAIL fault-out: .*kv_c_normed \(step 0, prompt; culprit mqa\)/);
      expect((JSON.parse(readFileSync(out, 'utf8')) as RunJson).cases[0]!.comparison.firstDivergence).toMatchObject({ step: 0, request: 'prompt', stage: 'kv_c_normed', culprit: 'mqa' });
    });

    it('refuses to overwrite a file mla-diff did not write (output-exists), leaving it unchanged', async () => {
      const out = write('precious.json', '{"mine": true}\n');
      const r = await mla(['run', TINY_SMOKE, '--device', 'wasm', '--format', 'json', '--out', out]);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('error [output-exists]');
      expect(stackLines(r.stderr)).toEqual([]);
      expect(readFileSync(out, 'utf8')).toBe('{"mine": true}\n');
    });

    it.each([
      ['a JSON report', ['--format', 'json']],
      ['a table report', []],
    ])('may overwrite %s it wrote before', async (_what, first) => {
      const out = file(`again-${first.length}.out`);
      expect((await mla(['run', TINY_SMOKE, '--device', 'wasm', ...first, '--out', out])).exitCode).toBe(0);
      const r = await mla(['run', TINY_SMOKE, '--device', 'wasm', '--format', 'json', '--case', 'all-heads', '--out', out]);
      expect(r.exitCode).toBe(0);
      expect((JSON.parse(readFileSync(out, 'utf8')) as RunJson).cases).toHaveLength(1);
    });

    it('--force overwrites a file mla-diff did not write', async () => {
      const out = write('forced.json', 'not a report\n');
      const r = await mla(['run', TINY_SMOKE, '--device', 'wasm', '--format', 'json', '--out', out, '--force']);
      expect(r.exitCode).toBe(0);
      expect(JSON.parse(readFileSync(out, 'utf8'))).toMatchObject({ format: 'mla-diff/run' });
    });

    it.each([[[]], [['--force']]])('never over the input scenario (%p)', async (extra) => {
      const scenario = file(`input-${extra.length}.yaml`);
      copyFileSync(TINY_SMOKE, scenario);
      const before = readFileSync(scenario, 'utf8');
      const r = await mla(['run', scenario, '--device', 'wasm', '--out', scenario, ...extra]);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('error [output-exists]');
      expect(readFileSync(scenario, 'utf8')).toBe(before);
    });
  });

  describe('webgpu', () => {
    it('tiny-smoke on webgpu passes, or fails cleanly as device-unavailable', async () => {
      const r = await mla(['run', TINY_SMOKE, '--device', 'webgpu']);
      if (process.env['MLA_DIFF_REQUIRE_WEBGPU'] === '1' || r.exitCode === 0) {
        expect(r.exitCode).toBe(0);
        expect(r.stdout).toMatch(/^PASS all-heads/m);
      } else {
        expect(r.exitCode).toBe(2);
        expect(r.stderr).toContain('error [device-unavailable]');
        expect(jsStackLines(r.stderr)).toEqual([]);
      }
    });

    itWebgpu(`tiny-smoke with schedule.attention fused on webgpu: the WGSL flash kernel in both paths (MHA token-major) agrees with the reference${skipReason}`, async () => {
      const scenario = file('tiny-fused.yaml');
      writeFileSync(scenario, `${readFileSync(TINY_SMOKE, 'utf8').replace('name: tiny-smoke', 'name: tiny-smoke-fused')}schedule:\n  attention: fused\n`);
      const r = await mla(['run', scenario, '--device', 'webgpu']);
      expect({ exit: r.exitCode, err: r.stderr.split('\n').filter((l) => /error|internal/i.test(l)) }).toEqual({ exit: 0, err: [] });
      expect(r.stdout).toContain('note: attention: fused on webgpu');
      expect(r.stdout).toMatch(/^PASS all-heads: mha ≡ mqa ≡ reference/m);
      expect(r.stdout).toMatch(/^PASS tp1-of-2/m);
    });

    it('without a Vulkan driver: exit 2, device-unavailable, no crash, no stack trace', async () => {
      const r = await mla(['run', TINY_SMOKE, '--device', 'webgpu'], { VK_DRIVER_FILES: '/nonexistent.json', VK_ICD_FILENAMES: '/nonexistent.json' });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('error [device-unavailable]');
      expect(r.stderr).not.toContain('internal error');
      // Dawn itself logs a native source location (`at CheckVkSuccessImpl (…VulkanError.cpp:106)`);
      // what must not appear is a JavaScript stack.
      expect(jsStackLines(r.stderr)).toEqual([]);
      expect(r.stdout).toBe('');
    });
  });
});
