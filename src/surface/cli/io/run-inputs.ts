/** The inputs of a command's run as files on disk: what scenarioInputs names, with folders and indexes opened. */
import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readTextFile, SCENARIO_FILE_BYTES } from '../../../formats/text-file';
import { scenarioInputs } from '../../../harness/scenario/inputs';
import type { Scenario } from '../../../harness/scenario/scenario';
import { YamlSource } from '../../../harness/scenario/yaml-source';

/** The most entries of one checkpoint folder listed: a real one has a few hundred shards at most. */
const MAX_ENTRIES = 100_000;

/** The scenario's YAML as data (for its tolerances file and tokenizer); undefined when it cannot be read again. */
function rawOf(s: Scenario): unknown {
  if (!s.file || s.file.startsWith('<')) return undefined;
  try {
    return new YamlSource(readTextFile(s.file, 'a scenario file', undefined, SCENARIO_FILE_BYTES), s.file).toJS();
  } catch {
    return undefined; // it loaded a moment ago; what it names from its resolved form is still listed
  }
}

const isDir = (p: string): boolean => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/** The checkpoint files in a folder: its .safetensors shards and .json files (config, index, tokenizer). */
function folderFiles(dir: string): string[] {
  try {
    return readdirSync(dir)
      .slice(0, MAX_ENTRIES)
      .filter((n) => /\.(safetensors|json)$/i.test(n))
      .map((n) => join(dir, n));
  } catch {
    return [];
  }
}

/** Opens what names more files than itself: a safetensors folder, or an index, whose shards lie beside it. */
export function expandInputs(paths: readonly string[]): string[] {
  const out: string[] = [];
  for (const p of paths) {
    if (isDir(p)) out.push(...folderFiles(p));
    else {
      out.push(p);
      if (/\.safetensors\.index\.json$/i.test(p)) out.push(...folderFiles(dirname(p)));
    }
  }
  return [...new Set(out)];
}

/** Every file the runs of these scenarios read, and the other inputs of the command (--golden, a matrix). */
export function runInputs(scenarios: readonly Scenario[], others: readonly (string | undefined)[] = []): string[] {
  const named = [
    ...others.filter((o): o is string => typeof o === 'string' && o !== ''),
    ...scenarios.flatMap((s) => scenarioInputs(s, rawOf(s))),
  ];
  return expandInputs(named);
}
