/**
 * tfjs-backend-webgpu's buffer pool keys freed buffers by exact size and usage and never destroys one.
 * A schedule whose context grows makes new sizes every piece (the context chunks' key and value rows,
 * the diffs' per-row partials), so the pool keeps every piece's temporaries: a 64-head run of GLM-5
 * at 128k tokens in 8192-token chunks grew to the H200's 139 GiB and ran out of memory, with a piece's
 * own working set a fraction of that (bench/long/results.md). So: `trim` destroys the free buffers of the
 * sizes nobody asked for since the last trim (sizes a schedule repeats, its projections, equal chunks and
 * decodes, stay pooled), and `trim` and `settle` destroy the sizes asked for least recently until the free
 * buffers are within `maxFree` bytes.
 * Both are called where the host waits for the GPU (a piece's end, between the paths of a long piece), not as
 * buffers come back: a buffer destroyed while the host encodes a long piece keeps its memory until the GPU has
 * passed it and the host yields (Dawn recycles at its next event tick), so destroying there only adds the next
 * buffer's allocation to the old one's: at 128k, 46 GiB of GPU memory against a live set of 19 (call 6, 7).
 * Only past HARD_FREE_FACTOR × maxFree are buffers destroyed as they come back, a guard for a piece that
 * makes sizes without end.
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
  /** Destroys the free buffers of sizes not acquired since the last trim, then settles; returns the bytes freed. */
  trim(): number;
  /** Destroys free buffers, the sizes asked for least recently first, until at most maxFree bytes are free; returns the bytes freed. */
  settle(): number;
  /** Bytes of buffers in use and free in the pool (tfjs's own counters can read NaN). */
  bytes(): { used: number; free: number };
}

/** Free bytes kept at a settle: above one key part's temporaries (6–8 GiB at 64 heads). */
export const MAX_FREE_BYTES = 8 * 2 ** 30;

/** Free bytes, as a multiple of maxFree, past which buffers are destroyed as they come back. */
export const HARD_FREE_FACTOR = 4;

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
    if (free > HARD_FREE_FACTOR * maxFree) free -= evict(free - maxFree);
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
  const settle = () => {
    const freed = free > maxFree ? evict(free - maxFree) : 0;
    free -= freed;
    return freed;
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
      return freed + settle();
    },
    settle,
    bytes: () => ({ used: sum(bm.usedBuffers), free: sum(bm.freeBuffers) }),
  };
}
