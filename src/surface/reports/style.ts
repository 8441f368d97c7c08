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
  /** The columns a table must fit (the terminal's width); undefined: no limit (a pipe, a file, --wide). */
  width?: number;
}

export function colorWanted(env: NodeJS.ProcessEnv = process.env, isTTY = Boolean(process.stdout.isTTY)): boolean {
  if (env['NO_COLOR'] !== undefined) return false;
  const force = env['FORCE_COLOR'];
  if (force !== undefined) return force !== '0' && force !== 'false'; // chalk's convention: 0 turns colour off
  return isTTY && env['TERM'] !== 'dumb';
}

/**
 * The width tables must fit: undefined under --wide or when stdout is not a terminal (pipes, files
 * and CI logs get everything); else COLUMNS when set to a number, else the terminal's columns.
 */
export function terminalWidth(
  wide: boolean,
  env: NodeJS.ProcessEnv = process.env,
  stream: { isTTY?: boolean; columns?: number } = process.stdout,
): number | undefined {
  if (wide || !stream.isTTY) return undefined;
  const cols = Number(env['COLUMNS']);
  if (Number.isInteger(cols) && cols > 0) return cols;
  return stream.columns && stream.columns > 0 ? stream.columns : undefined;
}

export function makeStyle(color: boolean, width?: number): Style {
  const c = new chalk.Instance({ level: color ? 1 : 0 });
  return {
    ...(width === undefined ? {} : { width }),
    ok: (s) => c.green(s),
    bad: (s) => c.red(s),
    warn: (s) => c.yellow(s),
    dim: (s) => c.dim(s),
    bold: (s) => c.bold(s),
    mark: (s) => c.bold.red(s),
  };
}

export const PLAIN = makeStyle(false);
