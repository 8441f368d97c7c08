/**
 * A third party's output is data: what a backend or llama.cpp printed is quoted in errors and logs
 * only as its last lines, bounded in bytes, with every control character written out visibly, so a
 * 10 MB line cannot flood the terminal and an ANSI escape cannot move the cursor, recolour or retitle
 * it. TailBuffer keeps the end of a stream in bounded memory while the process runs.
 */

export interface TailLimits {
  /** Lines quoted (the last ones). */
  lines: number;
  /** Characters of one line before it is cut. */
  lineChars: number;
  /** Bytes (UTF-8) of all quoted lines together. */
  bytes: number;
}

/** What an error quotes of a backend's stderr: 15 lines, each cut to 500 characters, 4 KB in all. */
export const ERROR_TAIL: TailLimits = { lines: 15, lineChars: 500, bytes: 4096 };

/** Bidi overrides and isolates: they reorder the text around them on a terminal ("Trojan Source"). */
const isBidi = (c: number) => (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
const isPair = (text: string, i: number) => {
  const c = text.charCodeAt(i);
  const d = text.charCodeAt(i + 1);
  return c >= 0xd800 && c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff;
};
const hex = (c: number, width: number) => c.toString(16).padStart(width, '0');

/** What the code unit at i (not half of a pair) reads as: itself, or its escape. */
function visible(text: string, i: number): string {
  const c = text.charCodeAt(i);
  if (c === 0x0a) return '\n';
  if (c === 0x09) return '\\t';
  if (c === 0x0d) return '\\r';
  if (c < 0x20 || c === 0x7f) return `\\x${hex(c, 2)}`;
  if ((c >= 0x80 && c <= 0x9f) || (c >= 0xd800 && c <= 0xdfff) || isBidi(c)) return `\\u${hex(c, 4)}`;
  return text[i]!;
}

/** The escaped start of `text` no longer than `max` characters, and how many code units of `text` it shows. */
function escapePrefix(text: string, max: number): { text: string; used: number } {
  const parts: string[] = [];
  let length = 0;
  let i = 0;
  while (i < text.length) {
    const width = isPair(text, i) ? 2 : 1;
    const v = width === 2 ? text.slice(i, i + 2) : visible(text, i);
    if (length + v.length > max) break;
    parts.push(v);
    length += v.length;
    i += width;
  }
  return { text: parts.join(''), used: i };
}

/**
 * `text` with every control character visible: C0 but newline (\t, \r as themselves, the rest as
 * \xNN; ESC is \x1b), DEL, C1 (\u0080-\u009f), bidi controls and lone surrogates as \uNNNN. A
 * backslash stays as it is: the result is for reading, not for decoding back.
 */
export const escapeControl = (text: string): string => escapePrefix(text, Infinity).text;

const utf8Bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/** One line escaped and cut to `max` characters (never inside a surrogate pair or an escape), saying how many bytes went. */
function cutLine(line: string, max: number): string {
  const shown = escapePrefix(line, max);
  if (shown.used === line.length) return shown.text;
  return `${shown.text}… (${utf8Bytes(line.slice(shown.used))} bytes cut)`;
}

/**
 * The last lines of `text` to quote: at most `lines` lines, each escaped then cut to `lineChars`,
 * and no more than `bytes` UTF-8 bytes in all (older lines go first; one line alone is cut further).
 * `dropped` bytes already lost before `text` (a TailBuffer's) are said on a first line. Empty for
 * blank text.
 */
export function stderrTail(text: string, limits: TailLimits = ERROR_TAIL, dropped = 0): string {
  const all = text.trimEnd().split('\n');
  if (all.length === 1 && all[0] === '') return '';
  const picked: string[] = [];
  let size = 0;
  for (let i = all.length - 1; i >= 0 && picked.length < limits.lines; i--) {
    const line = cutLine(all[i]!, limits.lineChars);
    const n = utf8Bytes(line) + 1;
    if (size + n > limits.bytes) {
      if (picked.length === 0) picked.push(cutLine(all[i]!, Math.max(16, Math.floor(limits.bytes / 4))));
      break;
    }
    picked.push(line);
    size += n;
  }
  const before = all.length - picked.length;
  const head = before > 0 || dropped > 0 ? [`… (${before > 0 ? `${before} earlier lines` : 'earlier output'} not shown)`] : [];
  return [...head, ...picked.reverse()].join('\n');
}

/**
 * The last `capacity` bytes of a stream, in bounded memory however much it carries: chunks are kept
 * until they exceed twice the capacity, then compacted to the last `capacity` bytes. `dropped`
 * counts the bytes let go. Its text starts at a line boundary when bytes were dropped, so the first
 * quoted line is whole (or said to be cut).
 */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private held = 0;
  dropped = 0;

  constructor(readonly capacity: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.held += chunk.length;
    if (this.held > 2 * this.capacity) this.compact();
  }

  private compact(): void {
    const all = Buffer.concat(this.chunks);
    const keep = all.subarray(all.length - this.capacity);
    this.dropped += all.length - keep.length;
    this.chunks = [Buffer.from(keep)];
    this.held = keep.length;
  }

  /** Everything held, as text (invalid UTF-8 as U+FFFD); after a drop, from the first whole line on. */
  text(): string {
    if (this.held > this.capacity) this.compact();
    const all = Buffer.concat(this.chunks);
    if (this.dropped === 0) return all.toString('utf8');
    const nl = all.indexOf(0x0a);
    return (nl >= 0 && nl < all.length - 1 ? all.subarray(nl + 1) : all).toString('utf8');
  }
}
