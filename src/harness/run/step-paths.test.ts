import type * as tf from '@tensorflow/tfjs-core';
import { layerFixture } from '../../test-utils/layer';
import { preset } from '../../core/model/presets';
import { SyntheticWeights } from '../../core/weights/synthetic';
import { prefillPiece } from '../../test-utils/pieces';
import type { MlaBackend, PieceInput } from '../../paths/backend';
import { DEFAULT_KERNELS } from '../../paths/backend';
import { ColdBackend } from '../../paths/cold';
import { MhaBackend } from '../../paths/mha';
import { MqaBackend } from '../../paths/mqa';
import type { Recording } from '../../core/probes/recorder';
import { TensorRecorder } from '../../core/probes/tensor-recorder';
import { stepPaths } from './step-paths';

/**
 * The pipelined step (every path enqueued before any is awaited), and its serial form, record exactly what
 * the paths record one after another: the same stages with the same statistics, bit for bit, over a cached
 * piece (fill only), a prefill and a piece with context.
 */
const cfg = preset('tiny');
const source = new SyntheticWeights(cfg, 5);
const id = (i: number) => 2 + ((i * 5) % 40);
const pieces = (): PieceInput[] => [
  { ...prefillPiece(source, 0, 4, [], id), kind: 'cached' },
  { ...prefillPiece(source, 4, 7, [[0, 4]], id), step: 1 },
  {
    ...prefillPiece(
      source,
      11,
      3,
      [
        [0, 6],
        [6, 11],
      ],
      id,
    ),
    step: 2,
  },
];

describe.each(['wasm', 'cpu'] as const)('stepPaths on %s', (device) => {
  const f = layerFixture(device, source);

  const paths = (): MlaBackend<tf.Tensor>[] => [
    new MhaBackend(f.layer, new Set(), 16, DEFAULT_KERNELS),
    new MqaBackend(f.layer, new Set(), 16, DEFAULT_KERNELS),
    new ColdBackend(f.layer),
  ];
  const record = async (
    run: (ps: MlaBackend<tf.Tensor>[], recs: TensorRecorder[], piece: PieceInput) => Promise<void>,
  ): Promise<Recording[]> => {
    const ps = paths();
    const recs = ps.map(() => new TensorRecorder(f.rt.tf, {}, () => null));
    for (const piece of pieces()) await run(ps, recs, piece);
    const out = await Promise.all(recs.map((r, i) => r.finish(ps[i]!.name)));
    for (const p of ps) p.dispose();
    for (const r of out) for (const c of r.captured.values()) if (c.where === 'device') c.tensor.dispose();
    return out;
  };

  it('records what the paths record one after another, bit for bit, and leaks nothing', async () => {
    const before = f.rt.tf.memory().numTensors;
    const seconds: number[][] = [];
    const piped = await record(async (ps, recs, piece) => {
      seconds.push(await stepPaths(ps, recs, piece));
    });
    const serial = await record(async (ps, recs, piece) => {
      for (const [i, p] of ps.entries()) {
        if (piece.kind === 'cached') await p.fill(piece);
        else {
          recs[i]!.at(piece);
          await p.step(piece, recs[i]!);
        }
      }
    });
    let betweens = 0;
    const awaited = await record(async (ps, recs, piece) => {
      // serial: each path awaited before the next is encoded, `between` after each but the last
      await stepPaths(ps, recs, piece, true, async () => void betweens++);
    });
    f.layer.rope?.clear();
    expect(f.rt.tf.memory().numTensors).toBe(before);
    expect(seconds).toHaveLength(3);
    expect(betweens).toBe(2 * 2); // two stepped pieces (the cached one only fills), three paths each
    for (const s of seconds) expect(s.every((x) => x >= 0)).toBe(true);
    for (const [i, r] of piped.entries()) {
      expect(r.trace.stages.length).toBeGreaterThan(20);
      expect(r.trace.stages.some((st) => st.step === 0)).toBe(false); // the cached piece records nothing
      expect(JSON.stringify(r.trace.stages)).toBe(JSON.stringify(serial[i]!.trace.stages));
      expect(JSON.stringify(awaited[i]!.trace.stages)).toBe(JSON.stringify(serial[i]!.trace.stages));
    }
  });
});
