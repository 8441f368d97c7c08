import { fmix32, streamKey } from '../weights/normal';
import type { RequestPlan } from './schedule';
import { requestLength } from './schedule';

/**
 * Block tables of a paged latent cache: blocks of `blockSize` slots handed out from a pool in a
 * seeded shuffled order, so that a request's blocks are scattered as in a serving engine and a
 * gather with the wrong table or slot arithmetic reads someone else's rows.
 */
export class BlockTables {
  readonly numBlocks: number;
  private readonly tables = new Map<string, number[]>();

  constructor(
    requests: readonly RequestPlan[],
    readonly blockSize: number,
    seed: number,
  ) {
    const need = requests.map((r) => Math.ceil(requestLength(r) / blockSize));
    this.numBlocks = need.reduce((a, b) => a + b, 0) + 1; // block 0..n-1; one spare nobody owns
    const pool = Array.from({ length: this.numBlocks }, (_, i) => i);
    const key = streamKey(seed, 'block_pool');
    for (let i = pool.length - 1; i > 0; i--) {
      const j = fmix32(Math.imul(i, 0x9e3779b1) ^ key) % (i + 1);
      [pool[i], pool[j]] = [pool[j]!, pool[i]!];
    }
    let next = 0;
    requests.forEach((r, i) => this.tables.set(r.name, pool.slice(next, (next += need[i]!))));
  }

  get numSlots(): number {
    return this.numBlocks * this.blockSize;
  }

  table(request: string): readonly number[] {
    const t = this.tables.get(request);
    if (!t) throw new Error(`no block table for request ${request}`);
    return t;
  }

  /** slot_mapping for positions [from, to) of a request: block_table[p / B]·B + p % B. */
  slots(request: string, from: number, to: number): Int32Array {
    const t = this.table(request);
    const B = this.blockSize;
    const out = new Int32Array(Math.max(0, to - from));
    for (let p = from; p < to; p++) out[p - from] = t[Math.floor(p / B)]! * B + (p % B);
    return out;
  }
}
