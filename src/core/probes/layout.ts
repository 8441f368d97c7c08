/** Axis-name layouts ('h t s') and the permutations between them. Pure helpers. */

export function axes(layout: string): string[] {
  return layout.trim().split(/\s+/);
}

/** perm such that transpose(x in `from`, perm) is in `to`: perm[i] = position in `from` of to's i-th axis. */
export function permutation(from: string, to: string): number[] {
  const f = axes(from);
  const t = axes(to);
  if (f.length !== t.length || !t.every((a) => f.includes(a))) {
    throw new Error(`layouts "${from}" and "${to}" name different axes`);
  }
  return t.map((a) => f.indexOf(a));
}

export const isIdentity = (perm: readonly number[]): boolean => perm.every((p, i) => p === i);

export function permuteShape(shape: readonly number[], perm: readonly number[]): number[] {
  return perm.map((p) => shape[p] as number);
}

/** Row-major strides. */
export function strides(shape: readonly number[]): number[] {
  const s = new Array<number>(shape.length).fill(1);
  for (let i = shape.length - 2; i >= 0; i--) s[i] = (s[i + 1] as number) * (shape[i + 1] as number);
  return s;
}

/** Flat row-major index → multi-index. */
export function unravel(index: number, shape: readonly number[]): number[] {
  const out = new Array<number>(shape.length).fill(0);
  for (let i = shape.length - 1; i >= 0; i--) {
    const n = shape[i] as number;
    out[i] = index % n;
    index = Math.floor(index / n);
  }
  return out;
}

/** Host transpose of a row-major array (small tensors: the reference side of a comparison). */
export function transposeHost<A extends Float32Array | Float64Array>(
  data: A,
  shape: readonly number[],
  perm: readonly number[],
): { data: A; shape: number[] } {
  const outShape = permuteShape(shape, perm);
  if (isIdentity(perm)) return { data, shape: outShape };
  const inStrides = strides(shape);
  const srcStep = perm.map((p) => inStrides[p] as number);
  const out = new (data.constructor as new (n: number) => A)(data.length);
  const rank = outShape.length;
  const idx = new Array<number>(rank).fill(0);
  let src = 0;
  for (let o = 0; o < data.length; o++) {
    out[o] = data[src] as number;
    for (let d = rank - 1; d >= 0; d--) {
      idx[d] = (idx[d] as number) + 1;
      src += srcStep[d] as number;
      if ((idx[d] as number) < (outShape[d] as number)) break;
      src -= (srcStep[d] as number) * (outShape[d] as number);
      idx[d] = 0;
    }
  }
  return { data: out, shape: outShape };
}
