import type { PieceInput } from '../../paths/backend';
import { MlaDiffError } from '../../errors';
import type { CaseSpec, Scenario } from '../scenario/scenario';
import { scenarioDir } from '../scenario/external';
import type { WeightSource } from '../../core/weights/layer';
import { slicedConfig } from '../../core/weights/layer';
import type { ExternalRun } from './external';
import { runExternal } from './external';
import { importTrace } from './trace-import';

/** CLI overrides: `--external "<command>"`, `--keep-external`, `--trace dump`. */
export interface ExternalFlags {
  external?: string;
  keepExternal?: boolean;
  trace?: string;
}

/** The scenario with the flags applied; a command or dump must come from one of the two. */
export function withExternalFlags(s: Scenario, f: ExternalFlags): Scenario {
  const file = s.file ?? undefined;
  if (f.external !== undefined && f.trace !== undefined) throw new MlaDiffError('usage', 'give either --external or --trace, not both', { field: '--trace' });
  let out = s;
  if (f.external !== undefined) {
    if (s.trace) throw new MlaDiffError('usage', 'the scenario imports an engine dump (trace:); --external would make a second external path', { file, field: '--external' });
    out = { ...s, external: { ...(s.external ?? { name: 'external', timeoutS: 600, stages: null, layouts: {}, names: {} }), command: f.external } };
  }
  if (f.trace !== undefined) {
    if (s.external) throw new MlaDiffError('usage', 'the scenario runs an external backend (external:); --trace would make a second external path', { file, field: '--trace' });
    out = { ...s, trace: { ...(s.trace ?? { layouts: {}, names: {} }), file: f.trace } };
  }
  if (out.external && !out.external.command) throw new MlaDiffError('invalid-value', 'external: has no command', { file, field: 'external.command' }, 'give command: in the scenario or --external "<command>"');
  if (out.trace && !out.trace.file) throw new MlaDiffError('invalid-value', 'trace: has no file', { file, field: 'trace.file' }, 'give file: in the scenario or --trace dump.safetensors');
  return out;
}

/** The external path of one case, as a thunk runCase calls after the device paths; null without one. */
export function externalFor(
  s: Scenario, source: WeightSource, spec: CaseSpec, pieces: readonly PieceInput[], kvSplits: number, keep: boolean, log?: (l: string) => void,
): (() => Promise<ExternalRun>) | null {
  const shapes = pieces.map((p) => ({ step: p.step, request: p.request, kind: p.kind, start: p.start, count: p.ids.length, chunks: p.chunks }));
  if (s.trace) {
    const trace = s.trace;
    return async () => importTrace(trace, { config: slicedConfig(source.config, spec.heads), pieces: shapes, kvSplits });
  }
  if (!s.external) return null;
  const ext = s.external;
  return () => runExternal(ext, { scenario: s.name, case: spec.name, source, heads: spec.heads, pieces, stages: ext.stages }, { cwd: scenarioDir(s.file), keep, kvSplits, ...(log ? { log } : {}) });
}
