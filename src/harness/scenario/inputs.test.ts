import { join } from 'node:path';
import { parseScenario } from './load';
import { checkpointInputs, commandFiles, rawScenarioInputs, scenarioInputs } from './inputs';

describe('scenarioInputs', () => {
  it('a synthetic scenario reads its own file only; with raw YAML, its tolerances file and tokenizer too', () => {
    const yaml = 'name: t\nmodel: {preset: tiny}\nweights: {synthetic: {seed: 1}}\nprompt:\n  ids: [1, 2]\n';
    const s = parseScenario(yaml, '/srv/s/t.yaml');
    expect(scenarioInputs(s)).toEqual(['/srv/s/t.yaml']);
    const raw = { tolerances: { file: 'ratchet.yaml' }, weights: { synthetic: { seed: 1 }, tokenizer: '../tok/tokenizer.json' } };
    expect(scenarioInputs(s, raw)).toEqual([
      '/srv/s/t.yaml',
      '/srv/s/ratchet.yaml',
      '/srv/tok/tokenizer.json',
      '/srv/tok/tokenizer_config.json',
    ]);
  });

  it('every shard of a split GGUF; a safetensors file, index or folder with its config, tokenizer and index', () => {
    expect(checkpointInputs('gguf', '/m/GLM-00002-of-00003.gguf')).toEqual([
      '/m/GLM-00001-of-00003.gguf',
      '/m/GLM-00002-of-00003.gguf',
      '/m/GLM-00003-of-00003.gguf',
    ]);
    expect(checkpointInputs('gguf', '/m/one.gguf')).toEqual(['/m/one.gguf']);
    const beside = (d: string) =>
      ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'model.safetensors.index.json'].map((n) => join(d, n));
    expect(checkpointInputs('safetensors', '/c/model.safetensors')).toEqual(['/c/model.safetensors', ...beside('/c')]);
    expect(checkpointInputs('safetensors', '/c')).toEqual(['/c', ...beside('/c')]);
  });

  it('compare_weights, a trace dump and an external command are read from the scenario folder', () => {
    const raw = {
      weights: { gguf: 'a.gguf' },
      compare_weights: { safetensors: '/abs/ckpt' },
      trace: { file: 'dump.jsonl' },
      external: { command: 'node ../backends/mla.mjs --fast' },
    };
    expect(rawScenarioInputs(raw, '/s')).toEqual([
      '/s/a.gguf',
      '/abs/ckpt',
      '/abs/ckpt/config.json',
      '/abs/ckpt/tokenizer.json',
      '/abs/ckpt/tokenizer_config.json',
      '/abs/ckpt/model.safetensors.index.json',
      '/s/dump.jsonl',
      '/backends/mla.mjs',
    ]);
    expect(commandFiles(`python3 "my backend.py" --x 'b c/d'`, '/w')).toEqual(['/w/my backend.py', '/w/b c/d']);
    expect(rawScenarioInputs('not a mapping', '/s')).toEqual([]);
    expect(rawScenarioInputs({ tolerances: { file: 7 }, weights: null }, '/s')).toEqual([]);
  });
});
