import type { PathName, StageName } from '../../trace/stages';
import { STAGES } from '../../trace/stages';
import type { PairDiff, Where } from '../run/diff';
import type { PieceInfo } from '../run/trace';
import { at, ONE_SHOT_STAGES, pathTrace, piece, PIECE0 } from '../../test-utils/traces';
import { pairDiff, stagePairs } from '../../test-utils/pairs';
import { caseTrace } from '../../test-utils/case-traces';
import { compareCase } from './compare';
import { WEIGHT_REL } from './tolerance';

const OK = 1e-7;
const BAD = 0.25;

/** Every stage of a one-shot prefill recorded and in agreement (weights exactly), with the reference unless told otherwise. */
function cleanDiffs(withReference = true, where: Partial<Where> = {}): PairDiff[] {
  return ONE_SHOT_STAGES.flatMap((s) => {
    const rel = STAGES[s].kind === 'weight' ? WEIGHT_REL : OK;
    return stagePairs(s, { engine: rel, mha: rel, mqa: rel }, { reference: withReference, where });
  });
}

/** `cleanDiffs` with the pairs of some stages replaced. */
function withStages(replacements: Partial<Record<StageName, PairDiff[]>>, withReference = true): PairDiff[] {
  return [...cleanDiffs(withReference).filter((d) => !(d.stage in replacements)), ...Object.values(replacements).flat()];
}

describe('compareCase: scalars and engines', () => {
  describe('scalar mismatches', () => {
    type Scalars = Record<string, number | string | boolean>;
    /** A clean trace whose paths record these scalars for their piece(s). */
    const trace = (
      scalars: Partial<Record<PathName, Scalars>>,
      pieces: PieceInfo[] = [PIECE0],
      perPiece?: (p: PieceInfo, path: PathName) => Scalars,
    ) => {
      const t = caseTrace(
        pieces.flatMap((p) => cleanDiffs(true, p)),
        { pieces },
      );
      const paths = Object.fromEntries(
        Object.entries(scalars).map(([p, s]) => {
          const path = p as PathName;
          const base = t.paths[path] ?? pathTrace(path, {});
          return [
            path,
            {
              ...base,
              pieces: pieces
                .filter((x) => x.kind !== 'cached')
                .map((x) => ({ step: x.step, request: x.request, scalars: perPiece?.(x, path) ?? s })),
            },
          ];
        }),
      );
      return { ...t, paths: { ...t.paths, ...paths } };
    };

    it('softmax_scale differing between paths is reported with every value, and its piece', () => {
      const c = compareCase(
        trace({
          mha: { softmax_scale: 0.0625, lse_base: 'e' },
          mqa: { softmax_scale: 1 / 24, lse_base: 'e' },
          reference: { softmax_scale: 0.0625, lse_base: 'e' },
        }),
        {},
      );
      expect(c.scalarMismatches).toEqual([
        { step: 0, request: 'prompt', name: 'softmax_scale', values: { mha: 0.0625, mqa: 1 / 24, reference: 0.0625 } },
      ]);
    });

    it('equal floats (up to rounding) are not a mismatch', () => {
      const c = compareCase(
        trace({ mha: { softmax_scale: 0.1 + 0.2 }, mqa: { softmax_scale: 0.3 }, reference: { softmax_scale: 0.3 } }),
        {},
      );
      expect(c.scalarMismatches).toEqual([]);
    });

    it.each([
      ['rope_style', 'gptj', 'neox'],
      ['lse_base', 'e', '2'],
      ['has_context', false, true],
      ['num_tokens', 5, 6],
      ['num_context_tokens', 0, 12],
      ['causal', true, false],
    ] as const)('%s differing is reported', (name, x, y) => {
      const c = compareCase(trace({ mha: { [name]: x }, mqa: { [name]: y } }), {});
      expect(c.scalarMismatches).toEqual([{ step: 0, request: 'prompt', name, values: { mha: x, mqa: y } }]);
    });

    it('scalars outside the compared set, or recorded by one path only, are not mismatches', () => {
      const c = compareCase(
        trace({
          mha: { head_start: 0, route: 'mha', empty_lse: '-inf', softmax_scale: 0.2 },
          mqa: { head_start: 2, route: 'mqa', kv_splits: 4 },
        }),
        {},
      );
      expect(c.scalarMismatches).toEqual([]);
    });

    it('scalars do not change the verdict', () => {
      const c = compareCase(trace({ mha: { softmax_scale: 1 }, mqa: { softmax_scale: 2 } }), {});
      expect(c.verdict).toBe('agree');
      expect(c.scalarMismatches).toHaveLength(1);
    });

    it('are reported per piece: only the piece whose scalars differ, cache fills skipped', () => {
      const pieces = [
        piece(0, 'a'),
        piece(0, 'b', { kind: 'cached', count: 7 }),
        piece(1, 'a', { start: 3, chunks: 1 }),
        piece(1, 'b', { start: 7, chunks: 1 }),
      ];
      const scalars = (p: PieceInfo, path: PathName): Scalars => ({
        lse_base: path === 'mha' && p.step === 1 && p.request === 'b' ? '2' : 'e',
        num_tokens: 3,
      });
      const c = compareCase(trace({ mha: {}, mqa: {}, reference: {} }, pieces, scalars), {});
      expect(c.scalarMismatches).toEqual([{ step: 1, request: 'b', name: 'lse_base', values: { mha: '2', mqa: 'e', reference: 'e' } }]);
    });
  });

  describe('worstEngine', () => {
    it('is the largest mha↔mqa relErr over activation stages, with its record', () => {
      const diffs = withStages({
        q: stagePairs('q', { engine: 2e-7 }),
        logits: stagePairs('logits', { engine: 9e-7 }),
        o_proj_out: stagePairs('o_proj_out', { engine: 5e-7 }),
        // A weight stage's engine pair is never the worst, however large.
        W_UV: [pairDiff('W_UV', 'mha', 'mqa', 1e-3)],
      });
      const c = compareCase(caseTrace(diffs), { stages: { W_UV: 1 } });
      expect(c.verdict).toBe('agree');
      expect(c.worstEngine).toEqual({ step: 0, request: 'prompt', stage: 'logits', relErr: 9e-7 });
    });

    it('counts failing stages too', () => {
      const c = compareCase(caseTrace(withStages({ lse: stagePairs('lse', { engine: BAD, mha: BAD }) })), {});
      expect(c.worstEngine).toEqual({ ...at('lse'), relErr: BAD });
    });

    it('ignores unmeasured pairs and one-sided stages', () => {
      const diffs = [
        pairDiff('logits', 'mha', 'mqa', null),
        pairDiff('ql_nope', 'mqa', 'reference', 1e-6),
        pairDiff('attn_out', 'mha', 'mqa', 3e-8),
      ];
      expect(compareCase(caseTrace(diffs), {}).worstEngine).toEqual({ ...at('attn_out'), relErr: 3e-8 });
    });

    it('is searched over every piece', () => {
      const pieces = [piece(0, 'a'), piece(1, 'a', { kind: 'decode', count: 1, start: 3 })];
      const diffs = [
        ...stagePairs('lse', { engine: 4e-7 }, { where: { step: 0, request: 'a' } }),
        ...stagePairs('lse', { engine: 8e-7 }, { where: { step: 1, request: 'a' } }),
      ];
      expect(compareCase(caseTrace(diffs, { pieces }), {}).worstEngine).toEqual({ step: 1, request: 'a', stage: 'lse', relErr: 8e-7 });
    });

    it('is null without an engine pair', () => {
      expect(compareCase(caseTrace([pairDiff('ql_nope', 'mqa', 'reference', OK)]), {}).worstEngine).toBeNull();
    });
  });

  it('does not modify the trace', () => {
    const trace = caseTrace(withStages({ logits: stagePairs('logits', { engine: BAD, mqa: BAD }) }));
    const before = JSON.stringify(trace);
    compareCase(trace, { default: 1e-3 });
    expect(JSON.stringify(trace)).toBe(before);
  });
});
