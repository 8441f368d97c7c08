import chalk from 'chalk';

/**
 * The one place colour is decided. Colour only on a TTY, never with NO_COLOR set (any value);
 * FORCE_COLOR=1 forces it on, FORCE_COLOR=0 off; everything else gets plain text.
 */
export interface Style {
  ok(s: string): string;
  bad(s: string): string;
  warn(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
  mark(s: string): string;
}

export function colorWanted(env: NodeJS.ProcessEnv = process.env, isTTY = Boolean(process.stdout.isTTY)): boolean {
  if (env['NO_COLOR'] !== undefined) return false;
  const force = env['FORCE_COLOR'];
  if (force !== undefined) return force !== '0' && force !== 'false'; // chalk's convention: 0 turns colour off
  return isTTY && env['TERM'] !== 'dumb';
}

export function makeStyle(color: boolean): Style {
  const c = new chalk.Instance({ level: color ? 1 : 0 });
  return {
    ok: (s) => c.green(s),
    bad: (s) => c.red(s),
    warn: (s) => c.yellow(s),
    dim: (s) => c.dim(s),
    bold: (s) => c.bold(s),
    mark: (s) => c.bold.red(s),
  };
}

export const PLAIN = makeStyle(false);
