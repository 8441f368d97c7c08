import { MlaDiffError } from '../../errors';
import { weightValues } from '../../core/weights/records';
import { openSource } from '../checkpoint/source';
import { detectCheckpoint } from './detect';
import { inspectGguf } from './gguf';
import { inspectSafetensors } from './safetensors';
import type { InspectIssue, InspectReport } from './types';

export { ACCEPTED, detectCheckpoint } from './detect';
export { layerRanges } from './layers';
export type * from './types';
export { INSPECT_VERSION } from './types';

export interface InspectOptions {
  /** Also read this layer's attention weights (the only time tensor data is read). */
  layer?: number;
  /** Token ids whose embedding rows are summarized with --layer. */
  ids?: readonly number[];
}

/**
 * `mla-diff inspect`: what a checkpoint holds, from its headers alone (a 400 GB file in well under
 * a second); with `layer`, that layer's weights are read and summarized as the W stage records
 * (W_UK / W_UV and the embedding rows included). A layer the file lacks is the readers' 'tensor-missing'.
 */
export function inspectCheckpoint(path: string, opts: InspectOptions = {}): InspectReport {
  const d = detectCheckpoint(path);
  const header = d.kind === 'gguf' ? inspectGguf(d.path, opts.layer) : inspectSafetensors(d.path, opts.layer);
  const report: InspectReport = { ...header, path, weights: null };
  if (opts.layer === undefined) return report;
  const ids = [...(opts.ids ?? [0])];
  const source = openSource({ kind: d.kind, file: d.path, layer: opts.layer, overrides: {} });
  return { ...report, weights: { layer: opts.layer, ids, records: weightValues(source, ids).map((w) => w.record) } };
}

/** The first `error` issue as the MlaDiffError the CLI reports (exit 2), or undefined. */
export function firstError(issues: readonly InspectIssue[]): MlaDiffError | undefined {
  const e = issues.find((i) => i.severity === 'error');
  if (!e) return undefined;
  return new MlaDiffError(e.code, e.message, { ...(e.file ? { file: e.file } : {}), ...(e.field ? { field: e.field } : {}) }, e.hint);
}
