import chalk from 'chalk';

/**
 * The one place colour is decided. Colour only on a TTY, never with NO_COLOR set (any value),
 * forced with FORCE_COLOR; everything else gets plain text.
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
  if (env['FORCE_COLOR'] !== undefined && env['FORCE_COLOR'] !== '0') return true;
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
