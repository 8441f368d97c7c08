import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { preset } from '../model/presets';
import type { NormalGrid } from './grid';
import { fillGrid } from './grid';
import type { Layout, LinearName, Range } from './layer';
import { linearShape } from './layer';
import { fillNormal, streamKey } from './normal';
import { ELEMENTS_PER_THREAD, fillThreads, fillWorkerEntry, MIN_CORES, parallelFill } from './parallel-fill';
import { SyntheticWeights, syntheticGrid } from './synthetic';

const glm5 = preset('glm-5');
const bits = (a: Float32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/** SyntheticWeights.block as it was before grids: one fillNormal per row (out_in) or column (in_out). */
function plainBlock(name: LinearName, rows: Range, cols: Range, layout: Layout, gain = 1): Float32Array {
  const fanIn = linearShape(glm5, name)[1];
  const key = streamKey(0, name);
  const scale = gain / Math.sqrt(fanIn);
  const [nr, nc] = [rows[1] - rows[0], cols[1] - cols[0]];
  const dst = new Float32Array(nr * nc);
  if (layout === 'out_in') for (let r = 0; r < nr; r++) fillNormal(dst, r * nc, 1, nc, key, (rows[0] + r) * fanIn + cols[0], 1, scale, 0);
  else for (let c = 0; c < nc; c++) fillNormal(dst, c * nr, 1, nr, key, rows[0] * fanIn + cols[0] + c, fanIn, scale, 0);
  return dst;
}

const BLOCKS: [LinearName, Range, Range][] = [
  ['q_a_proj', [0, 64], [0, 6144]],
  ['kv_b_proj', [448, 896], [0, 512]],
  ['o_proj', [6000, 6144], [1024, 1536]],
];
const LAYOUTS: Layout[] = ['out_in', 'in_out'];
const grid = (name: LinearName, rows: Range, cols: Range, layout: Layout, gain = 1): NormalGrid => {
  const fanIn = linearShape(glm5, name)[1];
  return syntheticGrid(streamKey(0, name), rows, cols, layout, fanIn, gain / Math.sqrt(fanIn));
};

describe('synthetic weights through grids, bit for bit', () => {
  it.each(LAYOUTS)('SyntheticWeights.block equals the plain per-line fill on GLM-5 blocks (%s, gains 1 and -3)', (layout) => {
    for (const gain of [1, -3]) {
      const w = new SyntheticWeights(glm5, 0, { q_a_proj: gain, kv_b_proj: gain, o_proj: gain });
      for (const [name, rows, cols] of BLOCKS) {
        const dst = new Float32Array((rows[1] - rows[0]) * (cols[1] - cols[0]));
        w.block(name, rows, cols, layout, dst);
        expect(bits(dst).equals(bits(plainBlock(name, rows, cols, layout, gain)))).toBe(true);
      }
    }
  });

  it('parallelFill on one thread, or without a worker entry, is the plain fill', () => {
    const g = grid('o_proj', [0, 512], [0, 2048], 'in_out');
    const plain = new Float32Array(512 * 2048);
    fillGrid(g, plain);
    for (const [threads, entry] of [
      [1, '/nonexistent.js'],
      [4, null],
    ] as const) {
      const dst = new Float32Array(plain.length);
      parallelFill(g, dst, threads, entry);
      expect(bits(dst).equals(bits(plain))).toBe(true);
    }
  });

  it('threads only on MIN_CORES cores or more, one per ELEMENTS_PER_THREAD elements, at most one per core', () => {
    expect(fillThreads(100 * ELEMENTS_PER_THREAD, MIN_CORES - 1)).toBe(1);
    expect(fillThreads(100 * ELEMENTS_PER_THREAD, 16)).toBe(16);
    expect(fillThreads(3 * ELEMENTS_PER_THREAD, 16)).toBe(3);
    expect(fillThreads(ELEMENTS_PER_THREAD - 1, 16)).toBe(1);
  });

  it('workers that fail to load leave their chunks to the main thread', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mla-fill-'));
    try {
      const entry = join(dir, 'broken-worker.js');
      writeFileSync(entry, "throw new Error('broken worker');\n");
      const g = grid('kv_b_proj', [0, 28672], [0, 64], 'out_in');
      const plain = new Float32Array(28672 * 64);
      fillGrid(g, plain);
      const dst = new Float32Array(plain.length);
      parallelFill(g, dst, 3, entry);
      expect(bits(dst).equals(bits(plain))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // The worker entry is dist/'s (npm test builds first); ts-jest's TypeScript sources have none.
  const built = fillWorkerEntry(resolve(__dirname, '../../../dist/core/weights'));
  const itBuilt = built ? it : it.skip;
  itBuilt.each(LAYOUTS)('the built workers fill o_proj blocks bit-identically (%s), into plain and shared memory', (layout) => {
    const g = grid('o_proj', [0, 6144], [0, 1024], layout);
    const plain = new Float32Array(6144 * 1024);
    fillGrid(g, plain);
    const dst = new Float32Array(plain.length);
    parallelFill(g, dst, 4, built);
    expect(bits(dst).equals(bits(plain))).toBe(true);
    const shared = new Float32Array(new SharedArrayBuffer(4 * (plain.length + 8)), 32, plain.length);
    parallelFill(g, shared, 4, built);
    expect(bits(shared).equals(bits(plain))).toBe(true);
  });
});
