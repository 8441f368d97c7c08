/**
 * The columns a string takes in a terminal, string-width's rules in brief: ANSI escapes and
 * combining marks take none, East Asian wide and fullwidth characters (CJK, Hangul, fullwidth
 * forms, emoji shown as emoji) take two, everything else one.
 */

const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;

/** Code point ranges [from, to] of two columns (East Asian Width W and F, emoji presentation). */
const WIDE: readonly (readonly [number, number])[] = [
  [0x1100, 0x115f],
  [0x231a, 0x231b],
  [0x23e9, 0x23ec],
  [0x23f0, 0x23f0],
  [0x23f3, 0x23f3],
  [0x25fd, 0x25fe],
  [0x2614, 0x2615],
  [0x2648, 0x2653],
  [0x267f, 0x267f],
  [0x2693, 0x2693],
  [0x26a1, 0x26a1],
  [0x26aa, 0x26ab],
  [0x26bd, 0x26be],
  [0x26c4, 0x26c5],
  [0x26ce, 0x26ce],
  [0x26d4, 0x26d4],
  [0x26ea, 0x26ea],
  [0x26f2, 0x26f3],
  [0x26f5, 0x26f5],
  [0x26fa, 0x26fa],
  [0x26fd, 0x26fd],
  [0x2705, 0x2705],
  [0x270a, 0x270b],
  [0x2728, 0x2728],
  [0x274c, 0x274c],
  [0x274e, 0x274e],
  [0x2753, 0x2755],
  [0x2757, 0x2757],
  [0x2795, 0x2797],
  [0x27b0, 0x27b0],
  [0x27bf, 0x27bf],
  [0x2b1b, 0x2b1c],
  [0x2b50, 0x2b50],
  [0x2b55, 0x2b55],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xa960, 0xa97f],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe10, 0xfe19],
  [0xfe30, 0xfe6f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x1f300, 0x1f64f],
  [0x1f680, 0x1f6ff],
  [0x1f900, 0x1f9ff],
  [0x1fa70, 0x1faff],
  [0x20000, 0x3fffd],
];

/** Code point ranges of no width: controls, combining marks, zero-width spaces and joiners, variation selectors. */
const ZERO: readonly (readonly [number, number])[] = [
  [0x0000, 0x001f],
  [0x007f, 0x009f],
  [0x0300, 0x036f],
  [0x1ab0, 0x1aff],
  [0x1dc0, 0x1dff],
  [0x200b, 0x200f],
  [0x20d0, 0x20ff],
  [0xfe00, 0xfe0f],
  [0xfe20, 0xfe2f],
  [0xe0100, 0xe01ef],
];

const within = (ranges: readonly (readonly [number, number])[], cp: number) => ranges.some(([a, b]) => cp >= a && cp <= b);

/** A string without its ANSI escapes (colour, hyperlinks). */
export const stripAnsi = (s: string): string => s.replace(ANSI, '');

/** The columns of one line (no newline in it): ANSI codes do not count. */
export function lineWidth(line: string): number {
  let w = 0;
  for (const ch of stripAnsi(line)) {
    const cp = ch.codePointAt(0)!;
    if (within(ZERO, cp)) continue;
    w += within(WIDE, cp) ? 2 : 1;
  }
  return w;
}

/** The columns of a string's widest line. */
export const visibleWidth = (s: string): number => Math.max(0, ...s.split('\n').map(lineWidth));
