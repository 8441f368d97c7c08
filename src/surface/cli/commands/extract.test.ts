import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { preset } from '../../../core/model/presets';
import { SyntheticWeights } from '../../../core/weights/synthetic';
import { writeGgufCheckpoint } from '../../../checkpoints/checkpoint/write-gguf';
import { handleErrors } from '../io/handle-errors';
import type { IO } from '../io/process-io';
import { extractCommand } from './extract';
import type { ExtractArgs } from './extract';

const c = preset('tiny');
const dir = mkdtempSync(join(tmpdir(), 'extract-cli-'));
const [first] = writeGgufCheckpoint(join(dir, 'big.gguf'), {
  config: c,
  layers: [0, 1].map((s) => new SyntheticWeights(c, s)),
  type: 'Q8_0',
  kvB: 'split',
  shards: 2,
});
const run = async (a: Partial<ExtractArgs>) => {
  const out: string[] = [];
  const err: string[] = [];
  const io: IO = { out: (t) => out.push(t), err: (t) => err.push(t) };
  const args: ExtractArgs = { file: first!, layer: 1, output: join(dir, 'l1.gguf'), force: false, format: 'table', verbose: false, ...a };
  const code = await handleErrors(false, io, () => extractCommand(args, io));
  return { code, out: out.join('\n'), err: err.join('\n') };
};

describe('mla-diff extract', () => {
  it('says what it kept, what it filled in, and what it read', async () => {
    const r = await run({});
    expect(r.code).toBe(0);
    expect(r.out).toContain('blk.0.attn_k_b.weight');
    expect(r.out).toMatch(/token_embd: the source's first 256 of 1000 rows \(Q8_0\)/);
    expect(r.out).toContain('3 split.* keys left out');
  });

  it('--format json is the versioned account; an existing output is exit 2 without --force', async () => {
    const again = await run({ format: 'json' });
    expect(again.code).toBe(2);
    expect(again.err).toContain('[output-exists]');
    const r = await run({ format: 'json', force: true });
    const j = JSON.parse(r.out) as { format: string; kept: unknown[]; bytesRead: { tensors: number } };
    expect([j.format, j.kept.length]).toEqual(['mla-diff/extract', 9]);
    expect(j.bytesRead.tensors).toBeGreaterThan(0);
  });

  it('a layer index that is not one is invalid-value', async () => {
    expect((await run({ layer: 1.5, output: join(dir, 'x.gguf') })).err).toContain('[invalid-value]');
    expect((await run({ layer: 2, output: join(dir, 'x.gguf') })).err).toContain('[invalid-value]');
  });
});
