import type * as tfc from '@tensorflow/tfjs-core';
import { transposeHost } from '../../core/probes/layout';
import type { HostView, Recording } from '../../core/probes/recorder';
import { recordKey } from '../../core/probes/recorder';
import type { CaseComparison } from '../../trace';
import type { PathName } from '../../trace/stages';
import { STAGES } from '../../trace/stages';
import { pairVerdict } from '../compare/compare';
import { swapError, tokenSwaps } from '../external/swapped-axes';
import { diffCaptured } from './diff';

/** Partners the swapped values are held against, the float64 reference first. */
const PARTNERS: readonly PathName[] = ['reference', 'cold', 'mha', 'mqa'];

/**
 * The layout error behind a third party's first divergence, when there is one: at that record the
 * external path's values, with its token (or key) axis exchanged for another axis of the same size,
 * agree with the path it failed against at the bound it was judged with. Throws external-layout
 * (exit 2) naming the layout to declare; returns quietly otherwise. `layouts` are the ones its stages
 * were read in (ExternalRun.layouts); an engine mla-diff drives has none and is not checked.
 */
export async function checkExternalLayout(
  tf: typeof tfc,
  view: HostView,
  rec: Partial<Record<PathName, Recording>>,
  comparison: CaseComparison,
  layouts: Record<string, string> | undefined,
  block: 'external' | 'trace',
): Promise<void> {
  const f = comparison.stages.find((v) => v.verdict !== 'ok');
  if (!layouts || !f || (f.culprit !== 'external' && f.culprit !== 'unknown')) return;
  const key = recordKey(f);
  const ext = rec.external?.captured.get(key);
  const failed = new Set(f.pairs.filter((p) => p.a === 'external' && p.verdict !== 'ok' && !p.normOnly).map((p) => p.b));
  const partner = PARTNERS.find((p) => failed.has(p) && rec[p]?.captured.has(key));
  if (!ext || ext.where !== 'host' || !partner) return;
  const canonical = STAGES[f.stage].layout;
  const declared = layouts[f.stage] ?? canonical;
  const tolerance = f.externalTolerance ?? f.tolerance;
  const other = rec[partner]!.captured.get(key)!;
  const asRead = f.pairs.find((p) => p.a === 'external' && p.b === partner)?.relErr ?? Infinity;
  for (const swap of tokenSwaps(f.stage, ext.shape, declared)) {
    const t = transposeHost(ext.data, ext.shape, swap.perm);
    const swapped = {
      where: 'host' as const,
      data: t.data,
      shape: t.shape,
      layout: canonical,
      ...(ext.masked ? { masked: true as const } : {}),
    };
    const d = await diffCaptured(tf, view, f, ['external', swapped], [partner, other]);
    if (pairVerdict(d, tolerance) !== 'ok') continue;
    throw swapError({
      stage: f.stage,
      piece: `${f.step}/${f.request}`,
      swap,
      declared,
      partner,
      asRead,
      swapped: d.relErr ?? 0,
      tolerance,
      block,
    });
  }
}
