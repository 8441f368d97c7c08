import { listLayout, wrapWords } from './list-layout';
import { PLAIN } from './style';
import { visibleWidth } from './visible-width';

describe('wrapWords', () => {
  it('breaks on spaces into lines of at most the width, continuation lines indented', () => {
    const lines = wrapWords('the split-KV combine uses exp2/log2 on natural-log split LSEs', 24, 4);
    expect(lines.every((l) => visibleWidth(l) <= 24)).toBe(true);
    expect(lines.slice(1).every((l) => l.startsWith('    ') && !l.startsWith('     '))).toBe(true);
    expect(lines.map((l) => l.trim()).join(' ')).toBe('the split-KV combine uses exp2/log2 on natural-log split LSEs');
  });

  it('keeps the spaces within a line: padding and leading indentation', () => {
    expect(wrapWords('format       GGUF v3', 80)).toEqual(['format       GGUF v3']);
    expect(wrapWords('  layers 0–3: a', 80)).toEqual(['  layers 0–3: a']);
  });

  it('elides a word longer than a line with …', () => {
    const [a, b] = wrapWords('x kv_b_proj.weight.T.view(L,N,P+V)', 12);
    expect(a).toBe('x');
    expect(b).toBe('kv_b_proj.w…');
  });

  it('text that fits is one line, unchanged', () => {
    expect(wrapWords('ok', 10)).toEqual(['ok']);
    expect(wrapWords('', 10)).toEqual(['']);
  });
});

describe('listLayout', () => {
  const head = ['fault', 'paths', 'enters at', 'models'];
  const rows = [['rope-neox', 'mha,mqa', 'q_pe', 'NeoX split-half RoPE instead of GPT-J interleaved pairs — upstream#1']];

  it('one block per row: the name with its short cells, then each prose column wrapped', () => {
    const out = listLayout(head, rows, [3], 44, PLAIN).split('\n');
    expect(out[0]).toBe('rope-neox · paths mha,mqa · enters at q_pe');
    expect(out[1]).toMatch(/^ {2}models: NeoX/);
    expect(out.slice(2).every((l) => l.startsWith('    '))).toBe(true);
    expect(out.every((l) => visibleWidth(l) <= 44)).toBe(true);
  });

  it('the short cells wrap too, continuation lines indented by four', () => {
    const out = listLayout(head, rows, [3], 40, PLAIN).split('\n');
    expect(out.slice(0, 2)).toEqual(['rope-neox · paths mha,mqa · enters at', '    q_pe']);
  });

  it('a blank line between blocks; a row of one cell (a group line) as it is', () => {
    const out = listLayout(head, [['── attention'], ...rows, ...rows], [3], 200, PLAIN);
    expect(out.split('\n\n')).toHaveLength(3);
    expect(out.startsWith('── attention\n\n')).toBe(true);
  });
});
