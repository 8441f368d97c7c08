import { byteLevelBytes } from './byte-level';

/** How a vocabulary writes its pieces: GPT-2's byte alphabet, SentencePiece's '▁' for a space, or the text itself. */
export type PieceStyle = 'byte-level' | 'metaspace' | 'plain';

type Json = Record<string, unknown>;
const isObject = (x: unknown): x is Json => typeof x === 'object' && x !== null && !Array.isArray(x);

/** The piece style a tokenizer.json `decoder` implies (a Sequence: the first decoder that says). */
export function pieceStyleOf(decoder: unknown): PieceStyle {
  if (!isObject(decoder)) return 'plain';
  if (decoder.type === 'ByteLevel') return 'byte-level';
  if (decoder.type === 'Metaspace') return 'metaspace';
  if (decoder.type === 'Replace' && isObject(decoder.pattern) && decoder.pattern.String === '▁') return 'metaspace';
  if (decoder.type === 'Sequence' && Array.isArray(decoder.decoders)) {
    for (const d of decoder.decoders) {
      const style = pieceStyleOf(d);
      if (style !== 'plain') return style;
    }
  }
  return 'plain';
}

const hexByte = (b: number) => `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`;

/** UTF-8 bytes as text; a byte that does not begin a whole character is written <0xNN> (llama.cpp's byte-token notation). */
export function utf8OrBytes(bytes: Uint8Array): string {
  const strict = new TextDecoder('utf-8', { fatal: true });
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    const n = b < 0x80 ? 1 : b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
    if (n > 0 && i + n <= bytes.length) {
      try {
        out += strict.decode(bytes.subarray(i, i + n));
        i += n;
        continue;
      } catch {
        // not a whole character: fall through to its byte
      }
    }
    out += hexByte(b);
    i++;
  }
  return out;
}

/**
 * A vocabulary piece as the text it stands for: 'Ġcapital' → ' capital', 'æĿ±' → '東', half of a character → '<0xE6><0x9D>';
 * SentencePiece's '▁Paris' → ' Paris'. Added (special) tokens are given as they are by the caller.
 */
export function pieceText(piece: string, style: PieceStyle): string {
  if (style === 'metaspace') return piece.replaceAll('▁', ' ');
  if (style === 'plain') return piece;
  const bytes = byteLevelBytes(piece);
  return bytes ? utf8OrBytes(bytes) : piece;
}
