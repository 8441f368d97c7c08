/**
 * GPT-2's byte-level alphabet (`bytes_to_unicode` in openai/gpt-2 `encoder.py`): every byte is shown as one printable
 * character. Printable Latin-1 bytes ('!'..'~', '¡'..'¬', '®'..'ÿ') map to themselves; the other 68 bytes map to
 * U+0100.. in byte order. The list order is GPT-2's: ids 0..255 of a GPT-2-style vocabulary ("Ġ" = space = 220).
 */
function buildAlphabet(): readonly (readonly [number, string])[] {
  const bs: number[] = [];
  for (const [lo, hi] of [
    [0x21, 0x7e],
    [0xa1, 0xac],
    [0xae, 0xff],
  ] as const) {
    for (let b = lo; b <= hi; b++) bs.push(b);
  }
  const cs = [...bs];
  let n = 0;
  for (let b = 0; b < 256; b++) {
    if (!bs.includes(b)) {
      bs.push(b);
      cs.push(256 + n++);
    }
  }
  return Object.freeze(bs.map((b, i) => Object.freeze([b, String.fromCharCode(cs[i] ?? 0)] as const)));
}

const ALPHABET = buildAlphabet();
const BYTE_TO_CHAR: readonly string[] = Object.freeze([...ALPHABET].sort((x, y) => x[0] - y[0]).map(([, c]) => c));

/** The 256 byte characters in GPT-2's vocabulary order. */
export function byteLevelAlphabet(): readonly string[] {
  return ALPHABET.map(([, c]) => c);
}

/** UTF-8 bytes of `text`, one alphabet character per byte (what the ByteLevel pre-tokenizer feeds BPE). */
export function byteLevelEncode(text: string): string {
  let out = '';
  for (const b of new TextEncoder().encode(text)) out += BYTE_TO_CHAR[b];
  return out;
}

const CHAR_TO_BYTE: ReadonlyMap<string, number> = new Map(ALPHABET.map(([b, c]) => [c, b]));

/** The bytes a string of byte-level characters stands for; undefined when a character is not one of the 256. */
export function byteLevelBytes(chars: string): Uint8Array | undefined {
  const out: number[] = [];
  for (const c of chars) {
    const b = CHAR_TO_BYTE.get(c);
    if (b === undefined) return undefined;
    out.push(b);
  }
  return Uint8Array.from(out);
}

/** Inverse of byteLevelEncode (invalid UTF-8 becomes U+FFFD). */
export function byteLevelDecode(chars: string): string {
  const bytes = Array.from(chars, (c) => {
    const b = BYTE_TO_CHAR.indexOf(c);
    if (b < 0) throw new RangeError(`not a byte-level character: ${JSON.stringify(c)}`);
    return b;
  });
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/**
 * GPT-2's pre-tokenizer regex as HF tokenizers' ByteLevel pre-tokenizer uses it (with the trailing `|\s+` that
 * llama.cpp's hand-written gpt2 splitter also implements). Returns a fresh global RegExp.
 */
export function gpt2SplitRegex(): RegExp {
  return /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;
}
