import { resolve as resolvePath } from 'node:path';
import { parseLayout } from '../external/layout-map';
import { scenarioDir } from '../external/scenario-dir';
import type { StageName } from '../../trace/stages';
import { isStageName } from '../../trace/stages';
import { MlaDiffError } from '../../errors';
import { fail } from './fail';
import type { EngineSpec } from '../../trace/scenario';
import type { ExternalSpec, TraceSpec } from './scenario';
import { engineItemSchema } from './schema-sources';
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

/** One `engines:` item resolved: a bare name takes every default. */
export function resolveEngine(item: NonNullable<ScenarioFile['engines']>[number]): EngineSpec {
  const e = engineItemSchema.options[1].parse(typeof item === 'string' ? { name: item } : item);
  const plants = e.plant === undefined ? [] : Array.isArray(e.plant) ? e.plant : [e.plant];
  return {
    name: e.name,
    flashAttn: e.flash_attn,
    cacheType: e.cache_type,
    threads: e.threads,
    gpuLayers: e.gpu_layers,
    timeoutS: e.timeout_s,
    arch: e.arch,
    kvB: e.kv_b,
    plants,
  };
}

/** `external:`, `trace:` and `engines:` of a scenario (a command or file may still come from --external / --trace). */
export function resolveExternal(f: ScenarioFile, src: YamlSource): { external?: ExternalSpec; trace?: TraceSpec; engine?: EngineSpec } {
  if (f.external && f.trace)
    fail(src, 'invalid-value', ['trace'], 'give either external: or trace:, not both (one external path per case)');
  if (f.engines && (f.external || f.trace))
    fail(src, 'invalid-value', ['engines'], 'an engine is the third-party path: give engines: or external: / trace:, not both');
  const out: { external?: ExternalSpec; trace?: TraceSpec; engine?: EngineSpec } = {};
  if (f.engines) out.engine = resolveEngine(f.engines[0]!);
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

/** `--engine llama.cpp`: the engine at its defaults as the third-party path, unless the scenario already runs it. */
export function withEngineFlag<S extends { file: string | null; engine?: EngineSpec | undefined; external?: unknown; trace?: unknown }>(
  s: S,
  engine: 'llama.cpp' | undefined,
): S {
  if (engine === undefined || s.engine) return s;
  if (s.external || s.trace)
    throw new MlaDiffError('usage', '--engine makes the third-party path; the scenario already has external: or trace:', {
      ...(s.file ? { file: s.file } : {}),
      field: '--engine',
    });
  return { ...s, engine: resolveEngine(engine) };
}
