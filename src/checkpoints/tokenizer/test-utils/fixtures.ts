import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { GgufEntry } from '../../../formats/gguf/types';
import { CORPUS } from './corpus';
import { trainByteLevelBpe, type TrainedBpe } from '../train';
import { tokenizerFromJson } from '../from-json';

export const SPECIALS = ['<|endoftext|>', '<|user|>'] as const;

/** The fixture vocabulary: ~400 tokens trained on CORPUS, plus SPECIALS. */
export function fixtureBpe(): TrainedBpe {
  return trainByteLevelBpe(CORPUS, 400, SPECIALS);
}

/** Writes tokenizer.json (and tokenizer_config.json unless config is null) to a fresh temp dir; returns the tokenizer.json path. */
export function writeTokenizerDir(json: object, config: object | null): string {
  const dir = mkdtempSync(join(tmpdir(), 'mla-diff-tokenizer-'));
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(json));
  if (config) writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify(config));
  return join(dir, 'tokenizer.json');
}

/**
 * For a test file: tokenizerFromJson of a tokenizer.json (and tokenizer_config.json, when given)
 * written into a temp directory; the directories go after the file's tests (call at top level).
 */
export function tempJsonTokenizers(): (json: object, config: object | null) => ReturnType<typeof tokenizerFromJson> {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  return (json, config) => {
    const path = writeTokenizerDir(json, config);
    dirs.push(dirname(path));
    return tokenizerFromJson(path);
  };
}

/** A copy of `entries` with some keys replaced (value undefined: removed). */
export function withEntries(
  entries: ReadonlyMap<string, GgufEntry>,
  changes: Record<string, GgufEntry | undefined>,
): Map<string, GgufEntry> {
  const out = new Map(entries);
  for (const [k, v] of Object.entries(changes)) {
    if (v === undefined) out.delete(k);
    else out.set(k, v);
  }
  return out;
}
