import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFixtures } from '../../checkpoints/checkpoint/fixtures';
import { inspectCheckpoint } from '../../checkpoints/inspect';
import type { InspectReport } from '../../checkpoints/inspect';
import { writeLlamaGguf } from '../../checkpoints/inspect/test-utils/checkpoints';
import { formatBytes, renderInspect } from './inspect';
import { PLAIN, makeStyle } from './style';

let dir: string;
let tiny: InspectReport;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mla-diff-inspect-report-'));
  writeFixtures(join(dir, 'fx'));
  tiny = inspectCheckpoint(join(dir, 'fx', 'tiny-q8_0.gguf'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const lines = (text: string) => text.split('\n');

describe('renderInspect (table)', () => {
  it('the facts of tiny-q8_0: container, architecture, dims, kv_b, layers, tokenizer', () => {
    const out = renderInspect(tiny, 'table', PLAIN);
    expect(out).not.toMatch(/\u001b\[/);
    expect(lines(out)).toEqual(
      expect.arrayContaining([
        'format       GGUF v3, alignment 32, 27 metadata keys, 19 tensors',
        'architecture deepseek2 (MLA)',
        'layers       2 declared; 2 with attention tensors: 0–1',
        'tokenizer    GGUF metadata: gpt2, pre gpt-2; 393 tokens, 136 merges',
        '  hidden 96 · heads 4 · q_lora_rank 48 · kv_lora_rank 32',
        '  qk_nope 16 · qk_rope 8 · v_head_dim 12 · qk_head_dim 24 · latent L+R 32+8 = 40',
      ]),
    );
    expect(out).toMatch(/^kv_b {9}split: attn_k_b \[H, L, P\]/m);
    expect(out).toMatch(/^ {2}softmax scale 0\.2041 \(24\^-0\.5\) · rope theta 10000, interleaved pairs, no scaling$/m);
    expect(out).toMatch(/│ blk\.0\.attn_k_b\.weight\s+│ F16\s+│ \[4, 32, 16\]\s+│ 4\.0 KiB\s+│/);
    expect(lines(out)).toContain(
      '  layers 0–1: attn_norm F32, attn_q_a Q8_0, attn_q_a_norm F32, attn_q_b F16, attn_kv_a_mqa Q8_0, ' +
        'attn_kv_a_norm F32, attn_k_b F16, attn_v_b Q8_0, attn_output F16',
    );
  });

  it('a pattern line shows shapes only where they differ from the tabulated layer', () => {
    const r: InspectReport = {
      ...tiny,
      patterns: [
        ...tiny.patterns,
        {
          layers: [5, 6, 7, 9],
          tensors: [
            { short: 'attn_k_b', type: 'Q4_K', shape: [4, 16, 32] },
            { short: 'attn_v_b', type: 'Q8_0', shape: [4, 12, 32] },
          ],
        },
      ],
    };
    expect(lines(renderInspect(r, 'table', PLAIN))).toContain('  layers 5–7, 9: attn_k_b Q4_K [4, 16, 32], attn_v_b Q8_0');
  });

  it('FP8 scales fold into their weight in the pattern line', () => {
    const r = inspectCheckpoint(join(dir, 'fx', 'small-fp8'));
    const out = renderInspect(r, 'table', PLAIN);
    expect(out).toContain('  layers 0–1: input_layernorm BF16, q_a_proj F8_E4M3 (+scale_inv), q_a_layernorm BF16,');
    expect(out).toContain('FP8 block scales 128×128');
    expect(out).toMatch(/^files {8}2 files, /m);
  });

  it('--layer adds the weights table with each record', () => {
    const r = inspectCheckpoint(join(dir, 'fx', 'tiny-q8_0.gguf'), { layer: 1 });
    const out = renderInspect(r, 'table', PLAIN);
    expect(out).toContain('layer 1 weights');
    for (const x of r.weights!.records) expect(out).toMatch(new RegExp(`│ ${x.name}\\s+│.*│ ${x.checksum} │`));
  });

  it('a model that is not MLA says so and carries the warning', () => {
    const p = join(dir, 'llama.gguf');
    writeLlamaGguf(p);
    const out = renderInspect(inspectCheckpoint(p), 'table', PLAIN);
    expect(out).toContain('architecture llama (not MLA)');
    expect(out).toMatch(/^warning \[checkpoint-invalid\] .*general\.architecture: /m);
    expect(out).not.toContain('MLA dims');
  });

  it('colour only when the style has it', () => {
    expect(renderInspect(tiny, 'table', makeStyle(true))).toMatch(/\u001b\[/);
  });
});

describe('renderInspect (json) and formatBytes', () => {
  it('json is the report as is', () => {
    expect(JSON.parse(renderInspect(tiny, 'json', PLAIN))).toEqual(tiny);
  });

  it('formatBytes', () => {
    expect([0, 1023, 1024, 117_600, 3 * 2 ** 30, 400e9].map(formatBytes)).toEqual([
      '0 B',
      '1023 B',
      '1.0 KiB',
      '114.8 KiB',
      '3.0 GiB',
      '372.5 GiB',
    ]);
  });
});
