import { isMlaDiffError } from '../../errors';
import { boundRows, codecFor, DEQUANT_TYPES, dequantizeRow, quantizeRows } from './codecs';
import { GGML_TYPES, rowBytes, type GgmlType } from './ggml-types';

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return isMlaDiffError(e) ? e.code : `not an MlaDiffError: ${String(e)}`;
  }
  return undefined;
}

const MINE: GgmlType[] = ['F32', 'F16', 'Q4_0', 'Q4_1', 'Q5_0', 'Q5_1', 'Q8_0', 'IQ4_NL', 'BF16'];

describe('codec registry', () => {
  it('lists the float and legacy types, in ggml id order', () => {
    for (const t of MINE) {
      expect(DEQUANT_TYPES).toContain(t);
      expect(codecFor(t)).toBeDefined();
    }
    const ids = DEQUANT_TYPES.map((t) => GGML_TYPES[t].id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it.each(['IQ2_XXS', 'Q8_K', 'TQ1_0', 'Q8_1', 'I32'] as GgmlType[])('%s is unsupported', (t) => {
    expect(codecFor(t)).toBeUndefined();
    expect(DEQUANT_TYPES).not.toContain(t);
    expect(codeOf(() => dequantizeRow(t, new Uint8Array(1024), 0, new Float32Array(256), 0, 256))).toBe('unsupported-dtype');
    expect(codeOf(() => quantizeRows(t, new Float32Array(256), 256))).toBe('unsupported-dtype');
    expect(codeOf(() => boundRows(t, new Uint8Array(1024), 256))).toBe('unsupported-dtype');
  });

  it('the unsupported-dtype error carries the location and names the supported types', () => {
    try {
      dequantizeRow('IQ2_XXS', new Uint8Array(66), 0, new Float32Array(256), 0, 256, { file: 'a.gguf', field: 'blk.0.attn_k_b.weight' });
      throw new Error('no error');
    } catch (e) {
      if (!isMlaDiffError(e)) throw e;
      expect(e.where).toEqual({ file: 'a.gguf', field: 'blk.0.attn_k_b.weight' });
      expect(e.hint).toContain('Q8_0');
    }
  });

  it('dequantizeRow rejects partial blocks and short sources', () => {
    expect(codeOf(() => dequantizeRow('Q8_0', new Uint8Array(68), 0, new Float32Array(64), 0, 48))).toBe('tensor-shape');
    expect(codeOf(() => dequantizeRow('Q8_0', new Uint8Array(67), 0, new Float32Array(64), 0, 64))).toBe('checkpoint-truncated');
    expect(codeOf(() => dequantizeRow('Q8_0', new Uint8Array(68), 1, new Float32Array(64), 0, 64))).toBe('checkpoint-truncated');
    expect(codeOf(() => dequantizeRow('F16', new Uint8Array(8), 0, new Float32Array(4), 0, 4))).toBeUndefined();
  });

  it('dequantizeRow decodes at byte and element offsets', () => {
    // Two Q4_0 blocks after 5 junk bytes: d = 1 (0x3c00) with all nibbles 9, then d = 0.5 (0x3800) with all nibbles 6.
    const src = Uint8Array.from([1, 2, 3, 4, 5, 0x00, 0x3c, ...new Array(16).fill(0x99), 0x00, 0x38, ...new Array(16).fill(0x66)]);
    const dst = new Float32Array(70);
    dequantizeRow('Q4_0', src, 5, dst, 3, 64);
    expect([...dst.subarray(3, 35)]).toEqual(new Array(32).fill(1)); // (9 − 8)·1
    expect([...dst.subarray(35, 67)]).toEqual(new Array(32).fill(-1)); // (6 − 8)·0.5
    expect(dst[2]).toBe(0);
    expect(dst[67]).toBe(0);
  });

  it.each(MINE)('%s: quantizeRows/boundRows work on several rows and round trip within the bound', (t) => {
    const n = 64;
    const rows = 3;
    const x = Float32Array.from({ length: n * rows }, (_, i) => ((i * 37) % 101) / 10 - 5);
    const q = quantizeRows(t, x, n);
    expect(q.length).toBe(rows * rowBytes(t, n));
    const b = boundRows(t, q, n);
    expect(b.length).toBe(n * rows);
    const y = new Float32Array(n * rows);
    for (let r = 0; r < rows; r++) dequantizeRow(t, q, r * rowBytes(t, n), y, r * n, n);
    for (let i = 0; i < x.length; i++) {
      if (!(Math.abs(x[i]! - y[i]!) <= b[i]!)) throw new Error(`${t}[${i}]: ${x[i]} → ${y[i]}, bound ${b[i]}`);
    }
  });

  it('quantizeRows rejects a row length that is not whole blocks', () => {
    expect(codeOf(() => quantizeRows('Q4_0', new Float32Array(48), 48))).toBe('tensor-shape');
    expect(() => quantizeRows('Q4_0', new Float32Array(96), 64)).toThrow(RangeError);
  });
});
