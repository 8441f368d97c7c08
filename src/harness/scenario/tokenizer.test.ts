import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fixtureTokenizer, writeFixtures } from '../../checkpoints/checkpoint/fixtures';
import { loadScenario } from './load';

const SHIPPED = resolve(__dirname, '../../../scenarios/tokenizers/tiny-bpe');
const dir = mkdtempSync(join(tmpdir(), 'mla-diff-scn-tok-'));
beforeAll(() => {
  writeFixtures(join(dir, 'ck'));
  cpSync(join(SHIPPED, 'tokenizer.json'), join(dir, 'bare', 'tokenizer.json'), { recursive: true }); // no tokenizer_config.json
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Loads a scenario written beside the fixtures (paths in it are relative to it). */
function load(yaml: string) {
  const file = join(dir, 'scenario.yaml');
  writeFileSync(file, `name: t\n${yaml}\n`);
  return loadScenario(file);
}
const err = (yaml: string, code: string, field: string) =>
  expect(() => load(yaml)).toThrow(expect.objectContaining({ code, where: expect.objectContaining({ field }) }));
const TEXT = 'The capital of France is';
const synthetic = (tokenizer: string, prompt = `{text: ${TEXT}}`, model = '{preset: tiny}') =>
  `model: ${model}\nweights: {synthetic: {seed: 3}, tokenizer: ${tokenizer}}\nprompt: ${prompt}`;

describe('a tokenizer with synthetic weights', () => {
  test('the shipped tiny-bpe tokenizer is the fixture tokenizer (393 tokens, BOS <|endoftext|> not added)', () => {
    const t = fixtureTokenizer();
    expect(JSON.parse(readFileSync(join(SHIPPED, 'tokenizer.json'), 'utf8'))).toEqual(t.tokenizerJson);
    expect(JSON.parse(readFileSync(join(SHIPPED, 'tokenizer_config.json'), 'utf8'))).toEqual(t.tokenizerConfig);
  });

  test("tokenizer.json: ids are rows of the synthetic embedding, vocab_size the tokenizer's; tokens recorded", () => {
    const s = load(synthetic('ck/tiny-bf16/tokenizer.json'));
    expect(s.weights.kind).toBe('synthetic');
    expect(s.config.vocab_size).toBe(393);
    expect(s.tokenizer).toMatch(/^tokenizer\.json \(/);
    expect(s.bos).toBe('auto');
    const ids = s.requests[0]!.ids;
    expect(ids.length).toBeLessThan(TEXT.length);
    expect(s.tokens).toHaveLength(ids.length);
    expect(s.tokens!.join('')).toBe(TEXT);
    // the checkpoint of the same vocabulary tokenizes the same
    expect(load(`model: {}\nweights: {safetensors: ck/tiny-bf16}\nprompt: {text: ${TEXT}}`).requests[0]!.ids).toEqual(ids);
  });

  test("a .gguf's vocabulary as the tokenizer gives the same ids", () => {
    const a = load(synthetic('ck/tiny-bf16/tokenizer.json'));
    const b = load(synthetic('ck/tiny-q8_0.gguf'));
    expect(b.tokenizer).toMatch(/^GGUF vocabulary \(/);
    expect(b.requests[0]!.ids).toEqual(a.requests[0]!.ids);
    expect(b.config.vocab_size).toBe(393);
  });

  test('bos: true puts the named BOS in front, false and auto (this vocabulary adds none) do not', () => {
    const auto = load(synthetic('ck/tiny-bf16/tokenizer.json')).requests[0]!.ids;
    const on = load(synthetic('ck/tiny-bf16/tokenizer.json', `{text: ${TEXT}, bos: true}`));
    expect(on.requests[0]!.ids).toEqual([392, ...auto]);
    expect([on.bos, on.tokens![0]]).toEqual(['true', '<|endoftext|>']);
    expect(load(synthetic('ck/tiny-bf16/tokenizer.json', `{text: ${TEXT}, bos: false}`)).requests[0]!.ids).toEqual(auto);
    expect(load(synthetic('ck/tiny-q8_0.gguf', `{text: ${TEXT}, bos: "true"}`)).requests[0]!.ids).toEqual([392, ...auto]);
  });

  test("a vocab_size: below the tokenizer's is invalid-value at model.vocab_size; one above it is kept", () => {
    err(synthetic('ck/tiny-bf16/tokenizer.json', undefined, '{preset: tiny, vocab_size: 300}'), 'invalid-value', 'model.vocab_size');
    expect(load(synthetic('ck/tiny-bf16/tokenizer.json', undefined, '{preset: tiny, vocab_size: 4096}')).config.vocab_size).toBe(4096);
  });

  test('bad bos: values, bos: with ids, bos: true without a BOS, a missing tokenizer file', () => {
    err(synthetic('ck/tiny-bf16/tokenizer.json', `{text: ${TEXT}, bos: yes}`), 'invalid-value', 'prompt.bos');
    err(synthetic('ck/tiny-bf16/tokenizer.json', `{text: ${TEXT}, bos: 1}`), 'invalid-value', 'prompt.bos');
    err(synthetic('ck/tiny-bf16/tokenizer.json', '{ids: [1, 2], bos: true}'), 'invalid-value', 'prompt.bos');
    err(synthetic('bare/tokenizer.json', `{text: ${TEXT}, bos: true}`), 'invalid-value', 'prompt.bos');
    expect(load(synthetic('bare/tokenizer.json', `{text: ${TEXT}, bos: false}`)).requests[0]!.ids.length).toBeGreaterThan(0);
    err(synthetic('ck/nope/tokenizer.json'), 'file-not-found', 'weights.tokenizer');
  });

  test('without a tokenizer, ids are taken as given and the preset keeps its vocabulary', () => {
    const s = load('model: {preset: tiny}\nweights: {synthetic: {seed: 3}}\nprompt: {ids: [999]}');
    expect([s.config.vocab_size, s.tokens, s.bos]).toEqual([1000, undefined, undefined]);
  });
});
