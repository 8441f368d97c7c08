/**
 * GGUF files written by llama.cpp itself (issue 20 point 4): llama_model_quantize turns our F32 engine
 * model into every ftype we can read, with llama.cpp's own per-tensor type choice. Every tensor must
 * decode bit for bit as ggml's own to_float decodes it, and lie within its type's bound of the F32
 * source. Two models: `tiny` (rows of 96/48/32/16: every K-quant falls back to Q5_0/Q8_0/F16/IQ4_NL)
 * and a 256-aligned one (hidden 512, 2 heads, ranks 256: the K-quants and IQ4_XS themselves).
 * Skipped, with a note, when @node-llama-cpp/linux-x64 is not installed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MlaDiffError } from '../../errors';
import type { MlaConfig } from '../../core/model/config';
import { preset } from '../../core/model/presets';
import { SyntheticWeights } from '../../core/weights/synthetic';
import { findLibDir } from './library';
import { writeEngineModel } from './model-gguf';
import type { LlamaFtype, QuantizeResult } from './quantize';
import { LLAMA_FTYPES, quantizeManyWithLlama, quantizeWithLlama } from './quantize';
import { checkQuantized } from './quantize-check';

const installed = (() => {
  try {
    findLibDir('cpu');
    return true;
  } catch {
    return false;
  }
})();
if (!installed) console.warn('quantize.test.ts skipped: llama.cpp is not installed (npm install @node-llama-cpp/linux-x64@3.22.1)');
const maybe = installed ? describe : describe.skip;

/** Dims that are multiples of 256 where llama.cpp's K-quants need them (attn_k_b's rows of 128 still fall back). */
const ALIGNED: MlaConfig = {
  ...preset('tiny'),
  hidden_size: 512,
  num_attention_heads: 2,
  q_lora_rank: 256,
  kv_lora_rank: 256,
  qk_nope_head_dim: 128,
  qk_rope_head_dim: 64,
  v_head_dim: 128,
};

/** The type llama.cpp gives attn_q_a ([256, 512]) in the aligned model: each ftype's own default type. */
const MAIN_TYPE: Record<LlamaFtype, string> = {
  F16: 'F16',
  Q4_0: 'Q4_0',
  Q4_1: 'Q4_1',
  Q8_0: 'Q8_0',
  Q5_0: 'Q5_0',
  Q5_1: 'Q5_1',
  Q2_K: 'Q2_K',
  Q3_K_S: 'Q3_K',
  Q3_K_M: 'Q3_K',
  Q3_K_L: 'Q3_K',
  Q4_K_S: 'Q4_K',
  Q4_K_M: 'Q4_K',
  Q5_K_S: 'Q5_K',
  Q5_K_M: 'Q5_K',
  Q6_K: 'Q6_K',
  IQ4_NL: 'IQ4_NL',
  IQ4_XS: 'IQ4_XS',
  BF16: 'BF16',
};

const FTYPES = Object.keys(LLAMA_FTYPES) as LlamaFtype[];

maybe('llama.cpp-quantized GGUF files', () => {
  let dir: string;
  beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), 'mla-diff-llq-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function quantizeAll(name: string, config: MlaConfig): { f32: string; results: QuantizeResult[] } {
    const f32 = join(dir, `${name}-f32.gguf`);
    writeEngineModel(f32, { source: new SyntheticWeights(config, 7), arch: 'deepseek2', contextLength: 64, kvB: 'split' });
    const targets = FTYPES.map((ftype) => ({ output: join(dir, `${name}-${ftype}.gguf`), ftype }));
    return { f32, results: quantizeManyWithLlama(f32, targets, { ggml: true }) };
  }

  function expectExact(f32: string, r: QuantizeResult): void {
    const checks = checkQuantized(f32, r);
    expect(checks.length).toBe(r.types.size);
    for (const c of checks) {
      const what = `${r.ftype} ${c.name} (${c.type})`;
      expect([what, c.bitMismatches]).toEqual([what, 0]);
      expect([what, c.withinBound, c.maxErrorOverBound]).toEqual([what, true, c.maxErrorOverBound]);
      if (!c.zeroSource && c.type !== 'F32') expect([what, c.maxError > 0]).toEqual([what, true]);
    }
  }

  it('the 256-aligned model: every ftype, K-quants and IQ4_XS themselves, bit for bit as ggml', () => {
    const { f32, results } = quantizeAll('aligned', ALIGNED);
    for (const r of results) {
      expect([r.ftype, r.types.get('blk.0.attn_q_a.weight')]).toEqual([r.ftype, MAIN_TYPE[r.ftype]]);
      expect(r.versions.llama).toBe('0.5.0-dev');
      expectExact(f32, r);
    }
    // llama.cpp's own mix: Q4_K_M keeps output.weight at Q6_K and sends attn_k_b's 128-wide rows to Q5_0.
    const km = results.find((r) => r.ftype === 'Q4_K_M')!;
    expect(km.types.get('output.weight')).toBe('Q6_K');
    expect(km.types.get('blk.0.attn_k_b.weight')).toBe('Q5_0');
    expect(km.types.get('blk.0.attn_norm.weight')).toBe('F32');
  });

  it('the tiny model: rows too short for 256-blocks fall back, still bit for bit as ggml', () => {
    const { f32, results } = quantizeAll('tiny', preset('tiny'));
    for (const r of results) expectExact(f32, r);
    const km = results.find((r) => r.ftype === 'Q4_K_M')!;
    expect(km.types.get('blk.0.attn_q_a.weight')).toBe('Q5_0');
    expect(km.types.get('blk.0.attn_q_b.weight')).toBe('F16');
    expect(km.log).toMatch(/required fallback quantization/);
  });

  it('errors are codes: an input llama.cpp cannot load, an unknown ftype, no library', () => {
    const bad = join(dir, 'not-a-model.gguf');
    writeFileSync(bad, 'not a gguf');
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as MlaDiffError).code;
      }
      return 'no error';
    };
    expect(code(() => quantizeWithLlama(bad, join(dir, 'x.gguf'), 'Q8_0'))).toBe('engine-failed');
    expect(code(() => quantizeWithLlama(bad, join(dir, 'x.gguf'), 'Q9_9' as LlamaFtype))).toBe('invalid-value');
    expect(code(() => quantizeWithLlama(bad, join(dir, 'x.gguf'), 'Q8_0', { libDir: dir }))).toBe('engine-unavailable');
  });
});
