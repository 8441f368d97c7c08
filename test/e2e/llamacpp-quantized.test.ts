import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { preset } from '../../src/core/model/presets';
import { SyntheticWeights } from '../../src/core/weights/synthetic';
import { writeEngineModel } from '../../src/engines/llamacpp/model-gguf';
import { quantizeManyWithLlama } from '../../src/engines/llamacpp/quantize';
import { mla, ROOT, suiteDir } from './cli-helpers';

/**
 * Our paths on weights llama.cpp quantized itself agree with llama.cpp's own run of them: an F32
 * one-layer model (hidden 512, ranks of 256, so the K-quants are not stepped down) quantized by
 * llama_model_quantize to Q8_0 and Q4_K_M; the scenario reads that GGUF as its checkpoint and the
 * engine runs the same layer extracted with its bytes as stored. llama.cpp's CPU products quantize the
 * activations (Q8_0 / Q8_K): a rounding point of its path (docs/llama-cpp.md, "Precision").
 */
jest.setTimeout(300_000);

const HAVE = existsSync(join(ROOT, 'node_modules', '@node-llama-cpp', 'linux-x64', 'bins', 'linux-x64'));
const maybe = HAVE ? describe : describe.skip;

interface Run {
  verdict: string;
  cases: { trace: { external?: { engine?: { activation: string; filled: string[] } }; diffs: { a: string; b: string }[] } }[];
}

const dir = suiteDir();

maybe('llama.cpp-quantized checkpoints', () => {
  beforeAll(() => {
    const dims = { hidden_size: 512, q_lora_rank: 256, kv_lora_rank: 256, qk_nope_head_dim: 64, qk_rope_head_dim: 32, v_head_dim: 64 };
    const c = { ...preset('tiny'), ...dims, num_attention_heads: 2 };
    const f32 = dir.file('f32.gguf');
    writeEngineModel(f32, { source: new SyntheticWeights(c, 5), arch: 'deepseek2', contextLength: 4096, kvB: 'split' });
    quantizeManyWithLlama(f32, [
      { output: dir.file('Q8_0.gguf'), ftype: 'Q8_0' },
      { output: dir.file('Q4_K_M.gguf'), ftype: 'Q4_K_M' },
    ]);
  });

  it.each([
    ['Q8_0', 'q8_0'],
    ['Q4_K_M', 'q8_k'],
  ])('%s: both paths and float64 agree with llama.cpp on the same tensors', async (type, activation) => {
    const yaml =
      `version: 1\nname: q-${type}\nmodel: {}\nweights:\n  gguf: ${dir.file(`${type}.gguf`)}\n  layer: 0\nreference: on\n` +
      'requests: [{ name: chat, steps: [{ prefill: 7 }, { decode: 2 }] }]\nengines: [llama.cpp]\n';
    const r = await mla(['run', dir.write(`q-${type}.yaml`, yaml), '--device', 'wasm', '--format', 'json']);
    expect({ code: r.exitCode, err: r.exitCode ? r.stderr : '' }).toEqual({ code: 0, err: '' });
    const run = JSON.parse(r.stdout) as Run;
    const e = run.cases[0]!.trace.external!.engine!;
    expect(e.activation).toBe(activation);
    expect(e.filled[0]).toContain('as stored');
    expect(run.cases[0]!.trace.diffs.filter((d) => d.a === 'external' && d.b === 'reference').length).toBeGreaterThan(20);
  });

  it('every element of a llama.cpp-quantized weight within its bound of the F32 source (its quantizers clip: bounds widened)', async () => {
    const yaml =
      `version: 1\nname: w-q4km\nmodel: {}\nweights:\n  gguf: ${dir.file('Q4_K_M.gguf')}\n  layer: 0\n` +
      'compare_weights:\n  synthetic: { seed: 5 }\nprompt: { ids: [3, 14, 15, 92, 65] }\nreference: off\n';
    const r = await mla(['run', dir.write('w-q4km.yaml', yaml), '--device', 'wasm', '--format', 'json']);
    expect(r.exitCode).toBe(0);
    const beyond = [...r.stdout.matchAll(/"beyond":\s*(\d+)/g)].map((m) => Number(m[1]));
    expect(beyond.length).toBeGreaterThan(5);
    expect(beyond.every((b) => b === 0)).toBe(true);
  });
});
