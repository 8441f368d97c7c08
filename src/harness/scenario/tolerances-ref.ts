import { dirname, isAbsolute, resolve } from 'node:path';
import type { ToleranceRule } from '../compare/tolerance';
import { MlaDiffError } from '../../errors';
import type { StageName } from '../../trace/stages';
import { fail } from './fail';
import { readTolerancesFile } from './tolerances-file';
import type { YamlSource } from './yaml-source';

/** Whether `inline` bounds errors more loosely than `ratchet` (rules of different kinds are not comparable). */
function looser(inline: ToleranceRule, ratchet: ToleranceRule): boolean {
  if (typeof inline === 'number' && typeof ratchet === 'number') return inline > ratchet;
  if (typeof inline !== 'number' && typeof ratchet !== 'number') return inline.floor > ratchet.floor;
  return false;
}

/**
 * `tolerances: {file: F}`: the file's stages, with the scenario's inline stages over them. An inline
 * rule looser than the file's is refused unless `allowLooser` (--allow-looser): the ratchet only tightens.
 */
export function withTolerancesFile(
  file: string,
  inline: Partial<Record<StageName, ToleranceRule>>,
  src: YamlSource,
  allowLooser: boolean,
): Partial<Record<StageName, ToleranceRule>> {
  const base = src.file.startsWith('<') ? process.cwd() : dirname(resolve(src.file));
  const path = isAbsolute(file) ? file : resolve(base, file);
  let fromFile: Partial<Record<StageName, ToleranceRule>>;
  try {
    fromFile = readTolerancesFile(path);
  } catch (e) {
    if (e instanceof MlaDiffError && e.code === 'file-not-found')
      fail(src, 'file-not-found', ['tolerances', 'file'], `no such tolerances file: ${path}`, e.hint);
    throw e;
  }
  for (const [stage, rule] of Object.entries(inline) as [StageName, ToleranceRule][]) {
    const ratchet = fromFile[stage];
    if (!allowLooser && ratchet !== undefined && looser(rule, ratchet)) {
      const show = (r: ToleranceRule) => (typeof r === 'number' ? `rel ${r}` : `floor ${r.floor}`);
      fail(
        src,
        'tolerance-looser',
        ['tolerances', 'stages', stage],
        `${show(rule)} is looser than ${show(ratchet)} in ${file}`,
        'tighten it, or pass --allow-looser to run with the looser tolerance',
      );
    }
  }
  return { ...fromFile, ...inline };
}
