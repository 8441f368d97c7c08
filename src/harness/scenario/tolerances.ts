import type { ToleranceRule, ToleranceSpec } from '../compare/tolerance';
import { usesFloor } from '../compare/tolerance';
import type { StageName } from '../../trace/stages';
import { fail } from './fail';
import { withTolerancesFile } from './tolerances-ref';
import type { ScenarioFile } from './schema';
import type { YamlSource } from './yaml-source';

type Entry = { rel?: number; floor?: number };

/** How a scenario loads: `allowLooser` lets an inline tolerance exceed its tolerances file's (--allow-looser). */
export interface LoadOptions {
  allowLooser?: boolean;
}

/** One `tolerances:` entry: exactly one of `rel:` and `floor:`. */
function rule(e: Entry, src: YamlSource, path: PropertyKey[]): ToleranceRule {
  if (e.rel !== undefined && e.floor !== undefined) {
    fail(
      src,
      'invalid-value',
      path,
      'give either rel: or floor:, not both',
      'rel: x bounds the relative L2 error by x; floor: k bounds it by k × the noise floor of each record',
    );
  }
  if (e.rel !== undefined) return e.rel;
  if (e.floor !== undefined) return { floor: e.floor };
  return fail(src, 'invalid-type', path, 'missing rel: or floor:', 'e.g. {rel: 1.0e-5} or {floor: 8}');
}

/**
 * `tolerances:` as compare takes it: a number per relative bound, `{floor: k}` per floor-based one.
 * Floors come from the fp32 cold path (compare/floors.ts), so a floor-based tolerance with the cold
 * path switched off is refused.
 */
export function resolveTolerances(f: ScenarioFile, src: YamlSource, opts: LoadOptions = {}): ToleranceSpec {
  const t = f.tolerances;
  const inline = Object.fromEntries(
    Object.entries(t.stages ?? {}).map(([k, v]) => [k, rule(v!, src, ['tolerances', 'stages', k])]),
  ) as Partial<Record<StageName, ToleranceRule>>;
  const spec: ToleranceSpec = {
    default: t.default && rule(t.default, src, ['tolerances', 'default']),
    stages: t.file ? withTolerancesFile(t.file, inline, src, opts.allowLooser ?? false) : inline,
  };
  if (usesFloor(spec) && f.schedule.cold === 'off') {
    fail(
      src,
      'invalid-value',
      ['schedule', 'cold'],
      'floor: tolerances measure the noise floor with the fp32 cold path, which cold: off switches off',
      'use cold: auto (it then runs) or on, or give rel: tolerances',
    );
  }
  return spec;
}
