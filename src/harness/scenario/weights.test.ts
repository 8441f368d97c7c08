import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFixtures } from '../../checkpoints/checkpoint/fixtures';
import { loadScenario } from './load';

const dir = mkdtempSync(join(tmpdir(), 'mla-diff-scn-'));
beforeAll(() => writeFixtures(join(dir, 'ck')));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes a scenario beside the fixtures and loads it (paths in it are relative to it). */
function load(yaml: string) {
  const file = join(dir, 'scenario.yaml');
  writeFileSync(file, `name: w\n${yaml}\n`);
  return loadScenario(file);
}
const err = (yaml: string, code: string, field: string, line?: number) =>
  expect(() => load(yaml)).toThrow(expect.objectContaining({ code, where: expect.objectContaining({ field, ...(line ? { line } : {}) }) }));

describe('weights: from checkpoints', () => {
  it('a GGUF brings its config and its vocabulary; the prompt text is tokenized with it', () => {
    const s = load('model: {}\nweights: {gguf: ck/tiny-q8_0.gguf, layer: 1}\nprompt: {text: The capital of France is}');
    expect(s.weights).toEqual({ kind: 'gguf', file: join(dir, 'ck/tiny-q8_0.gguf'), layer: 1, overrides: {} });
    expect(s.config.hidden_size).toBe(96);
    expect(s.tokenizer).toMatch(/GGUF/);
    const ids = s.requests[0]!.ids;
    expect(ids.length).toBeGreaterThan(0);
    expect(ids.length).toBeLessThan('The capital of France is'.length); // merges, not bytes
    // the same text through the tokenizer.json of the safetensors checkpoint of the same vocabulary
    const t = load('model: {}\nweights: {safetensors: ck/tiny-bf16}\nprompt: {text: The capital of France is}');
    expect(t.requests[0]!.ids).toEqual(ids);
    expect(t.tokenizer).toMatch(/tokenizer\.json/);
  });
  it('model: fields override the checkpoint config', () => {
    expect(load('model: {rope_theta: 50000}\nweights: {gguf: ck/tiny-q8_0.gguf}\nprompt: {ids: [1, 2]}').config.rope_theta).toBe(50000);
  });
  it('a missing checkpoint is reported at its line, with the fixtures hint', () => {
    err('model: {}\nweights:\n  gguf: ck/nope.gguf\nprompt: {ids: [1]}', 'file-not-found', 'weights.gguf', 4);
  });
  it('preset: with a checkpoint, two sources at once, no preset for synthetic weights', () => {
    err('model: {preset: tiny}\nweights: {gguf: ck/tiny-q8_0.gguf}\nprompt: {ids: [1]}', 'invalid-value', 'model.preset');
    err('model: {}\nweights: {gguf: ck/tiny-q8_0.gguf, safetensors: ck/tiny-bf16}\nprompt: {ids: [1]}', 'invalid-value', 'weights');
    err('model: {}\nprompt: {ids: [1]}', 'invalid-type', 'model.preset');
  });
  it('prompt text without a tokenizer; a loader fault on safetensors; layer: on synthetic weights', () => {
    err('model: {preset: tiny}\nprompt: {text: hello}', 'invalid-value', 'prompt.text');
    err(
      'model: {}\nweights: {safetensors: ck/tiny-bf16, loader_fault: k-b-wrong-axis}\nprompt: {ids: [1]}',
      'invalid-value',
      'weights.loader_fault',
    );
    err('model: {preset: tiny}\nweights: {synthetic: {seed: 0}, layer: 2}\nprompt: {ids: [1]}', 'invalid-value', 'weights.layer');
  });
  it('compare_weights must be the same model; expect.weights needs compare_weights', () => {
    err(
      'model: {}\nweights: {gguf: ck/tiny-q8_0.gguf}\ncompare_weights: {safetensors: ck/small-fp8}\nprompt: {ids: [1]}',
      'invalid-value',
      'compare_weights',
    );
    err(
      'model: {}\nweights: {gguf: ck/tiny-q8_0.gguf}\nprompt: {ids: [1]}\nexpect: {outcome: agree, weights: {outcome: agree}}',
      'invalid-value',
      'expect.weights',
    );
    const s = load('model: {}\nweights: {gguf: ck/tiny-q8_0.gguf}\ncompare_weights: {synthetic: {seed: 0}}\nprompt: {ids: [1]}');
    expect(s.compareWeights).toEqual({ kind: 'synthetic', config: s.config, seed: 0 });
  });
  it("a corrupt checkpoint fails with the reader's code, naming the checkpoint file", () => {
    const bad = join(dir, 'ck', 'garbage.gguf');
    writeFileSync(bad, 'GGUF but not really');
    expect(() => load('model: {}\nweights: {gguf: ck/garbage.gguf}\nprompt: {ids: [1]}')).toThrow(
      expect.objectContaining({ where: expect.objectContaining({ file: bad }) }),
    );
  });
});

describe('weights: hostile safetensors checkpoints (issue 23, fuzz findings)', () => {
  it('no config.json beside the safetensors: file-not-found at weights.safetensors, at its line', () => {
    mkdirSync(join(dir, 'bare'), { recursive: true });
    copyFileSync(join(dir, 'ck', 'tiny-bf16', 'model.safetensors'), join(dir, 'bare', 'model.safetensors'));
    err('model: {}\nweights: {safetensors: bare/model.safetensors}\nprompt: {ids: [1]}', 'file-not-found', 'weights.safetensors', 3);
  });

  it('a FIFO named config.json: file-unreadable naming it, never read', () => {
    mkdirSync(join(dir, 'fifo'), { recursive: true });
    copyFileSync(join(dir, 'ck', 'tiny-bf16', 'model.safetensors'), join(dir, 'fifo', 'model.safetensors'));
    execFileSync('mkfifo', [join(dir, 'fifo', 'config.json')]);
    expect(() => load('model: {}\nweights: {safetensors: fifo/model.safetensors}\nprompt: {ids: [1]}')).toThrow(
      expect.objectContaining({ code: 'file-unreadable', where: expect.objectContaining({ file: join(dir, 'fifo', 'config.json') }) }),
    );
  });

  it.each([[[0, 128]], [[128]], ['128x128'], [[1.5, 128]]])('weight_block_size %p: invalid-value naming config.json and the field', (b) => {
    const ck = join(dir, 'block');
    mkdirSync(ck, { recursive: true });
    for (const f of ['model.safetensors.index.json', ...shards()]) copyFileSync(join(dir, 'ck', 'small-fp8', f), join(ck, f));
    const cfg = JSON.parse(readFileSync(join(dir, 'ck', 'small-fp8', 'config.json'), 'utf8')) as { quantization_config: object };
    cfg.quantization_config = { ...cfg.quantization_config, weight_block_size: b };
    writeFileSync(join(ck, 'config.json'), JSON.stringify(cfg));
    expect(() => load('model: {}\nweights: {safetensors: block}\nprompt: {ids: [1]}')).toThrow(
      expect.objectContaining({
        code: 'invalid-value',
        where: expect.objectContaining({ file: join(ck, 'config.json'), field: 'quantization_config.weight_block_size' }),
      }),
    );
  });
});

/** The shard files of the small-fp8 fixture, from its index. */
function shards(): string[] {
  const index = JSON.parse(readFileSync(join(dir, 'ck', 'small-fp8', 'model.safetensors.index.json'), 'utf8')) as {
    weight_map: Record<string, string>;
  };
  return [...new Set(Object.values(index.weight_map))];
}
