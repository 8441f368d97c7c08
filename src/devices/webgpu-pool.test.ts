import type { PoolingBackend } from './webgpu-pool';
import { poolTrimmer } from './webgpu-pool';

type Buffer = { size: number; usage: number; destroy(): void };

/** A buffer manager shaped as tfjs-backend-webgpu's: exact-size free lists, never destroyed by it. */
function fakeBackend() {
  const destroyed: number[] = [];
  const bm: PoolingBackend['bufferManager'] = {
    freeBuffers: new Map(),
    usedBuffers: new Map(),
    numFreeBuffers: 0,
    numBytesAllocated: 0,
    acquireBuffer(size: number, usage: number) {
      const key = `${size}_${usage}`;
      const free = bm.freeBuffers.get(key) ?? [];
      bm.freeBuffers.set(key, free);
      const pooled = free.pop();
      if (pooled) bm.numFreeBuffers--;
      const b: Buffer = pooled ?? { size, usage, destroy: () => destroyed.push(size) };
      bm.usedBuffers.set(key, [...(bm.usedBuffers.get(key) ?? []), b]);
      return b;
    },
    releaseBuffer(b: Buffer) {
      const key = `${b.size}_${b.usage}`;
      bm.usedBuffers.set(
        key,
        bm.usedBuffers.get(key)!.filter((x) => x !== b),
      );
      bm.freeBuffers.get(key)!.push(b);
      bm.numFreeBuffers++;
    },
  };
  return { backend: { bufferManager: bm }, destroyed };
}

describe('webgpu pool trimming', () => {
  it('destroys the free buffers of sizes not asked for since the last trim, keeps the repeated ones', () => {
    const { backend, destroyed } = fakeBackend();
    const pool = poolTrimmer(backend);
    const bm = backend.bufferManager;
    const take = (size: number) => bm.acquireBuffer(size, 1) as Buffer;
    for (const b of [16, 32, 64].map(take)) bm.releaseBuffer(b);
    expect(pool.bytes()).toEqual({ used: 0, free: 112 });
    expect(pool.trim()).toBe(0); // every size was asked for in this piece
    bm.releaseBuffer(take(16)); // the next piece repeats one size
    expect(pool.trim()).toBe(96); // 32 and 64 were not asked for again
    expect(destroyed.sort((a, b) => a - b)).toEqual([32, 64]);
    expect(bm.numFreeBuffers).toBe(1);
    expect(pool.bytes()).toEqual({ used: 0, free: 16 });
    take(16); // reused from the pool, not created
    expect(pool.bytes()).toEqual({ used: 16, free: 0 });
    expect(destroyed).toHaveLength(2);
  });

  it('past maxFree bytes of free buffers, a settle destroys the sizes asked for least recently', () => {
    const { backend, destroyed } = fakeBackend();
    const pool = poolTrimmer(backend, 100);
    const bm = backend.bufferManager;
    const held = [8, 16, 40, 60].map((size) => bm.acquireBuffer(size, 1) as Buffer);
    for (const b of held) bm.releaseBuffer(b);
    expect(destroyed).toEqual([]); // 124 free: nothing destroyed as buffers come back (the host may be ahead of the GPU)
    expect(pool.settle()).toBe(24); // 24 over the budget: the oldest sizes go first
    expect(destroyed).toEqual([8, 16]);
    expect(pool.bytes()).toEqual({ used: 0, free: 100 });
    expect(bm.numFreeBuffers).toBe(2);
    expect(pool.settle()).toBe(0);
  });

  it('destroys as buffers come back only past HARD_FREE_FACTOR times the budget', () => {
    const { backend, destroyed } = fakeBackend();
    const pool = poolTrimmer(backend, 100);
    const bm = backend.bufferManager;
    const held = [150, 160, 170].map((size) => bm.acquireBuffer(size, 1) as Buffer);
    bm.releaseBuffer(held[0]!);
    bm.releaseBuffer(held[1]!);
    expect(destroyed).toEqual([]); // 310 free: under 4 × 100
    bm.releaseBuffer(held[2]!); // 480: over it, down to the budget, oldest first
    expect(destroyed).toEqual([150, 160, 170]);
    expect(pool.bytes().free).toBe(0);
  });

  it("spares a loop body's sizes: each iteration reuses the last one's buffers instead of making new ones", () => {
    const { backend, destroyed } = fakeBackend();
    const pool = poolTrimmer(backend, 100);
    const bm = backend.bufferManager;
    bm.releaseBuffer(bm.acquireBuffer(30, 1) as Buffer); // a size from before the loop
    for (let part = 0; part < 4; part++) {
      const body = [40, 50].map((size) => bm.acquireBuffer(size, 1) as Buffer); // one key part's temporaries
      for (const b of body) bm.releaseBuffer(b);
    }
    expect(destroyed).toEqual([]);
    expect(pool.bytes()).toEqual({ used: 0, free: 120 });
    expect(pool.trim()).toBe(30); // at the piece's end it settles: the oldest size goes, the body's stay
    expect(destroyed).toEqual([30]);
  });
});
