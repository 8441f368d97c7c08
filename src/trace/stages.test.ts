import type { StageName } from './stages';
import { STAGE_NAMES, STAGES, stageIndex, stageOrder } from './stages';

const CHUNKED = STAGE_NAMES.filter((s) => (STAGES[s] as { chunked?: boolean }).chunked);

describe('stageOrder', () => {
  it('keeps unchunked stages in declaration order', () => {
    const plain = STAGE_NAMES.filter((s) => !CHUNKED.includes(s));
    const orders = plain.map((s) => stageOrder(s));
    expect(orders).toEqual(plain.map((s) => stageIndex(s)));
  });

  it.each([0, 1, 7, 1279, 1280, 1536, 100_000])('chunk %i: every chunked stage sorts after suffix_lse and before split_lse', (chunk) => {
    for (const s of CHUNKED) {
      expect(stageOrder(s, chunk)).toBeGreaterThan(stageOrder('suffix_lse'));
      expect(stageOrder(s, chunk)).toBeLessThan(stageOrder('split_lse'));
    }
  });

  it('runs chunk by chunk: all stages of chunk i before any of chunk i+1', () => {
    const seq: [StageName, number][] = [];
    for (const chunk of [0, 1, 2, 1500, 1501]) for (const s of CHUNKED) seq.push([s, chunk]);
    const orders = seq.map(([s, c]) => stageOrder(s, c));
    for (let i = 1; i < orders.length; i++) expect(orders[i]!).toBeGreaterThan(orders[i - 1]!);
  });
});
