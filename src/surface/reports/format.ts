/** Number formatting shared by the terminal and Markdown renderers. */

/** Norms and scales: 4 significant digits, exponent outside [1e-3, 1e5). */
export function num(x: number | null | undefined): string {
  if (x === null || x === undefined) return '—';
  if (!Number.isFinite(x)) return String(x);
  if (x === 0) return '0';
  const a = Math.abs(x);
  if (a < 1e-3 || a >= 1e5) return x.toExponential(2);
  // toPrecision switches to an exponent from 1e4 (4 digits); Number → String drops it and trailing zeros.
  return String(Number(x.toPrecision(4)));
}

/** Errors: always an exponent, 2 digits (1.3e-06 style as numpy prints). */
export function err(x: number | null | undefined): string {
  if (x === null || x === undefined) return '—';
  if (x === 0) return '0';
  return x.toExponential(1);
}

export const position = (at: number[] | null | undefined): string => (at ? `[${at.join(',')}]` : '');
