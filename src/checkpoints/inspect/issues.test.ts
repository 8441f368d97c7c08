import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { smallFixtureConfig } from '../checkpoint/fixtures';
import { kBShape, expectedShape, vBShape } from '../checkpoint/shapes';
import { ggufKB, ggufName, ggufVB } from '../checkpoint/names';
import { writeSafetensors } from '../../formats/safetensors';
import { LAYER_TENSORS } from '../../core/weights/layer';
import { inspectCheckpoint } from '.';
import { mlaMeta, writeF32Gguf, writeLlamaGguf } from './test-utils/checkpoints';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mla-diff-inspect-issues-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const c = { ...smallFixtureConfig(), vocab_size: 16 };

/** Layer 0 of `c` in the split layout, with some shapes replaced. */
function layerTensors(replace: Record<string, number[]> = {}): Record<string, number[]> {
  const out: Record<string, number[]> = { 'token_embd.weight': [16, c.hidden_size] };
  for (const t of LAYER_TENSORS) if (t !== 'kv_b_proj') out[ggufName(0, t)] = expectedShape(c, t);
  out[ggufKB(0)] = kBShape(c);
  out[ggufVB(0)] = vBShape(c);
  return { ...out, ...replace };
}

describe('inspect: models mla-diff cannot run', () => {
  it('a Llama GGUF: the facts, a warning that it is not MLA, no error', () => {
    const p = join(dir, 'llama.gguf');
    writeLlamaGguf(p);
    const r = inspectCheckpoint(p);
    expect(r).toMatchObject({ architecture: 'llama', isMla: false, mla: null, kvB: 'none' });
    expect(r.layers).toEqual({ declared: 2, present: [0, 1], attention: [0, 1] });
    expect(r.attention!.tensors.map((t) => t.short)).toEqual(['attn_norm', 'attn_q', 'attn_k', 'attn_v', 'attn_output']);
    expect(r.issues).toEqual([expect.objectContaining({ severity: 'warning', code: 'checkpoint-invalid', field: 'general.architecture' })]);
    expect(r.tokenizer.present).toBe(false);
  });

  it('an MLA GGUF without kv_lora_rank: no dims, an error issue naming the key', () => {
    const p = join(dir, 'no-rank.gguf');
    writeF32Gguf(p, mlaMeta(c, 1, ['attention.kv_lora_rank']), layerTensors());
    const r = inspectCheckpoint(p);
    expect(r.mla).toBeNull();
    expect(r.issues).toEqual([
      expect.objectContaining({ severity: 'error', code: 'checkpoint-invalid', field: 'deepseek2.attention.kv_lora_rank' }),
    ]);
  });

  it('attn_k_b stored [H, P, L] instead of [H, L, P]: a tensor-shape error for that tensor only', () => {
    const p = join(dir, 'k-b-axis.gguf');
    writeF32Gguf(p, mlaMeta(c, 1), layerTensors({ [ggufKB(0)]: [c.num_attention_heads, c.qk_nope_head_dim, c.kv_lora_rank] }));
    const r = inspectCheckpoint(p);
    expect(r.mla).not.toBeNull();
    expect(r.issues).toEqual([expect.objectContaining({ severity: 'error', code: 'tensor-shape', field: 'attn_k_b' })]);
  });

  it('the right shapes raise no issue', () => {
    const p = join(dir, 'good.gguf');
    writeF32Gguf(p, mlaMeta(c, 1), layerTensors());
    expect(inspectCheckpoint(p).issues).toEqual([]);
  });

  it('safetensors without config.json: the tensors, architecture unknown, a warning; a Llama config.json: not MLA', () => {
    const d = join(dir, 'no-config');
    mkdirSync(d);
    writeSafetensors(
      join(d, 'model.safetensors'),
      [{ name: 'model.layers.0.self_attn.q_proj.weight', dtype: 'F32', shape: [2, 2], data: new Float32Array(4) }],
      {},
      [128, 128],
    );
    const r = inspectCheckpoint(d);
    expect(r).toMatchObject({ architecture: null, isMla: false, mla: null, layers: { declared: null, present: [0], attention: [0] } });
    expect(r.issues).toEqual([expect.objectContaining({ severity: 'warning', code: 'file-not-found' })]);
    writeFileSync(join(d, 'config.json'), JSON.stringify({ model_type: 'llama', num_hidden_layers: 1 }));
    const l = inspectCheckpoint(d);
    expect(l).toMatchObject({ architecture: 'llama', isMla: false, mla: null, layers: { declared: 1 } });
    expect(l.issues).toEqual([expect.objectContaining({ severity: 'warning', code: 'checkpoint-invalid', field: 'model_type' })]);
  });
});
