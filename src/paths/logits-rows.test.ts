import * as tf from '@tensorflow/tfjs-core';
import type { Runtime } from '../devices/runtime';
import { testRuntime } from '../test-utils/runtime';
import { preset } from '../core/model/presets';
import { SyntheticWeights } from '../core/weights/synthetic';
import type { Captured } from '../core/probes/recorder';
import { TensorRecorder } from '../core/probes/tensor-recorder';
import { hostStats } from '../core/probes/stats';
import type { StageName } from '../trace/stages';
import { STAGE_NAMES } from '../trace/stages';
import type { AttentionFn } from '../devices/kernels/attention-kernel';
import type { MlaBackend, PieceInput } from './backend';
import { DEFAULT_KERNELS } from './backend';
import { ColdBackend } from './cold';
import type { DeviceLayer } from './layer';
import { disposeLayer, uploadLayer } from './layer';
import { resolveLogitsRows } from './logits-rows';
import { MhaBackend } from './mha';
import { MqaBackend } from './mqa';

describe('resolveLogitsRows', () => {
  it.each<[number[], number, number[]]>([
    [[0, 17, -1], 20, [0, 17, 19]],
    [[0, 17, -1], 5, [0, 4]], // 17 out of range: skipped
    [[-1, 4, -2, 3, 4], 5, [3, 4]], // duplicates removed, sorted
    [[-1], 1, [0]],
    [[7, -9], 5, []],
  ])('%j of %i tokens → %j', (spec, T, want) => expect(resolveLogitsRows(spec, T)).toEqual(want));
});

/**
 * Sampled logits rows beside fused (host-tiled) attention against the full unfused run of the same
 * path: the sampled records equal the same rows of the full [N,T,S] logits and probabilities, their
 * stats the stats of those rows; lse and attention output stay those of the unfused path.
 */
const cfg = preset('tiny');
const source = new SyntheticWeights(cfg, 5);
const slots = (a: number, b: number) => Int32Array.from({ length: b - a }, (_, i) => a + i);
const SPEC = [0, 3, -1, 40];
function piece(start: number, count: number, chunks: [number, number][], sampled: boolean): PieceInput {
  const ids = Array.from({ length: count }, (_, i) => 1 + (((start + i) * 11) % 60));
  return {
    step: start ? 1 : 0,
    request: 'r',
    kind: 'prefill',
    route: 'mha',
    start,
    ids,
    positions: ids.map((_, i) => start + i),
    embeddings: source.embeddings(ids),
    slots: slots(start, start + count),
    historySlots: slots(0, start + count),
    chunks,
    chunkSlots: chunks.map(([a, b]) => slots(a, b)),
    ...(sampled ? { logitsRows: resolveLogitsRows(SPEC, count) } : {}),
  };
}
const PIECES: [number, number, [number, number][]][] = [
  [0, 9, []],
  [
    9,
    5,
    [
      [0, 4],
      [4, 9],
    ],
  ],
];

/** Every record of every piece, on the host. */
async function records(
  path: MlaBackend<tf.Tensor>,
  sampled: boolean,
): Promise<Map<string, { data: Float32Array; shape: number[]; rows?: readonly number[] }>> {
  const out = new Map<string, { data: Float32Array; shape: number[]; rows?: readonly number[] }>();
  for (const [start, count, chunks] of PIECES) {
    const p = piece(start, count, chunks, sampled);
    const rec = new TensorRecorder(tf, { retain: new Set(STAGE_NAMES) }, () => null);
    rec.at(p);
    await path.step(p, rec);
    for (const [key, c] of (await rec.finish(path.name)).captured) {
      const t = (c as Extract<Captured, { where: 'device' }>).tensor;
      out.set(key, { data: (await t.data()) as Float32Array, shape: t.shape.slice(), ...(p.logitsRows ? { rows: p.logitsRows } : {}) });
      t.dispose();
    }
    rec.dispose();
  }
  path.dispose();
  return out;
}

/** Rows `rows` of a [A,T,S] ('h t s', rowAxis 1) or [T,A,S] ('t h s', rowAxis 0) array. */
function gatherRows(data: Float32Array, shape: number[], rows: readonly number[], rowAxis: 0 | 1): Float32Array {
  const [d0, d1, S] = shape as [number, number, number];
  const out: number[] = [];
  if (rowAxis === 1) for (let a = 0; a < d0; a++) for (const t of rows) out.push(...data.subarray((a * d1 + t) * S, (a * d1 + t + 1) * S));
  else for (const t of rows) out.push(...data.subarray(t * d1 * S, (t + 1) * d1 * S));
  return Float32Array.from(out);
}

/** The flat (row-major) index of position `at` in a tensor of `shape`. */
const flatIndex = (at: readonly number[], shape: readonly number[]): number => at.reduce((o, x, i) => o * shape[i]! + x, 0);

function relErr(a: Float32Array, b: Float32Array): number {
  let [d, n] = [0, 0];
  for (let i = 0; i < a.length; i++) {
    if (!Number.isFinite(a[i]!) && a[i] === b[i]) continue;
    d += (a[i]! - b[i]!) ** 2;
    n += b[i]! ** 2;
  }
  return Math.sqrt(d / n);
}

describe('sampled logits rows beside fused attention (wasm, host tiling)', () => {
  let rt: Runtime;
  let plain: DeviceLayer;
  let calls = 0;
  let fused: DeviceLayer;
  beforeAll(async () => {
    rt = await testRuntime('wasm');
    plain = uploadLayer(rt, source, { start: 0, count: cfg.num_attention_heads }, 16);
    const f = rt.attention!;
    const counted: AttentionFn = (req) => {
      calls++;
      return f(req);
    };
    fused = { ...plain, attention: counted };
  });
  afterAll(() => disposeLayer(plain));

  it.each<[string, (l: DeviceLayer) => MlaBackend<tf.Tensor>, 0 | 1, number]>([
    ['mha', (l) => new MhaBackend(l, new Set(), 16, DEFAULT_KERNELS), 1, 1],
    ['mqa', (l) => new MqaBackend(l, new Set(), 16, DEFAULT_KERNELS), 0, 2],
    ['cold', (l) => new ColdBackend(l), 1, 2],
  ])('%s: the sampled rows ≡ those rows of the unfused run', async (_name, make, rowAxis, withLogits) => {
    const before = rt.tf.memory().numTensors;
    calls = 0;
    const sampled = await records(make(fused), true);
    expect(calls).toBeGreaterThan(0); // the attention ran fused although logits were recorded
    const full = await records(make(plain), false);
    plain.rope?.clear(); // the layer's rotary tables (kept per positions array until the layer goes; `fused` shares them)
    expect(rt.tf.memory().numTensors).toBe(before);
    let compared = 0;
    for (const [key, s] of sampled) {
      const stage = key.split('/')[2] as StageName;
      const f = full.get(key)!;
      expect(f).toBeDefined();
      if (stage === 'logits' || stage === 'attn_probs') {
        const want = gatherRows(f.data, f.shape, s.rows!, rowAxis);
        expect(s.shape[rowAxis]).toBe(s.rows!.length);
        expect(relErr(s.data, want)).toBeLessThan(1e-5);
        const [a, b] = [hostStats(s.data, s.shape, 'float32', ''), hostStats(want, s.shape, 'float32', '')];
        expect(a.l2).toBeCloseTo(b.l2, 4);
        // Where |values| tie within float32 rounding (a first query row's probabilities: 1 in every head) the
        // argmax may flip between two correct computations: each side's must point at a maximum of the other's.
        expect(Math.abs(want[flatIndex(a.maxAbsAt, s.shape)]!)).toBeCloseTo(b.maxAbs, 4);
        expect(Math.abs(s.data[flatIndex(b.maxAbsAt, s.shape)]!)).toBeCloseTo(a.maxAbs, 4);
        if (stage === 'logits') compared++;
      } else {
        expect(s.shape).toEqual(f.shape);
        if (stage === 'lse' || stage === 'attn_out_heads') expect(relErr(s.data, f.data)).toBeLessThan(1e-5);
      }
    }
    expect(compared).toBe(withLogits); // MHA records logits only without context
    expect([...sampled.keys()].filter((k) => k.includes('attn_probs')).length).toBe(withLogits);
  });
});
