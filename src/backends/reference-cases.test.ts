import { preset } from '../model/presets';
import { HostRecorder } from '../probes/recorder';
import { STAGE_NAMES } from '../probes/stages';
import { SyntheticWeights } from '../weights/synthetic';
import { ReferenceBackend } from './reference';
import { referenceCases, sliceHeadAxis } from './reference-cases';

describe('reference for several head slices in one pass', () => {
  it('sliceHeadAxis cuts the h axis and the flattened hv axis', () => {
    const x = { shape: [2, 3, 2], data: Float64Array.from({ length: 12 }, (_, i) => i) };
    expect(Array.from(sliceHeadAxis(x, 't h v', 1, 2, 2).data)).toEqual([2, 3, 4, 5, 8, 9, 10, 11]);
    const y = { shape: [2, 6], data: Float64Array.from({ length: 12 }, (_, i) => i) };
    expect(Array.from(sliceHeadAxis(y, 't hv', 2, 1, 2).data)).toEqual([4, 5, 10, 11]);
    const z = { shape: [2, 2], data: new Float64Array(4) };
    expect(sliceHeadAxis(z, 't l', 0, 1, 2)).toBe(z);
  });

  it('each case equals a separate float64 pass over its heads, o_proj partial sum included', async () => {
    const c = preset('tiny');
    const source = new SyntheticWeights(c, 11);
    const ids = [4, 8, 15, 16];
    const input = { ids, positions: [0, 1, 2, 3], embeddings: source.embeddings(ids) };
    const cases = [{ start: 0, count: 4 }, { start: 1, count: 2 }];
    const all = new Set(STAGE_NAMES);
    const joint = await referenceCases(source, cases, input, all);
    for (const [i, heads] of cases.entries()) {
      const alone = new HostRecorder({ retain: all });
      await new ReferenceBackend(source, heads).forward(input, alone);
      const want = alone.finish('reference');
      for (const stage of STAGE_NAMES) {
        const a = joint[i]!.captured.get(stage)!;
        const b = want.captured.get(stage)!;
        if (a.where !== 'host' || b.where !== 'host') throw new Error('host captures expected');
        expect({ stage, shape: a.shape }).toEqual({ stage, shape: b.shape });
        expect(Array.from(a.data)).toEqual(Array.from(b.data));
      }
    }
  });
});
