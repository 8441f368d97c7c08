import { MlaDiffError } from '../../errors';
import { parseScenario } from './load';

const base = 'name: x\nmodel: {preset: tiny}\nprompt: {ids: [1, 2, 3]}\n';
const code = (text: string) => {
  try {
    parseScenario(base + text, 's.yaml');
  } catch (e) {
    return e instanceof MlaDiffError ? e.code : String(e);
  }
  return 'ok';
};

describe('scenario external: and trace:', () => {
  it('reads external: with its defaults and trace: relative to the file', () => {
    const s = parseScenario(
      `${base}external: {command: "python3 b.py", layouts: {lse: "t h"}, names: {attn_output: attn_out}}\n` +
        'expect: {outcome: diverge, culprit: external}\n',
      '/x/y/s.yaml',
    );
    expect(s.external).toEqual({
      command: 'python3 b.py',
      name: 'external',
      timeoutS: 600,
      stages: null,
      layouts: { lse: 't h' },
      names: { attn_output: 'attn_out' },
    });
    expect(s.expect?.culprit).toBe('external');
    expect(parseScenario(`${base}trace: {file: d.jsonl}\n`, '/x/y/s.yaml').trace?.file).toBe('/x/y/d.jsonl');
  });
  it.each([
    ['a layout for an unknown stage', 'external: {command: b, layouts: {attn_output: "t h"}}\n', 'unknown-stage'],
    ['a layout that does not parse', 'external: {command: b, layouts: {lse: "t (h"}}\n', 'invalid-value'],
    ['a name mapped to an unknown stage', 'external: {command: b, names: {x: attn_output}}\n', 'invalid-value'],
    ['both external: and trace:', 'external: {command: b}\ntrace: {file: d.jsonl}\n', 'invalid-value'],
    ['an unknown key', 'external: {comand: b}\n', 'unknown-key'],
    ['a negative timeout', 'external: {command: b, timeout_s: -1}\n', 'invalid-value'],
  ])('%s → %s', (_what, text, want) => expect(code(text)).toBe(want));
});
