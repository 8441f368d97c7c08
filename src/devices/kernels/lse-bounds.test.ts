import { keyIndexing } from './lse-bounds';

describe('keyIndexing: element i of lse reads keys[(i / kdiv) % kmod]', () => {
  it.each<[string, number[], number[], { kdiv: number; kmod: number } | null]>([
    ['scalar keys', [64, 512], [], { kdiv: 1, kmod: 1 }],
    ['[1,T] over the rows of [N,T] (MHA, cold)', [64, 512], [1, 512], { kdiv: 1, kmod: 512 }],
    ['[T,1] over the columns of [T,N] (MQA)', [512, 64], [512, 1], { kdiv: 64, kmod: 512 }],
    ['keys as large as lse', [7, 5], [7, 5], { kdiv: 1, kmod: 35 }],
    ['one element', [1, 1], [1, 1], { kdiv: 1, kmod: 1 }],
    ['[T] against [N,T] is not a layout the kernel reads', [4, 6], [3], null],
    ['[1,T] against [T,N] with T ≠ N', [6, 4], [1, 6], null],
  ])('%s', (_name, lse, keys, want) => {
    expect(keyIndexing(lse, keys)).toEqual(want);
  });

  it('agrees with broadcasting on every element of the readable layouts', () => {
    const [A, B] = [3, 5];
    const ix = (keys: number[]) => keyIndexing([A, B], keys)!;
    for (let i = 0; i < A * B; i++) {
      const [r, c] = [Math.floor(i / B), i % B];
      expect(Math.floor(i / ix([1, B]).kdiv) % ix([1, B]).kmod).toBe(c);
      expect(Math.floor(i / ix([A, 1]).kdiv) % ix([A, 1]).kmod).toBe(r);
    }
  });
});
