import { lcg } from './files';

/**
 * A [rows, cols] float32 matrix whose 128×128 blocks have very different magnitudes (so their
 * FP8 scales differ), one all-zero block at block (zeroBlock), and a few exact zeros elsewhere.
 */
export function testMatrix(rows: number, cols: number, seed: number, zeroBlock?: [number, number]): Float32Array {
  const rnd = lcg(seed);
  const d = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const bi = (r / 128) | 0;
      const bj = (c / 128) | 0;
      const mag = 2 ** (3 * bi - 4 * bj - 2); // block (0,0) 2^-2, (1,0) 2^1, (0,1) 2^-6, (2,1) 2^0 ...
      const zero = (zeroBlock && bi === zeroBlock[0] && bj === zeroBlock[1]) || (r * cols + c) % 97 === 0;
      d[r * cols + c] = zero ? 0 : rnd() * mag * (1 + 3 * rnd() ** 2);
    }
  }
  return d;
}

/** absmax of every bm×bn block, row-major grid. */
export function blockAbsmax(d: Float32Array, rows: number, cols: number, bm = 128, bn = 128): number[] {
  const gc = Math.ceil(cols / bn);
  const out = new Array<number>(Math.ceil(rows / bm) * gc).fill(0);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const k = Math.floor(r / bm) * gc + Math.floor(c / bn);
      out[k] = Math.max(out[k]!, Math.abs(d[r * cols + c]!));
    }
  }
  return out;
}
