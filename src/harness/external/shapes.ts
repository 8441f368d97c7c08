import type { MlaConfig } from '../../core/model/config';
import { qkHeadDim } from '../../core/model/config';
import type { StageDef, StageName } from '../../trace/stages';
import { STAGES } from '../../trace/stages';

/** The symbols of the stage ontology's shapes (`STAGES[s].shape`, e.g. `[T,N,P+V]`, `[T,N·V]`). */
export type Dims = Record<'T' | 'N' | 'P' | 'R' | 'V' | 'L' | 'Lq' | 'H' | 'D' | 'S' | 'C_i' | 'splits', number>;

/** A piece as far as shapes go: its token count, its cache start, its context chunks. */
export interface ShapePiece {
  start: number;
  count: number;
  chunks: readonly (readonly [number, number])[];
}

/** The dims of one record: T tokens of the piece, S keys it sees, C_i the chunk's length, the KV split count. */
export function recordDims(c: MlaConfig, p: ShapePiece, kvSplits: number, chunk?: number): Dims {
  const [a, b] = chunk === undefined ? [0, 0] : (p.chunks[chunk] ?? [0, 0]);
  return {
    T: p.count,
    N: c.num_attention_heads,
    P: c.qk_nope_head_dim,
    R: c.qk_rope_head_dim,
    V: c.v_head_dim,
    L: c.kv_lora_rank,
    Lq: c.q_lora_rank,
    H: c.hidden_size,
    D: qkHeadDim(c),
    S: p.start + p.count,
    C_i: b - a,
    splits: Math.max(1, kvSplits),
  };
}

/** A stage's canonical shape: its ontology shape string evaluated (`+` sums, `·` products). */
export function stageShape(stage: StageName, d: Dims): number[] {
  const spec = (STAGES[stage] as StageDef).shape.replace(/^\[|\]$/g, '');
  return spec.split(',').map((dim) =>
    dim.split('+').reduce(
      (sum, term) =>
        sum +
        term.split('·').reduce((prod, sym) => {
          const v = d[sym.trim() as keyof Dims];
          if (v === undefined) throw new Error(`stage ${stage}: unknown shape symbol ${sym} in ${spec}`);
          return prod * v;
        }, 1),
      0,
    ),
  );
}

/** Sizes of the axes that a canonical layout flattens into one (`hv` of attn_out = h·v). */
export const groupedAxes = (d: Dims): Record<string, number> => ({ h: d.N, v: d.V });
