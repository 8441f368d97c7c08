import { lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/** The project root, from src/fuzz (ts-jest) or dist/fuzz (the built campaign) alike. */
export const ROOT = resolve(__dirname, '..', '..');

export interface Seed {
  /** Path relative to ROOT (or a made-up name for a generated seed). */
  name: string;
  bytes: Uint8Array;
}

export const readSeed = (rel: string): Seed => ({ name: rel, bytes: readFileSync(join(ROOT, rel)) });

/** Files under ROOT/rel whose name matches, sorted (a stable corpus order keeps inputs reproducible). */
export function listFiles(rel: string, match: RegExp): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(join(ROOT, d), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (match.test(e.name)) out.push(p);
    }
  };
  walk(rel);
  return out;
}

/**
 * A mirror of ROOT under `dir`: the folders in `real` are real folders (a mutated file is written there, beside the
 * originals), every other entry a symlink into ROOT. A mutated scenario then finds its relative references (tolerances
 * files, tokenizers, checkpoints, backends) as the shipped one does, and nothing is ever written inside the project.
 */
export function mirrorRoot(dir: string, real: readonly string[]): string {
  const make = (rel: string) => {
    const at = join(dir, rel);
    mkdirSync(at, { recursive: true });
    for (const name of readdirSync(join(ROOT, rel)).sort()) {
      const sub = join(rel, name);
      if (real.includes(sub)) make(sub);
      else if (!lstatExists(join(at, name))) symlinkSync(join(ROOT, sub), join(at, name));
    }
  };
  make('');
  return dir;
}

const lstatExists = (p: string): boolean => {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
};

export const rel = (p: string): string => relative(ROOT, p);
