import { preset } from '../../core/model/presets';
import { planReferenceGemm } from '../../paths/reference-gemm-open';
import type { CostPiece, ReferenceHost } from './plan-reference';
import { REFERENCE_AUTO_MAX_SECONDS, planReference, referenceCost, referenceSeconds, thisHost } from './plan-reference';
import { planReference as fromPlan } from './plan';

const GLM5 = preset('glm-5');
const ALL = { start: 0, count: 64 };
const GiB = 2 ** 30;

/** One causal prefill of T tokens (cache empty), or a cache hit of T tokens. */
const prefill = (T: number, kind = 'prefill'): CostPiece => ({ kind, ids: new Array<number>(T).fill(0), historySlots: new Int32Array(T) });

const blas = (threads: number, memoryGiB: number, scores = true): ReferenceHost => ({
  gemm: { kind: 'blas', threads, description: `cblas_dgemm of OpenBLAS (${threads} threads)`, softmaxThreads: threads },
  memoryBytes: memoryGiB * GiB,
  scores,
});

describe('planReference', () => {
  it('is what plan.ts exports', () => expect(fromPlan).toBe(planReference));

  it('GLM-5 at 64 heads, T = 2048, logits recorded: auto runs it on 2 cores with OpenBLAS and 24 GiB (CI)', () => {
    const p = planReference('auto', GLM5, ALL, [prefill(2048)], blas(2, 24));
    expect(p.run).toBe(true);
    expect(p.estimate!.seconds).toBeGreaterThan(20);
    expect(p.estimate!.seconds).toBeLessThan(REFERENCE_AUTO_MAX_SECONDS);
    expect(p.estimate!.bytes / GiB).toBeGreaterThan(7); // 4 GiB of logits and attn_probs, 4 of per-token records
    expect(p.estimate!.bytes / GiB).toBeLessThan(12);
    expect(p.estimate!.gemm).toMatch(/dgemm/);
  });

  it('T = 8192 without scores (fused attention) runs on 16 cores with 128 GiB; with its 64 GiB of scores it does not', () => {
    expect(planReference('auto', GLM5, ALL, [prefill(8192)], blas(16, 128, false)).run).toBe(true);
    const withScores = planReference('auto', GLM5, ALL, [prefill(8192)], blas(16, 128, true));
    expect(withScores).toEqual({ run: false, estimate: expect.anything(), note: expect.stringMatching(/reference: on/) });
  });

  it('the plain loops skip T = 2048 on a worker pool, saying the estimate, the GEMM and how to force it', () => {
    const gemm = { kind: 'pool' as const, threads: 2, description: 'plain loops on 2 worker threads', softmaxThreads: 2 };
    const pool = { ...blas(2, 24), gemm };
    const p = planReference('auto', GLM5, ALL, [prefill(2048)], pool);
    expect(p.run).toBe(false);
    expect(p.note).toMatch(/^reference skipped: about \d+ s in float64 \(0\.\d\d TMAC, plain loops on 2 worker threads\) is over 60 s/);
    expect(p.note).toMatch(/--reference on/);
    expect(planReference('on', GLM5, ALL, [prefill(2048)], pool).run).toBe(true);
  });

  it('skips what would not fit in half the memory, and says so; off never runs, on always', () => {
    const small = planReference('auto', GLM5, ALL, [prefill(1024)], blas(16, 4));
    expect(small.run).toBe(false);
    expect(small.note).toMatch(/GiB of float64 records, over half of this machine's 4 GiB/);
    expect(planReference('on', GLM5, ALL, [prefill(1024)], blas(16, 4)).run).toBe(true);
    expect(planReference('off', GLM5, ALL, [prefill(16)], blas(16, 4))).toEqual({ run: false, note: expect.stringMatching(/off/) });
    expect(planReference('auto', preset('tiny'), { start: 0, count: 4 }, [prefill(64)], blas(1, 1)).run).toBe(true);
  });

  it('estimates this machine when no host is given (its BLAS, its memory)', () => {
    const h = thisHost({ MLA_DIFF_BLAS: 'off' });
    expect(h.gemm).toEqual(planReferenceGemm({ kind: 'off' }));
    expect(h.gemm.kind).not.toBe('blas');
    expect(planReference('auto', preset('tiny'), { start: 0, count: 4 }, [prefill(8)]).run).toBe(true);
  });
});

describe('referenceCost', () => {
  it('a cache hit costs only its latent and K/V projections; unrecorded scores cost fewer products and no memory of theirs', () => {
    const hit = referenceCost(GLM5, ALL, [prefill(100, 'cached')]);
    expect(hit.macs).toBe(100 * (6144 * 576 + 64 * 448 * 512));
    expect(hit.elements).toBe(0);
    const [a, b] = [referenceCost(GLM5, ALL, [prefill(2048)], true), referenceCost(GLM5, ALL, [prefill(2048)], false)];
    expect(b.macs).toBeLessThan(a.macs);
    expect(a.bytes - b.bytes).toBe(2 * 8 * 64 * 2048 * 2048);
    expect(b.elements).toBe(a.elements);
  });

  it('KV splits and context chunks add softmax passes; seconds follow the GEMM kind and its threads', () => {
    const piece = { ...prefill(512), historySlots: new Int32Array(1024), chunks: [[0, 512] as const] };
    const plain = referenceCost(GLM5, ALL, [prefill(512)]);
    expect(referenceCost(GLM5, ALL, [prefill(512)], true, 4).elements).toBe(2 * plain.elements);
    expect(referenceCost(GLM5, ALL, [piece]).macs).toBeGreaterThan(plain.macs);
    const cost = referenceCost(GLM5, ALL, [prefill(512)]);
    const [b2, b16] = [referenceSeconds(cost, { kind: 'blas', threads: 2 }), referenceSeconds(cost, { kind: 'blas', threads: 16 })];
    expect(b16).toBeLessThan(b2);
    expect(referenceSeconds(cost, { kind: 'js', threads: 1 })).toBeGreaterThan(10 * b2);
  });
});
