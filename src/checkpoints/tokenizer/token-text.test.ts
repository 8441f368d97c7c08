import { byteLevelEncode } from './byte-level';
import { pieceStyleOf, pieceText, utf8OrBytes } from './token-text';

describe('pieceText', () => {
  test('byte-level pieces as text; a split character as its bytes', () => {
    expect(pieceText('Ġcapital', 'byte-level')).toBe(' capital');
    expect(pieceText(byteLevelEncode('東'), 'byte-level')).toBe('東');
    expect(pieceText(byteLevelEncode('東').slice(0, 2), 'byte-level')).toBe('<0xE6><0x9D>');
    expect(pieceText(byteLevelEncode('\n\t'), 'byte-level')).toBe('\n\t');
    expect(pieceText('<｜User｜>', 'byte-level')).toBe('<｜User｜>'); // not byte-level characters: as it is
  });

  test('metaspace and plain styles', () => {
    expect(pieceText('▁Paris', 'metaspace')).toBe(' Paris');
    expect(pieceText('##ing', 'plain')).toBe('##ing');
  });

  test('utf8OrBytes keeps whole characters and writes stray bytes', () => {
    const enc = (s: string) => new TextEncoder().encode(s);
    expect(utf8OrBytes(enc('a東🙂'))).toBe('a東🙂');
    expect(utf8OrBytes(Uint8Array.from([0x61, 0xf0, 0x9f, 0x99]))).toBe('a<0xF0><0x9F><0x99>');
    expect(utf8OrBytes(Uint8Array.from([0x82, 0x62]))).toBe('<0x82>b');
    expect(utf8OrBytes(Uint8Array.from([0xc0, 0x80]))).toBe('<0xC0><0x80>'); // overlong
  });

  test('pieceStyleOf reads the decoder', () => {
    expect(pieceStyleOf({ type: 'ByteLevel' })).toBe('byte-level');
    expect(pieceStyleOf({ type: 'Metaspace', replacement: '▁' })).toBe('metaspace');
    const llama2 = {
      type: 'Sequence',
      decoders: [{ type: 'Replace', pattern: { String: '▁' }, content: ' ' }, { type: 'ByteFallback' }, { type: 'Fuse' }],
    };
    expect(pieceStyleOf(llama2)).toBe('metaspace');
    expect(pieceStyleOf({ type: 'WordPiece' })).toBe('plain');
    expect(pieceStyleOf(null)).toBe('plain');
  });
});
