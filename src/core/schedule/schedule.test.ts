import { BlockTables } from './paging';
import type { RequestPlan } from './schedule';
import { contextChunks, pieceKey, planSchedule } from './schedule';

const req = (name: string, phases: RequestPlan['phases'], startStep = 0): RequestPlan => {
  const n = phases.reduce((a, p) => a + p.tokens, 0);
  return { name, ids: Array.from({ length: n }, (_, i) => 100 + i), startStep, positionOffset: 0, phases };
};

describe('planSchedule', () => {
  it('chunks a prefill, then decodes one token per step, then a second prefill with context', () => {
    const steps = planSchedule(
      [
        req('chat', [
          { kind: 'prefill', tokens: 10, chunk: 4 },
          { kind: 'decode', tokens: 2 },
          { kind: 'prefill', tokens: 3 },
        ]),
      ],
      1,
    );
    expect(steps.map((s) => s.pieces.map((p) => [p.kind, p.start, p.count, p.route]))).toEqual([
      [['prefill', 0, 4, 'mha']],
      [['prefill', 4, 4, 'mha']],
      [['prefill', 8, 2, 'mha']],
      [['decode', 10, 1, 'mqa']],
      [['decode', 11, 1, 'mqa']],
      [['prefill', 12, 3, 'mha']],
    ]);
    expect(steps[1]!.pieces[0]!.ids).toEqual([104, 105, 106, 107]);
  });

  it('orders decodes first and routes short prefills to MQA under a FlashMLA-like threshold', () => {
    const steps = planSchedule(
      [
        req('p', [{ kind: 'prefill', tokens: 200 }]),
        req('d', [
          { kind: 'prefill', tokens: 8 },
          { kind: 'decode', tokens: 1 },
        ]),
        req('s', [{ kind: 'prefill', tokens: 64 }]),
      ],
      128,
    );
    expect(steps[0]!.pieces.map((p) => [p.request, p.route])).toEqual([
      ['d', 'mqa'],
      ['s', 'mqa'],
      ['p', 'mha'],
    ]);
  });

  it('start_step delays a request: two decodes and one chunked prefill share a step', () => {
    const steps = planSchedule(
      [
        req('a', [
          { kind: 'prefill', tokens: 5 },
          { kind: 'decode', tokens: 2 },
        ]),
        req('b', [
          { kind: 'prefill', tokens: 6 },
          { kind: 'decode', tokens: 2 },
        ]),
        req('c', [{ kind: 'prefill', tokens: 8, chunk: 4 }], 1),
      ],
      1,
    );
    expect(steps[1]!.pieces.map((p) => `${p.request}:${p.kind}`)).toEqual(['a:decode', 'b:decode', 'c:prefill']);
  });
});

describe('contextChunks', () => {
  it('MHA prefills with context share boundaries; the shorter context gets an empty chunk', () => {
    const steps = planSchedule(
      [
        req('long', [
          { kind: 'cached', tokens: 32 },
          { kind: 'prefill', tokens: 8 },
        ]),
        req('short', [
          { kind: 'cached', tokens: 16 },
          { kind: 'prefill', tokens: 8 },
        ]),
      ],
      1,
    );
    const chunks = contextChunks(steps[1]!, 16);
    expect(chunks.get(pieceKey({ step: 1, request: 'long' }))).toEqual([
      [0, 16],
      [16, 32],
    ]);
    expect(chunks.get(pieceKey({ step: 1, request: 'short' }))).toEqual([
      [0, 16],
      [16, 16],
    ]);
  });

  it('no context, no chunks; a decode chunks its own context', () => {
    const steps = planSchedule(
      [
        req('r', [
          { kind: 'prefill', tokens: 5 },
          { kind: 'decode', tokens: 1 },
        ]),
      ],
      1,
    );
    expect(contextChunks(steps[0]!, 4).size).toBe(0);
    expect(contextChunks(steps[1]!, 4).get('1/r')).toEqual([
      [0, 4],
      [4, 5],
    ]);
  });
});

describe('BlockTables', () => {
  const rs = [req('a', [{ kind: 'prefill', tokens: 37 }]), req('b', [{ kind: 'prefill', tokens: 9 }])];

  it('gives every request enough blocks, no block to two requests, scattered by the seed', () => {
    const t = new BlockTables(rs, 8, 1);
    expect(t.table('a').length).toBe(5);
    expect(t.table('b').length).toBe(2);
    const all = [...t.table('a'), ...t.table('b')];
    expect(new Set(all).size).toBe(all.length);
    expect(all.every((b) => b >= 0 && b < t.numBlocks)).toBe(true);
    expect(new BlockTables(rs, 8, 2).table('a')).not.toEqual(t.table('a'));
  });

  it('slot mapping follows the block table and never collides across requests', () => {
    const t = new BlockTables(rs, 4, 3);
    const a = Array.from(t.slots('a', 0, 37));
    const b = Array.from(t.slots('b', 0, 9));
    expect(a[5]).toBe(t.table('a')[1]! * 4 + 1);
    expect(new Set([...a, ...b]).size).toBe(46);
    expect(Math.max(...a, ...b)).toBeLessThan(t.numSlots);
    expect(Array.from(t.slots('a', 5, 7))).toEqual(a.slice(5, 7));
  });
});
