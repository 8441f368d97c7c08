import type { Rng } from './rng';

/** Boundary values an integer field is bumped to: the sizes a reader must bound before it allocates. */
export const BOUNDARY_U32 = [0, 1, 0x7f, 0xff, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff] as const;
export const BOUNDARY_U64 = [0n, 1n, 2n ** 31n, 2n ** 32n, 2n ** 53n, 2n ** 63n - 1n, 2n ** 64n - 1n] as const;
export const BOUNDARY_F64 = [0, -1, 1e308, -1e308, NaN, Infinity, -Infinity, 5e-324] as const;

export type ByteOp = 'flip' | 'byte' | 'insert' | 'delete' | 'splice' | 'truncate' | 'u32' | 'u64' | 'f64' | 'dup';
const OPS: readonly ByteOp[] = ['flip', 'byte', 'insert', 'delete', 'splice', 'truncate', 'u32', 'u64', 'f64', 'dup'];

/**
 * Where a mutation lands: mostly in the first `hot` bytes (a header: GGUF metadata and tensor infos, the safetensors JSON),
 * where a byte changes what the reader believes, sometimes anywhere (tensor data: the NaN and range checks).
 */
const at = (r: Rng, n: number, hot: number): number => (n === 0 ? 0 : r.chance(0.8) ? r.int(Math.min(n, hot)) : r.int(n));

function one(r: Rng, b: Uint8Array, others: readonly Uint8Array[], hot: number, op: ByteOp): Uint8Array {
  const i = at(r, b.length, hot);
  const out = (parts: Uint8Array[]) => Buffer.concat(parts);
  switch (op) {
    case 'flip': {
      const c = Uint8Array.from(b);
      if (c.length) c[i] = (c[i] ?? 0) ^ (1 << r.int(8));
      return c;
    }
    case 'byte': {
      const c = Uint8Array.from(b);
      if (c.length) c[i] = r.pick([0x00, 0xff, 0x7f, 0x80, 0x22, 0x7b, 0x5c]);
      return c;
    }
    case 'insert':
      return out([b.subarray(0, i), Uint8Array.from({ length: 1 + r.int(16) }, () => r.int(256)), b.subarray(i)]);
    case 'delete':
      return out([b.subarray(0, i), b.subarray(Math.min(b.length, i + 1 + r.int(32)))]);
    case 'truncate':
      return b.subarray(0, r.chance(0.5) ? i : r.int(b.length + 1));
    case 'dup': {
      const len = 1 + r.int(64);
      return out([b.subarray(0, i + len), b.subarray(i, i + len), b.subarray(i + len)]);
    }
    case 'splice': {
      const o = others.length ? r.pick(others) : b;
      const j = at(r, o.length, hot);
      return out([b.subarray(0, i), o.subarray(j, j + 1 + r.int(256)), b.subarray(Math.min(b.length, i + r.int(256)))]);
    }
    case 'u32':
    case 'u64':
    case 'f64': {
      const width = op === 'u32' ? 4 : 8;
      const c = Buffer.from(b);
      const k = Math.floor(i / width) * width;
      if (k + width > c.length) return c;
      if (op === 'u32') c.writeUInt32LE(r.pick(BOUNDARY_U32), k);
      else if (op === 'u64') c.writeBigUInt64LE(r.pick(BOUNDARY_U64), k);
      else c.writeDoubleLE(r.pick(BOUNDARY_F64), k);
      return c;
    }
  }
}

/** 1–4 seeded byte-level mutations of `b` (never in place); `others` are splice donors (the rest of the corpus). */
export function mutateBytes(r: Rng, b: Uint8Array, others: readonly Uint8Array[] = [], hot = 4096): Uint8Array {
  let cur = b;
  const n = 1 + r.int(4);
  for (let k = 0; k < n; k++) cur = one(r, cur, others, hot, r.pick(OPS));
  return cur;
}
