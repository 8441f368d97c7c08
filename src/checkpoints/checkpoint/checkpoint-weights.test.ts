import { MlaDiffError } from '../../errors';
import { preset } from '../../core/model/presets';
import type { CheckpointLayer } from './checkpoint-weights';
import { CheckpointWeights, gatherRows } from './checkpoint-weights';

const config = preset('tiny');
const H = config.hidden_size;

/** A layer whose embedding table is row id × 0.001 everywhere, with NaN (or +inf) at one cell of row `badRow`. */
function layer(badRow: number, bad = NaN): CheckpointLayer {
  const row = (id: number) => {
    const r = new Float32Array(H).fill(id * 0.001);
    if (id === badRow) r[3] = bad;
    return r;
  };
  return {
    label: 'fake',
    file: '/ckpt/model.safetensors',
    config,
    tensors: {} as CheckpointLayer['tensors'],
    embeddingRows: (ids) => gatherRows(ids, H, row),
    embeddingOrigin: { tensors: ['model.embed_tokens.weight'], dtype: 'F32' },
    embeddingBound: () => null,
  };
}

function thrown(f: () => unknown): MlaDiffError {
  try {
    f();
  } catch (e) {
    if (e instanceof MlaDiffError) return e;
    throw e;
  }
  throw new Error('did not throw');
}

describe('CheckpointWeights.embeddings', () => {
  it('returns finite rows as read', () => {
    const e = new CheckpointWeights(layer(-1)).embeddings([2, 5]);
    expect(e.length).toBe(2 * H);
    expect(e[H]).toBeCloseTo(0.005);
  });

  it.each([NaN, Infinity, -Infinity])('a row holding %p is nan-weights naming the tensor and the row, not a divergence', (bad) => {
    const e = thrown(() => new CheckpointWeights(layer(7, bad)).embeddings([1, 7, 9]));
    expect(e.code).toBe('nan-weights');
    expect(e.where).toEqual(expect.objectContaining({ file: '/ckpt/model.safetensors', field: 'model.embed_tokens.weight[7]' }));
    expect(e.message).not.toContain('undefined');
  });
});
