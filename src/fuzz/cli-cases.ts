import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Rng } from './rng';

export type CliKind = 'clobber' | 'special' | 'disk' | 'signal';

/** One CLI run: its arguments (cwd = the case folder), environment, and what the campaign does while and after it runs. */
export interface CliCase {
  kind: CliKind;
  args: string[];
  env?: Record<string, string>;
  /** Send this signal after `afterMs`. */
  signal?: { name: 'SIGINT' | 'SIGTERM'; afterMs: number };
  /** A tmpfs mounted here for the run (unmounted after). */
  tmpfs?: string;
  describe: string;
}

const OUT_FLAGS = ['--out', '--html', '--markdown', '--junit', '--write-tolerances'] as const;

/** The inputs a scenario of the base reads, by scenario: what an output must never overwrite. */
const INPUTS: Record<string, string[]> = {
  's.yaml': ['s.yaml', 'tol.yaml', 'golden.json', 'tok/tokenizer.json'],
  'g.yaml': ['g.yaml', 'ckpt.gguf', 'golden.json'],
};

/** An output path that names `victim` (a path relative to `dir`): itself, absolutely, through a symlink or a hard link. */
function naming(r: Rng, dir: string, victim: string): { path: string; how: string } {
  const how = r.pick(['same', 'absolute', 'symlink', 'hardlink', 'dotdot', 'dot', 'symlink-dir']);
  switch (how) {
    case 'absolute':
      return { path: join(dir, victim), how };
    case 'symlink':
      symlinkSync(join(dir, victim), join(dir, 'link'));
      return { path: 'link', how };
    case 'hardlink':
      linkSync(join(dir, victim), join(dir, 'hard'));
      return { path: 'hard', how };
    case 'dotdot':
      mkdirSync(join(dir, 'sub'), { recursive: true });
      return { path: `sub/../${victim}`, how };
    case 'dot':
      return { path: `./${victim}`, how };
    case 'symlink-dir':
      symlinkSync(dir, join(dir, 'here'));
      return { path: `here/${victim}`, how };
    default:
      return { path: victim, how };
  }
}

function clobber(r: Rng, dir: string): CliCase {
  const scenario = r.pick(Object.keys(INPUTS));
  const victim = r.pick(INPUTS[scenario]!);
  const flag = r.pick(OUT_FLAGS);
  const { path, how } = naming(r, dir, victim);
  const force = r.chance(0.6) ? ['--force'] : [];
  const golden = victim === 'golden.json' || r.chance(0.3) ? ['--golden', 'golden.json'] : [];
  const args = ['run', scenario, ...golden, flag, path, ...force];
  return { kind: 'clobber', args, describe: `${flag} naming ${victim} (${how})${force.length ? ' --force' : ''}` };
}

/** Special files as every input and output a command takes. */
function special(r: Rng, dir: string): CliCase {
  const what = r.pick(['/dev/zero', '/dev/null', '/dev/full', 'fifo', 'dir', '', 'file-under', 'missing-dir', '/proc/self/status']);
  let path = what;
  if (what === 'fifo') execFileSync('mkfifo', [join(dir, 'fifo')]);
  if (what === 'dir') {
    mkdirSync(join(dir, 'dir.json'), { recursive: true });
    path = 'dir.json';
  }
  if (what === 'file-under') path = 's.yaml/out.json';
  if (what === 'missing-dir') path = 'no/such/dir/out.json';
  const where = r.pick(['run', 'report', 'inspect', '--golden', '--trace', ...OUT_FLAGS]);
  const args =
    where === 'run'
      ? ['run', path]
      : where === 'report'
        ? ['report', path]
        : where === 'inspect'
          ? ['inspect', path]
          : ['run', 's.yaml', where, path];
  return { kind: 'special', args, describe: `${what || "''"} as ${where}` };
}

/** A full disk: the output (or the external exchange folder, via TMPDIR) on a tmpfs that a filler leaves little room on. */
function disk(r: Rng, dir: string): CliCase {
  const full = join(dir, 'full');
  mkdirSync(full, { recursive: true });
  const room = r.pick([0, 1024, 16 * 1024, 200 * 1024]);
  const exchange = r.chance(0.3);
  const flag = r.pick(OUT_FLAGS);
  const args = exchange ? ['run', 'x.yaml', '--out', 'o.json'] : ['run', 's.yaml', flag, 'full/o.out'];
  writeFileSync(join(dir, 'room'), String(room));
  return {
    kind: 'disk',
    args,
    tmpfs: full,
    ...(exchange ? { env: { TMPDIR: full } } : {}),
    describe: exchange ? `TMPDIR on a full tmpfs (${room} B free)` : `${flag} on a full tmpfs (${room} B free)`,
  };
}

function signal(r: Rng, dir: string): CliCase {
  mkdirSync(join(dir, 'tmp'), { recursive: true });
  const name = r.pick(['SIGINT', 'SIGTERM'] as const);
  const afterMs = 200 + r.int(5000);
  const keep = r.chance(0.2) ? ['--keep-external'] : [];
  return {
    kind: 'signal',
    args: ['run', 'x.yaml', '--out', 'o.json', '--html', 'o.html', ...keep],
    env: { TMPDIR: join(dir, 'tmp') },
    signal: { name, afterMs },
    describe: `${name} after ${afterMs} ms${keep.length ? ' --keep-external' : ''}`,
  };
}

/** Case `r` in folder `dir` (a fresh copy of the base); `tmpfs` false where mount is refused (the disk cases go). */
export function cliCase(r: Rng, dir: string, tmpfs: boolean): CliCase {
  const kinds: CliKind[] = [
    'clobber',
    'clobber',
    'clobber',
    'special',
    'special',
    'signal',
    'signal',
    ...(tmpfs ? (['disk', 'disk'] as const) : []),
  ];
  const kind = r.pick(kinds);
  return kind === 'clobber' ? clobber(r, dir) : kind === 'special' ? special(r, dir) : kind === 'disk' ? disk(r, dir) : signal(r, dir);
}
