import { ERROR_TAIL, escapeControl, stderrTail, TailBuffer } from './stderr-tail';

/** A raw control character a terminal acts on (newline aside), a C1 control, a bidi override or a lone surrogate. */
const RAW =
  /[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe('escapeControl', () => {
  it('writes ESC, CR, tab, NUL, DEL, C1, bidi overrides and lone surrogates visibly; keeps newlines, text and pairs', () => {
    expect(escapeControl('\x1b[31mred\x1b[0m')).toBe('\\x1b[31mred\\x1b[0m');
    expect(escapeControl('a\rb\tc\x00d\x7fe')).toBe('a\\rb\\tc\\x00d\\x7fe');
    expect(escapeControl('\u009b2J \u202eevil')).toBe('\\u009b2J \\u202eevil');
    expect(escapeControl('x\ud800y\udc00')).toBe('x\\ud800y\\udc00');
    expect(escapeControl('ok: 😀 é ü 漢\nnext')).toBe('ok: 😀 é ü 漢\nnext');
  });

  it('leaves nothing raw over every code unit', () => {
    const every = String.fromCharCode(...Array.from({ length: 0x10000 }, (_, i) => i));
    expect(RAW.test(escapeControl(every).replace(/\n/g, ''))).toBe(false);
  });
});

describe('stderrTail', () => {
  it('quotes the last lines, says how many came before, and is empty for blank output', () => {
    const text = Array.from({ length: 40 }, (_, i) => `line ${i}`).join('\n');
    const t = stderrTail(`${text}\n\n`).split('\n');
    expect(t[0]).toBe('… (25 earlier lines not shown)');
    expect(t.slice(1)).toEqual(Array.from({ length: 15 }, (_, i) => `line ${25 + i}`));
    expect(stderrTail('   \n\n')).toBe('');
    expect(stderrTail('one')).toBe('one');
  });

  it('cuts a 10 MB line to its first characters and says how many bytes went; 4 KB in all', () => {
    const huge = `\x1b[1m${'x'.repeat(10 << 20)}`;
    const t = stderrTail(`start\n${huge}\nend`);
    expect(Buffer.byteLength(t)).toBeLessThanOrEqual(ERROR_TAIL.bytes + 200);
    expect(t).toMatch(/^start\n\\x1b\[1mx+… \(\d+ bytes cut\)\nend$/);
    expect(t).not.toContain('\x1b');
  });

  it('keeps the byte bound with many long lines of wide characters', () => {
    const t = stderrTail(Array.from({ length: 100 }, () => '漢'.repeat(2000)).join('\n'));
    expect(Buffer.byteLength(t)).toBeLessThanOrEqual(ERROR_TAIL.bytes + 200);
    expect(t.split('\n').length).toBeGreaterThan(1);
    expect(t.startsWith('… (')).toBe(true);
  });

  it('cuts one line alone further when it still exceeds the byte budget, never inside a surrogate pair', () => {
    const t = stderrTail('😀'.repeat(1000), { lines: 3, lineChars: 900, bytes: 200 });
    expect(Buffer.byteLength(t)).toBeLessThan(300);
    expect(RAW.test(t)).toBe(false);
  });

  it('says earlier output was dropped when the buffer let bytes go', () => {
    expect(stderrTail('last words', ERROR_TAIL, 12345)).toBe('… (earlier output not shown)\nlast words');
  });
});

describe('TailBuffer', () => {
  it('holds at most twice its capacity, keeps the last bytes, and starts at a whole line after a drop', () => {
    const b = new TailBuffer(1000);
    for (let i = 0; i < 10_000; i++) b.push(Buffer.from(`line ${i}\n`));
    const text = b.text();
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(1000);
    expect(text.startsWith('line ')).toBe(true);
    expect(text.endsWith('line 9999\n')).toBe(true);
    expect(b.dropped).toBeGreaterThan(80_000);
  });

  it('returns everything when nothing was dropped', () => {
    const b = new TailBuffer(100);
    b.push(Buffer.from('a\n'));
    b.push(Buffer.from('b'));
    expect(b.text()).toBe('a\nb');
    expect(b.dropped).toBe(0);
  });

  it('one endless line: the last capacity bytes', () => {
    const b = new TailBuffer(64);
    for (let i = 0; i < 1000; i++) b.push(Buffer.alloc(1000, 0x61));
    expect(b.text()).toBe('a'.repeat(64));
  });
});
