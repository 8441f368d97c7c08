import type { PieceInput } from '../../paths/backend';
import type { slicedConfig } from '../../core/weights/layer';
import type { PieceTrace } from '../../core/probes/recorder';
import { invFreq } from '../../core/model/rope';
import type { EngineResult } from '../../engines/llamacpp/job';
import { mapStages, opParamFloat, softmaxScaleOf } from '../../engines/llamacpp/stage-map';
import type { NamedTensor } from '../external/records';

/** What the run of one case needs of its schedule here. */
export interface CollectCase {
  pieces: readonly PieceInput[];
}

/** 2 ulps of float32 at the largest angle position·θ_i, RMS over the pairs (θ_i as the config's YaRN blends them). */
export function ropeAngleError(c: ReturnType<typeof slicedConfig>, maxPosition: number): number {
  const f = invFreq(c);
  const ms = f.reduce((a, t) => a + t * t, 0) / f.length;
  return 2 * 2 ** -24 * maxPosition * Math.sqrt(ms);
}

export const shapes = (pieces: readonly PieceInput[]) =>
  pieces.map((p) => ({ step: p.step, request: p.request, kind: p.kind, start: p.start, count: p.ids.length, chunks: p.chunks }));

/** Captured nodes → stage tensors per attending piece, its scalars, and the op parameters of the first decode. */
export function collect(
  config: ReturnType<typeof slicedConfig>,
  graph: 'absorbed' | 'legacy',
  c: CollectCase,
  result: EngineResult,
  values: (n: { offset?: number; count?: number }) => Float32Array,
): { tensors: NamedTensor[]; scalars: PieceTrace[]; opScalars: Record<string, number> } {
  const cells = new Map<string, number[]>();
  let next = 0;
  const tensors: NamedTensor[] = [];
  const scalars: PieceTrace[] = [];
  for (const [i, p] of c.pieces.entries()) {
    const mine = cells.get(p.request) ?? [];
    for (let t = 0; t < p.ids.length; t++) mine.push(next++);
    cells.set(p.request, mine);
    if (p.kind === 'cached') continue;
    const nodes = result.nodes.filter((n) => n.piece === i);
    for (const t of mapStages(config, graph, nodes, { cells: [...mine], tokens: p.ids.length }, values))
      tensors.push({ name: `${p.step}/${p.request}/${t.stage}`, data: t.data, shape: t.shape });
    const scale = softmaxScaleOf(nodes);
    const rope = nodes.find((n) => n.op === 'ROPE');
    scalars.push({
      step: p.step,
      request: p.request,
      scalars: {
        ...(scale === undefined ? {} : { softmax_scale: scale }),
        ...(rope ? { rope_style: (rope.opParams[2]! & 2) !== 0 ? 'neox' : 'gptj' } : {}),
        causal: true,
      },
    });
  }
  const first = result.nodes.filter((n) => n.piece === 0);
  const rope = first.find((n) => n.op === 'ROPE' && /^(k_pe|q_pe|Qcur)-0$/.test(n.name));
  const opScalars: Record<string, number> = {};
  const scale = softmaxScaleOf(first);
  if (scale !== undefined) opScalars.softmax_scale = scale;
  if (rope) {
    const q = rope.opParams;
    Object.assign(opScalars, {
      rope_n_dims: q[1]!,
      rope_mode: q[2]!,
      rope_n_ctx_orig: q[4]!,
      rope_freq_base: opParamFloat(q[5]!),
      rope_freq_scale: opParamFloat(q[6]!),
      rope_ext_factor: opParamFloat(q[7]!),
      rope_attn_factor: opParamFloat(q[8]!),
      rope_beta_fast: opParamFloat(q[9]!),
      rope_beta_slow: opParamFloat(q[10]!),
    });
  }
  return { tensors, scalars, opScalars };
}
