import { mla, ROOT } from './cli-helpers';
import { join } from 'node:path';

/** scenarios/tokenizer-synthetic.yaml: prompt text through the shipped tokenizer.json on synthetic weights. */
describe('a text prompt with a tokenizer.json on synthetic weights', () => {
  test('meets its outcome; the report holds the ids, bos and each id’s text', async () => {
    const r = await mla(['run', join(ROOT, 'scenarios', 'tokenizer-synthetic.yaml'), '--format', 'json']);
    expect(r.exitCode).toBe(0);
    const report = JSON.parse(r.stdout) as {
      outcome: string;
      scenario: { bos: string; tokens: string[]; tokenizer: string; config: { vocab_size: number }; requests: { ids: number[] }[] };
    };
    expect(report.outcome).toBe('pass');
    const s = report.scenario;
    expect(s.bos).toBe('true');
    expect(s.config.vocab_size).toBe(393);
    expect(s.tokenizer).toMatch(/tiny-bpe[/\\]tokenizer\.json\)$/);
    expect(s.requests[0]!.ids.slice(0, 3)).toEqual([392, 264, 284]);
    expect(s.tokens.slice(0, 3)).toEqual(['<|endoftext|>', 'The', ' capital']);
    expect(s.tokens).toHaveLength(s.requests[0]!.ids.length);
    expect(s.tokens.slice(-4).join('')).toBe('<0xF0><0x9F><0x99><0x82>'); // 🙂 is not in the 393 tokens: its bytes
  }, 120_000);
});
