import type { Style } from './style';
import { lineWidth, stripAnsi } from './visible-width';

/** A word cut to `width` columns with '…' (its colour codes dropped: it is cut through). */
function elide(word: string, width: number): string {
  if (lineWidth(word) <= width) return word;
  let out = '';
  for (const ch of stripAnsi(word)) {
    if (lineWidth(out + ch) > width - 1) break;
    out += ch;
  }
  return `${out}…`;
}

/**
 * Text wrapped on spaces into lines of at most `width` columns (ANSI codes do not count), the first
 * line after `first` columns already used, the others indented by `indent` spaces; the spaces within
 * a line are kept (padding, leading indentation), a word longer than a line is elided with '…'.
 */
export function wrapWords(text: string, width: number, indent = 0, first = indent): string[] {
  const parts = text.split(/( +)/); // word, spaces, word, …: the first may be '' (leading spaces)
  const lines: string[] = [];
  let line = '';
  let used = first;
  for (let i = 0; i < parts.length; i += 2) {
    const gap = i === 0 ? '' : parts[i - 1]!;
    if (parts[i] === '' && i > 0) continue; // trailing spaces
    const word = elide(parts[i]!, Math.max(1, width - indent));
    const w = lineWidth(word);
    if (line.trim() !== '' && used + gap.length + w > width) {
      lines.push(line);
      line = word;
      used = indent + w;
    } else {
      line += gap + word;
      used += gap.length + w;
    }
  }
  lines.push(line);
  return lines.map((l, i) => (i === 0 ? l : `${' '.repeat(indent)}${l}`));
}

/**
 * A table that cannot fit, one block per row: its first cell, then its short cells as
 * `head value` joined by ' · ', then each prose column (`wrap`) as `head: text`, wrapped to `width`;
 * a blank line between blocks. A row of one cell (a group line) is printed as it is.
 */
export function listLayout(
  head: readonly string[],
  rows: readonly (readonly string[])[],
  wrap: readonly number[],
  width: number,
  s: Style,
): string {
  const blocks = rows.map((r) => {
    if (r.length === 1) return wrapWords(r[0]!, width).join('\n');
    const short = r
      .map((c, i) => [i, c] as const)
      .filter(([i, c]) => i > 0 && !wrap.includes(i) && c !== '')
      .map(([i, c]) => `${s.dim(head[i] ?? '')} ${c}`);
    const lines = wrapWords([r[0] ?? '', ...(short.length ? [`· ${short.join(' · ')}`] : [])].join(' '), width, 4, 0);
    for (const i of wrap) {
      const c = r[i];
      if (c === undefined || c === '') continue;
      const label = `${head[i] ?? ''}:`;
      lines.push(...wrapWords(`${s.dim(label)} ${c}`, width, 4, 2).map((l, k) => (k === 0 ? `  ${l}` : l)));
    }
    return lines.join('\n');
  });
  return blocks.join('\n\n');
}
