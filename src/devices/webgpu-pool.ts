/**
 * tfjs-backend-webgpu's buffer pool keys freed buffers by exact size and usage and never destroys one.
 * A schedule whose context grows makes new sizes every piece (the context chunks' key and value rows,
 * the diffs' per-row partials), so the pool keeps every piece's temporaries: a 64-head run of GLM-5
 * at 128k tokens in 8192-token chunks grew to the H200's 139 GiB and ran out of memory, with a piece's
 * own working set a fraction of that (bench/long/results.md). Within a piece too, the pool holds each
 * size's own peak, and the sum of those is far above the peak of the sum. So: `trim` destroys the free
 * buffers of the sizes nobody asked for since the last trim (sizes a schedule repeats, its projections,
 * equal chunks and decodes, stay pooled), and whenever the free buffers pass `maxFree` bytes the sizes
 * asked for least recently are destroyed as buffers come back, until they are within it again.
 * Destroying a buffer that submitted work still reads is allowed, but WebGPU keeps its memory until that
 * work is done, and the host runs seconds ahead of the GPU in a long piece: destroying the buffers of a
 * loop's body (an MHA context chunk's key parts, 6–8 GiB each at 64 heads) made each iteration allocate
 * them anew while the GPU still held the last ones, 29 GiB over the live set at 128k (largest first and
 * down to half of 4 GiB, as this did before). Least recently asked first spares the sizes a loop repeats.
 */
type Buffer = { size: number; usage: number; destroy(): void };

export interface PoolingBackend {
  bufferManager: {
    acquireBuffer(size: number, usage: number, ...rest: unknown[]): unknown;
    releaseBuffer(buffer: Buffer, ...rest: unknown[]): void;
    freeBuffers: Map<string, Buffer[]>;
    usedBuffers: Map<string, { size: number }[]>;
    numFreeBuffers: number;
    numBytesAllocated: number;
  };
}

export interface PoolTrimmer {
  /** Destroys the free buffers of sizes not acquired since the last trim; returns the bytes freed. */
  trim(): number;
  /** Bytes of buffers in use and free in the pool (tfjs's own counters can read NaN). */
  bytes(): { used: number; free: number };
}

/** Free bytes past which the free buffers least recently asked for are destroyed: above one key part's temporaries. */
export const MAX_FREE_BYTES = 8 * 2 ** 30;

/** Wraps the backend's acquireBuffer and releaseBuffer (tfjs's key: `${size}_${usage}`). */
export function poolTrimmer(backend: PoolingBackend, maxFree = MAX_FREE_BYTES): PoolTrimmer {
  const bm = backend.bufferManager;
  const asked = new Set<string>();
  const lastAsked = new Map<string, number>(); // key → acquisition count when last asked for
  let acquisitions = 0;
  let free = 0; // bytes in the free lists, kept as they change
  const length = (key: string) => bm.freeBuffers.get(key)?.length ?? 0;
  const acquire = bm.acquireBuffer.bind(bm);
  bm.acquireBuffer = (size: number, usage: number, ...rest: unknown[]) => {
    const key = `${size}_${usage}`;
    asked.add(key);
    lastAsked.set(key, ++acquisitions);
    const before = length(key);
    const b = acquire(size, usage, ...rest);
    if (length(key) < before) free -= size;
    return b;
  };
  const release = bm.releaseBuffer.bind(bm);
  bm.releaseBuffer = (buffer: Buffer, ...rest: unknown[]) => {
    const key = `${buffer.size}_${buffer.usage}`;
    const before = length(key);
    release(buffer, ...rest);
    if (length(key) > before) free += buffer.size;
    if (free > maxFree) free -= evict(free - maxFree);
  };
  /** Destroys free buffers, of the sizes least recently asked for first (the larger of equals first), until `bytes` are freed. */
  const evict = (bytes: number) => {
    const age = (key: string) => lastAsked.get(key) ?? 0;
    const lists = [...bm.freeBuffers.entries()]
      .filter(([, l]) => l.length)
      .sort(([ka, a], [kb, b]) => age(ka) - age(kb) || b[0]!.size - a[0]!.size)
      .map(([, l]) => l);
    let freed = 0;
    for (const list of lists) {
      while (list.length && freed < bytes) {
        const b = list.pop()!;
        freed += b.size;
        b.destroy();
        bm.numFreeBuffers--;
      }
      if (freed >= bytes) break;
    }
    bm.numBytesAllocated -= freed;
    return freed;
  };
  const sum = (m: Map<string, { size: number }[]>) => {
    let n = 0;
    for (const list of m.values()) for (const b of list) n += b.size;
    return n;
  };
  return {
    trim() {
      let freed = 0;
      for (const [key, list] of bm.freeBuffers) {
        if (asked.has(key)) continue;
        lastAsked.delete(key);
        if (!list.length) continue;
        for (const b of list) {
          freed += b.size;
          b.destroy();
        }
        bm.numFreeBuffers -= list.length;
        list.length = 0;
      }
      bm.numBytesAllocated -= freed;
      free -= freed;
      asked.clear();
      return freed;
    },
    bytes: () => ({ used: sum(bm.usedBuffers), free: sum(bm.freeBuffers) }),
  };
}
