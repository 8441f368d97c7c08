import { closeSync, ftruncateSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MlaDiffError } from '../../errors';
import { tokenizerFromJson } from './from-json';
import { TOKENIZER_LIMITS } from './limits';
import { fixtureBpe } from './test-utils/fixtures';

/**
 * Regression tests of the tokenizer fuzz campaign (issue 23): each malformed tokenizer.json or tokenizer_config.json is one
 * coded error naming the file and the JSON path, never a crash inside the tokenizer library, a hang, or `undefined`.
 */
type Json = Record<string, unknown>;

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mla-diff-tokenizer-hostile-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const base = (): Json => JSON.parse(JSON.stringify(fixtureBpe().tokenizerJson)) as Json;
const model = (j: Json) => j.model as Json;

/** Loads `json` (with `config` as tokenizer_config.json when given); returns the error it throws. */
function failure(json: Json | string, config?: Json): MlaDiffError {
  const path = join(dir, 'tokenizer.json');
  writeFileSync(path, typeof json === 'string' ? json : JSON.stringify(json));
  rmSync(join(dir, 'tokenizer_config.json'), { force: true });
  if (config) writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify(config));
  try {
    tokenizerFromJson(path).encode('The capital of France is');
  } catch (e) {
    if (!(e instanceof MlaDiffError)) throw e;
    expect(`${e.message} ${e.hint ?? ''}`).not.toMatch(/undefined/);
    return e;
  }
  throw new Error('expected it to be refused');
}

const at = (code: string, field: string, file = 'tokenizer.json') =>
  expect.objectContaining({ code, where: { file: join(dir, file), field } });

describe('tokenizer.json components the library would crash on are tokenizer-invalid at their JSON path', () => {
  const cases: Array<[string, (j: Json) => void]> = [
    // the campaign's TypeError "Cannot use 'in' operator ... post_process": template items that are not objects
    ['post_processor.single[0]', (j) => (j.post_processor = { type: 'TemplateProcessing', single: ['x'], pair: [] })],
    ['post_processor.single', (j) => (j.post_processor = { type: 'TemplateProcessing', single: 3 })],
    ['post_processor.single[0]', (j) => (j.post_processor = { type: 'TemplateProcessing', single: [{ SpecialToken: {} }] })],
    [
      'post_processor.single[0].SpecialToken.id',
      (j) => (j.post_processor = { type: 'TemplateProcessing', single: [{ SpecialToken: { id: '<nope>', type_id: 0 } }] }),
    ],
    [
      'post_processor.single[0].Sequence.id',
      (j) => (j.post_processor = { type: 'TemplateProcessing', single: [{ Sequence: { id: 'B', type_id: 0 } }] }),
    ],
    ['post_processor.cls', (j) => (j.post_processor = { type: 'BertProcessing', sep: ['<|endoftext|>', 400] })],
    ['post_processor.processors[0]', (j) => (j.post_processor = { type: 'Sequence', processors: [null] })],
    // "Unknown PreTokenizer type: undefined"
    ['pre_tokenizer.type', (j) => (j.pre_tokenizer = {})],
    ['pre_tokenizer.type', (j) => (j.pre_tokenizer = { type: 'UnicodeScripts' })],
    ['pre_tokenizer', (j) => (j.pre_tokenizer = 'ByteLevel')],
    ['pre_tokenizer.pretokenizers[1].pattern.Regex', (j) => (j.pre_tokenizer = seq([{ type: 'Whitespace' }, split(5)]))],
    ['pre_tokenizer.pattern', (j) => (j.pre_tokenizer = { type: 'Split', pattern: {}, behavior: 'Isolated' })],
    ['pre_tokenizer.behavior', (j) => (j.pre_tokenizer = { ...split('a'), behavior: 'Sideways' })],
    ['normalizer', (j) => (j.normalizer = 3)],
    ['normalizer.prepend', (j) => (j.normalizer = { type: 'Prepend' })],
    ['decoder.decoders[0]', (j) => (j.decoder = { type: 'Sequence', decoders: [null] })],
    ['decoder.start', (j) => (j.decoder = { type: 'Strip', content: ' ', start: -1 })],
    ['model', (j) => (j.model = [])],
    ['model.type', (j) => (model(j).type = 'WordLevel')],
    ['model.vocab', (j) => (model(j).vocab = ['a'])],
    ['model.vocab.a', (j) => (model(j).vocab = { ...(model(j).vocab as Json), a: 'one' })],
    ['model.vocab.a', (j) => (model(j).vocab = { ...(model(j).vocab as Json), a: -1 })],
    ['model.vocab.a', (j) => (model(j).vocab = { ...(model(j).vocab as Json), a: 1.5 })],
    ['model.merges', (j) => (model(j).merges = 'a b')],
    ['model.merges[0]', (j) => (model(j).merges = [3])],
    ['model.merges[1]', (j) => (model(j).merges = [['a', 'b'], 'a b'])],
    ['model.merges[0]', (j) => (model(j).merges = ['ab'])],
    ['model.unk_token', (j) => (model(j).unk_token = '<unk>')],
    ['model.byte_fallback', (j) => (model(j).byte_fallback = 'yes')],
    ['added_tokens', (j) => (j.added_tokens = 3)],
    ['added_tokens[0].id', (j) => (j.added_tokens = [{ content: '<x>' }])],
    ['added_tokens[0].content', (j) => (j.added_tokens = [{ id: 3, content: '' }])],
    ['added_tokens[0].special', (j) => (j.added_tokens = [{ id: 3, content: '<x>', special: 'no' }])],
  ];
  test.each(cases)('%s', (field, mutate) => {
    const j = base();
    mutate(j);
    expect(failure(j)).toEqual(at('tokenizer-invalid', field));
  });

  test('a WordPiece or Unigram model with malformed fields too', () => {
    const wp = { model: { type: 'WordPiece', vocab: { a: 0 }, max_input_chars_per_word: 1e9 } };
    expect(failure(wp)).toEqual(at('limit-exceeded', 'model.max_input_chars_per_word'));
    expect(failure({ model: { type: 'Unigram', vocab: [] } })).toEqual(at('tokenizer-invalid', 'model.vocab'));
    expect(failure({ model: { type: 'Unigram', vocab: [['a', 'x']] } })).toEqual(at('tokenizer-invalid', 'model.vocab[0][1]'));
    expect(failure({ model: { type: 'Unigram', vocab: [['a', -1]], unk_id: 4 } })).toEqual(at('tokenizer-invalid', 'model.unk_id'));
  });
});

const split = (regex: unknown) => ({ type: 'Split', pattern: { Regex: regex }, behavior: 'Isolated', invert: false });
const seq = (pretokenizers: unknown[]) => ({ type: 'Sequence', pretokenizers });

describe('sizes and ids are bounded before anything is built from them', () => {
  test('a vocab id of 3e9 is limit-exceeded at once (it hung: the library loops to the highest id)', () => {
    const j = base();
    model(j).vocab = { ...(model(j).vocab as Json), huge: 3e9 };
    const t0 = Date.now();
    expect(failure(j)).toEqual(at('limit-exceeded', 'model.vocab.huge'));
    expect(Date.now() - t0).toBeLessThan(5000);
    const k = base();
    k.added_tokens = [{ id: 2 ** 31, content: '<big>', special: true }];
    expect(failure(k)).toEqual(at('limit-exceeded', 'added_tokens[0].id'));
  });

  test('loops the library would never leave are refused: FixedLength of 0, a regex that backtracks exponentially', () => {
    const j = base();
    j.pre_tokenizer = { type: 'FixedLength', length: 0 };
    expect(failure(j)).toEqual(at('tokenizer-invalid', 'pre_tokenizer.length'));
    j.pre_tokenizer = seq([split('(a+)+$')]);
    expect(failure(j)).toEqual(at('tokenizer-invalid', 'pre_tokenizer.pretokenizers[0].pattern.Regex'));
  });

  test('Sequences nested too deep are limit-exceeded', () => {
    let p: object = { type: 'Whitespace' };
    for (let i = 0; i < 20; i++) p = seq([p]);
    const j = base();
    j.pre_tokenizer = p;
    expect(failure(j).code).toBe('limit-exceeded');
  });

  test('a tokenizer.json over the file bound is limit-exceeded before it is read', () => {
    const path = join(dir, 'big', 'tokenizer.json');
    rmSync(join(dir, 'big'), { recursive: true, force: true });
    mkdirSync(join(dir, 'big'));
    const fd = openSync(path, 'w');
    ftruncateSync(fd, TOKENIZER_LIMITS.fileBytes + 1); // sparse: nothing is written
    closeSync(fd);
    expect(() => tokenizerFromJson(path)).toThrow(expect.objectContaining({ code: 'limit-exceeded', where: { file: path } }));
  });

  test('a text longer than the bound is limit-exceeded, not encoded', () => {
    const path = join(dir, 'tokenizer.json');
    writeFileSync(path, JSON.stringify(base()));
    rmSync(join(dir, 'tokenizer_config.json'), { force: true });
    const tok = tokenizerFromJson(path);
    expect(() => tok.encode('a'.repeat(TOKENIZER_LIMITS.textChars + 1))).toThrow(expect.objectContaining({ code: 'limit-exceeded' }));
  });
});

describe('tokenizer_config.json fields of the wrong type are tokenizer-invalid at the field', () => {
  const cases: Array<[string, Json]> = [
    ['bos_token', { bos_token: 5 }],
    ['bos_token', { bos_token: ['<|endoftext|>'] }],
    ['bos_token', { bos_token: { content: 3 } }],
    ['eos_token', { eos_token: true }],
    ['add_bos_token', { add_bos_token: 'yes' }],
    ['add_eos_token', { add_eos_token: 1 }],
    ['additional_special_tokens', { additional_special_tokens: 'x' }],
  ];
  test.each(cases)('%s', (field, config) => {
    expect(failure(base(), config)).toEqual(at('tokenizer-invalid', field, 'tokenizer_config.json'));
  });

  test("LlamaTokenizerFast's BOS missing from the vocabulary is the config's bos_token", () => {
    const config = { tokenizer_class: 'LlamaTokenizerFast', bos_token: '<s>', add_bos_token: true };
    expect(failure(base(), config)).toEqual(at('tokenizer-invalid', 'bos_token', 'tokenizer_config.json'));
  });
});
