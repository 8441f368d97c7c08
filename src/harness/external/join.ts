import type { PieceInput } from '../../paths/backend';
import { MlaDiffError } from '../../errors';
import type { HeadSlice, ScenarioEcho } from '../../trace';
import type { WeightSource } from '../../core/weights/layer';
import { slicedConfig } from '../../core/weights/layer';
import type { ExternalRun } from './external';
import { runExternal } from './external';
import { scenarioDir } from './scenario-dir';
import { importTrace } from './trace-import';

/** What the external path reads of a scenario (src/harness/scenario Scenario has it) and of one of its cases. */
type ExternalScenario = Pick<ScenarioEcho, 'name' | 'file' | 'external' | 'trace' | 'engine'>;
interface ExternalCase {
  name: string;
  heads: HeadSlice;
}

/** CLI overrides: `--external "<command>"`, `--keep-external`, `--trace dump`. */
export interface ExternalFlags {
  external?: string;
  keepExternal?: boolean;
  trace?: string;
}

/** The scenario with the flags applied; a command or dump must come from one of the two. */
export function withExternalFlags<S extends ExternalScenario>(s: S, f: ExternalFlags): S {
  const file = s.file ?? undefined;
  if (f.external !== undefined && f.trace !== undefined)
    throw new MlaDiffError('usage', 'give either --external or --trace, not both', { field: '--trace' });
  let out = s;
  if (f.external !== undefined) {
    if (s.engine)
      throw new MlaDiffError('usage', 'the scenario runs an engine (engines:); --external would make a second third party', {
        file,
        field: '--external',
      });
    if (s.trace)
      throw new MlaDiffError('usage', 'the scenario imports an engine dump (trace:); --external would make a second external path', {
        file,
        field: '--external',
      });
    out = {
      ...s,
      external: { ...(s.external ?? { name: 'external', timeoutS: 600, stages: null, layouts: {}, names: {} }), command: f.external },
    };
  }
  if (f.trace !== undefined) {
    if (s.external)
      throw new MlaDiffError('usage', 'the scenario runs an external backend (external:); --trace would make a second external path', {
        file,
        field: '--trace',
      });
    out = { ...s, trace: { ...(s.trace ?? { layouts: {}, names: {} }), file: f.trace } };
  }
  if (out.external && !out.external.command)
    throw new MlaDiffError(
      'invalid-value',
      'external: has no command',
      { file, field: 'external.command' },
      'give command: in the scenario or --external "<command>"',
    );
  if (out.trace && !out.trace.file)
    throw new MlaDiffError(
      'invalid-value',
      'trace: has no file',
      { file, field: 'trace.file' },
      'give file: in the scenario or --trace dump.safetensors',
    );
  return out;
}

/** The external path of one case, as a thunk runCase calls after the device paths; null without one. */
export function externalFor(
  s: ExternalScenario,
  source: WeightSource,
  spec: ExternalCase,
  pieces: readonly PieceInput[],
  kvSplits: number,
  keep: boolean,
  log?: (l: string) => void,
): (() => Promise<ExternalRun>) | null {
  const shapes = pieces.map((p) => ({
    step: p.step,
    request: p.request,
    kind: p.kind,
    start: p.start,
    count: p.ids.length,
    chunks: p.chunks,
  }));
  if (s.trace) {
    const trace = s.trace;
    return async () => importTrace(trace, { config: slicedConfig(source.config, spec.heads), pieces: shapes, kvSplits });
  }
  if (!s.external) return null;
  const ext = s.external;
  return () =>
    runExternal(
      ext,
      { scenario: s.name, case: spec.name, source, heads: spec.heads, pieces, stages: ext.stages, kvSplits },
      { cwd: scenarioDir(s.file), keep, kvSplits, ...(log ? { log } : {}) },
    );
}
