import { resolve as resolvePath } from 'node:path';
import { parseLayout } from '../external/layout-map';
import { scenarioDir } from '../external/scenario-dir';
import type { StageName } from '../../trace/stages';
import { isStageName } from '../../trace/stages';
import { fail } from './fail';
import type { ExternalSpec, TraceSpec } from './scenario';
import type { ScenarioFile } from './schema';
import type { YamlSource } from './yaml-source';

function checkLayouts(src: YamlSource, key: 'external' | 'trace', layouts: Record<string, string>): void {
  for (const [stage, layout] of Object.entries(layouts)) {
    if (!isStageName(stage))
      fail(
        src,
        'unknown-stage',
        [key, 'layouts', stage],
        `unknown stage "${stage}"`,
        'layouts are keyed by mla-diff stage names (mla-diff stages)',
      );
    const parsed = parseLayout(layout);
    if (typeof parsed === 'string')
      fail(
        src,
        'invalid-value',
        [key, 'layouts', stage],
        `layout "${layout}": ${parsed}`,
        'axis names separated by spaces, groups in parentheses: "t (h v)"',
      );
  }
}

/** `external:` and `trace:` of a scenario (a command or file may still come from --external / --trace). */
export function resolveExternal(f: ScenarioFile, src: YamlSource): { external?: ExternalSpec; trace?: TraceSpec } {
  if (f.external && f.trace)
    fail(src, 'invalid-value', ['trace'], 'give either external: or trace:, not both (one external path per case)');
  const out: { external?: ExternalSpec; trace?: TraceSpec } = {};
  if (f.external) {
    checkLayouts(src, 'external', f.external.layouts);
    const e = f.external;
    out.external = {
      command: e.command ?? '',
      name: e.name,
      timeoutS: e.timeout_s,
      stages: (e.stages as StageName[] | undefined) ?? null,
      layouts: e.layouts,
      names: e.names,
    };
  }
  if (f.trace) {
    checkLayouts(src, 'trace', f.trace.layouts);
    out.trace = {
      file: f.trace.file ? resolvePath(scenarioDir(src.file), f.trace.file) : '',
      layouts: f.trace.layouts,
      names: f.trace.names,
    };
  }
  return out;
}
