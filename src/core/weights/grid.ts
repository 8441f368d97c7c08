import { fillNormal } from './normal';

/**
 * A rectangle of one weight's normal stream as `lines` lines of `len` elements: element k of line l is
 * dst[l·len + k] = offset + scale·normal(key, base + l·lineStride + k·stride). A block in [out, in] order
 * is one line per row (lineStride fan_in, stride 1); in [in, out] order one line per column (lineStride 1,
 * stride fan_in). Plain numbers only: a grid crosses to a worker thread as is.
 */
export interface NormalGrid {
  key: number;
  base: number;
  lines: number;
  len: number;
  lineStride: number;
  stride: number;
  scale: number;
  offset: number;
}

/** Lines [l0, l1) of `g` into dst, each at its own place l·len: the single-thread fill, and one chunk of the parallel one. */
export function fillGrid(g: NormalGrid, dst: Float32Array, l0 = 0, l1 = g.lines): void {
  const { key, base, len, lineStride, stride, scale, offset } = g;
  for (let l = l0; l < l1; l++) fillNormal(dst, l * len, 1, len, key, base + l * lineStride, stride, scale, offset);
}
