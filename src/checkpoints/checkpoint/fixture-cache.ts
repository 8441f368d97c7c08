import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { toolVersion } from '../../version';
import { writeFixtures } from './fixtures';

/**
 * The checkpoint fixtures on demand: a shipped scenario names `../fixtures/checkpoints/<fixture>`,
 * which an installed package does not carry (the repository writes it with `npm run fixtures`). When
 * such a path is missing, the fixtures are written once into the user's cache, one folder per
 * mla-diff version ($XDG_CACHE_HOME/mla-diff/fixtures-<version>, else ~/.cache/…), and read there.
 */

/** What writeFixtures writes at the top of its folder: the names a scenario path may start with. */
export const FIXTURE_ENTRIES = [
  'tiny-q8_0.gguf',
  'small-q4_k-00001-of-00002.gguf',
  'small-q4_k-00002-of-00002.gguf',
  'tiny-bf16',
  'small-fp8',
] as const;

const MARK = `${sep}fixtures${sep}checkpoints${sep}`;

/** The part of an absolute path below `fixtures/checkpoints/` when it names a fixture (`tiny-bf16/config.json`), else null. */
export function fixtureRelative(abs: string): string | null {
  const at = abs.lastIndexOf(MARK);
  if (at < 0) return null;
  const rel = abs.slice(at + MARK.length);
  const head = rel.split(sep)[0]!;
  return (FIXTURE_ENTRIES as readonly string[]).includes(head) ? rel : null;
}

/** The cache folder of this version's fixtures. */
export function fixtureCacheDir(env: NodeJS.ProcessEnv = process.env, version: string = toolVersion()): string {
  const base = env['XDG_CACHE_HOME'] || join(homedir(), '.cache');
  return join(base, 'mla-diff', `fixtures-${version}`);
}

const complete = (dir: string): boolean => FIXTURE_ENTRIES.every((e) => existsSync(join(dir, e)));

/**
 * The fixtures in `dir`, written there unless already complete (into a sibling temporary folder
 * renamed into place, so that two runs at once never read a half-written checkpoint).
 */
export function ensureFixtures(dir: string): { dir: string; written: boolean } {
  if (complete(dir)) return { dir, written: false };
  mkdirSync(dirname(dir), { recursive: true });
  const tmp = `${dir}.tmp-${process.pid}-${Date.now()}`;
  try {
    writeFixtures(tmp);
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    if (!complete(dir)) throw e; // another run's rename won: its fixtures serve
  }
  return { dir, written: true };
}

/** A missing fixture path → the same fixture in the cache (written on first use); null when `abs` names no fixture or the cache fails. */
export function fixtureOnDemand(abs: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const rel = fixtureRelative(abs);
  if (rel === null) return null;
  try {
    const { dir } = ensureFixtures(fixtureCacheDir(env));
    const cached = join(dir, rel);
    return existsSync(cached) ? cached : null;
  } catch {
    return null;
  }
}
