import type { RunJson } from './cli-helpers';
import { RUN_VERSION, emptyChunkSchedule, mla, pairsAt, suiteDir, tinySchedule } from './cli-helpers';

/**
 * End to end: the built CLI (dist/surface/cli/main.js) as a user runs it. Every case is a tiny layer on
 * wasm (or cpu), a second or so each. `npm test` builds first; run alone, this builds if needed.
 */
jest.setTimeout(120_000);

describe('mla-diff CLI (e2e): schedules', () => {
  const { write } = suiteDir();

  describe('schedules', () => {
    it('a tiny schedule passes (exit 0) with four paths at every piece', async () => {
      const scenario = write('schedule.yaml', tinySchedule('schedule'));
      const r = await mla(['run', scenario, '--device', 'wasm', '--format', 'json']);
      expect(r.stderr).toBe('');
      expect(r.exitCode).toBe(0);
      const j = JSON.parse(r.stdout) as RunJson;
      expect(j).toMatchObject({
        format: 'mla-diff/run',
        version: RUN_VERSION,
        verdict: 'agree',
        scenario: { schedule: { blockSize: 4, contextChunk: 5, kvSplits: 3, prefillKernel: 'fa3' } },
      });
      expect(j.scenario.requests.map((q) => q.name)).toEqual(['chat', 'hit']);
      const c = j.cases[0]!;
      expect(c.comparison.firstDivergence).toBeNull();
      expect(Object.keys(c.trace.paths).sort()).toEqual(['cold', 'mha', 'mqa', 'reference']);
      // chat: 3 prefill chunks, 3 decodes, a second turn; hit: a cache fill, then a prefill after it. The
      // MHA prefills of one step share context chunk boundaries: at step 1 chat (context 5) gets 2
      // chunks like hit (context 7), its second one empty.
      expect(c.trace.pieces.map((p) => `${p.step}/${p.request}/${p.kind}/${p.route}/${p.start}+${p.count}/${p.chunks}`)).toEqual([
        '0/chat/prefill/mha/0+5/0',
        '0/hit/cached/mha/0+7/0',
        '1/chat/prefill/mha/5+5/2',
        '1/hit/prefill/mha/7+6/2',
        '2/chat/prefill/mha/10+2/2',
        '3/chat/decode/mqa/12+1/3',
        '4/chat/decode/mqa/13+1/3',
        '5/chat/decode/mqa/14+1/3',
        '6/chat/prefill/mha/15+4/3',
      ]);
      // Context chunks are compared chunk by chunk.
      expect(
        c.comparison.stages.filter((s) => s.step === 1 && s.request === 'hit' && s.stage === 'context_lse').map((s) => s.chunk),
      ).toEqual([0, 1]);

      const table = await mla(['run', scenario, '--device', 'wasm']);
      expect(table.exitCode).toBe(0);
      expect(table.stdout).toMatch(/^PASS full: mha ≡ mqa ≡ cold ≡ reference at \d+ records of 8 piece\(s\)/m);
      expect(table.stdout).toContain('‖cold‖');
    });

    it('lse-layout-transposed in mha: exit 1, first divergence context_lse chunk 0 at step 1, culprit mha', async () => {
      const scenario = write(
        'schedule-layout.yaml',
        tinySchedule('schedule-layout', 'faults: [{path: mha, fault: lse-layout-transposed}]\n'),
      );
      const r = await mla(['run', scenario, '--device', 'wasm', '--format', 'json']);
      expect(r.exitCode).toBe(1);
      const j = JSON.parse(r.stdout) as RunJson;
      expect(j).toMatchObject({ version: RUN_VERSION, verdict: 'diverge' });
      expect(j.cases[0]!.comparison.firstDivergence).toMatchObject({
        step: 1,
        request: 'chat',
        stage: 'context_lse',
        chunk: 0,
        culprit: 'mha',
      });
      // Step 0 has no context: it agrees.
      expect(j.cases[0]!.comparison.stages.filter((s) => s.step === 0).every((s) => s.verdict === 'ok')).toBe(true);

      const table = await mla(['run', scenario, '--device', 'wasm']);
      expect(table.exitCode).toBe(1);
      expect(table.stdout).toMatch(/^FAIL full: first divergence at context_lse\[chunk 0\], step 1, request chat .*mha is the wrong path/m);
      expect(table.stdout).toContain('the first divergent piece:');
      expect(table.stdout).toMatch(/│ context_lse\[0\] +│.*◀ first/);
    });

    it('the same fault with --reference off: mha is still named, the majority of mha, mqa and cold', async () => {
      const scenario = write(
        'schedule-layout-noref.yaml',
        tinySchedule('schedule-layout-noref', 'faults: [{path: mha, fault: lse-layout-transposed}]\n'),
      );
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
      expect(c.trace.pieces.filter((p) => p.step === 1).map((p) => [p.request, p.start, p.chunks])).toEqual([
        ['short', 3, 3],
        ['long', 12, 3],
      ]);
      // short's chunks 1 and 2 gather no rows; their LSE is +inf in every path that records it, and agrees.
      const short = (path: string, stage: string) =>
        c.trace.paths[path]!.stages.filter((s) => s.step === 1 && s.request === 'short' && s.stage === stage);
      expect(short('mha', 'ctx_workspace').map((s) => [s.chunk, s.stats.shape[0]])).toEqual([
        [0, 3],
        [1, 0],
        [2, 0],
      ]);
      for (const path of ['mha', 'reference']) {
        expect(short(path, 'chunk_lse').map((s) => s.stats.infCount === s.stats.size && s.stats.size > 0)).toEqual([false, true, true]);
      }
      expect(c.comparison.stages.filter((s) => s.stage === 'chunk_lse' && s.request === 'short').map((s) => s.verdict)).toEqual([
        'ok',
        'ok',
        'ok',
      ]);
    });

    it('merge-inf-unhandled in mha on that schedule: nan-introduced at the empty chunk, culprit mha', async () => {
      const scenario = write(
        'empty-chunk-fault.yaml',
        emptyChunkSchedule('empty-chunk-fault', 'faults: [{path: mha, fault: merge-inf-unhandled}]\n'),
      );
      const r = await mla(['run', scenario, '--device', 'wasm', '--format', 'json']);
      expect(r.exitCode).toBe(1);
      const j = JSON.parse(r.stdout) as RunJson;
      expect(j.cases[0]!.comparison.firstDivergence).toMatchObject({
        step: 1,
        request: 'short',
        stage: 'context_output',
        chunk: 1,
        verdict: 'nan-introduced',
        culprit: 'mha',
      });
      // long's chunks are never empty: its merges stay finite.
      expect(
        j.cases[0]!.trace.paths['mha']!.stages.filter((s) => s.request === 'long' && s.stage === 'context_output').every(
          (s) => s.stats.nanCount === 0,
        ),
      ).toBe(true);
    });
  });
});
