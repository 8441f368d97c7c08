import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMlaDiffError } from '../../errors';
import { PRESETS } from '../../core/model/presets';
import type { ImportContext, NamedStats, NamedTensor } from './records';
import { importRecords } from './records';
import { readResponse } from './response';
import { importTrace } from './trace-import';
import { readNamedTensors } from './tensors-file';

/**
 * Issue 23: what a backend or an engine dump writes is data. Names that are Object.prototype's keys,
 * names that are not strings, special files and oversized or over-nested JSON are coded refusals.
 */
const c = PRESETS.tiny;
const [H] = [c.hidden_size];
const ctx = (more: Partial<ImportContext> = {}): ImportContext => ({
  config: c,
  kvSplits: 1,
  file: 'stages.safetensors',
  layouts: {},
  names: {},
  pieces: [{ step: 0, request: 'a', kind: 'prefill', start: 0, count: 3, chunks: [] }],
  ...more,
});
const tensor = (name: string, shape: number[]): NamedTensor => ({
  name,
  shape,
  data: Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, (_, i) => Math.sin(i)),
});
const codeOf = (f: () => unknown): string | undefined => {
  try {
    f();
  } catch (e) {
    if (isMlaDiffError(e)) return e.code;
    throw e;
  }
  return undefined;
};

const dir = mkdtempSync(join(tmpdir(), 'mla-diff-hostile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A safetensors file from a header written as text (so any key, `__proto__` too, goes in as given) and F32 tensors of `floats` each. */
function rawSafetensors(path: string, names: readonly string[], shape: number[]): string {
  const n = shape.reduce((a, b) => a * b, 1);
  const entries = names.map(
    (name, i) =>
      `${JSON.stringify(name)}: {"dtype": "F32", "shape": [${shape.join(', ')}], "data_offsets": [${i * n * 4}, ${(i + 1) * n * 4}]}`,
  );
  const header = Buffer.from(`{${entries.join(', ')}}`);
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(header.length));
  writeFileSync(path, Buffer.concat([len, header, Buffer.alloc(names.length * n * 4)]));
  return path;
}

const PROTO_KEYS = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '0/a/constructor', '0/a/__proto__'];

describe('tensor and stage names from a third party', () => {
  it.each(PROTO_KEYS)('a tensor named %s is external-bad-output, never a crash', (name) => {
    expect(codeOf(() => importRecords(ctx(), [tensor(name, [3, H])], []))).toBe('external-bad-output');
  });

  it.each(PROTO_KEYS)('a statistic of stage %s is external-bad-output', (stage) => {
    const s: NamedStats = { step: 0, request: 'a', stage, norm: 1 };
    expect(codeOf(() => importRecords(ctx(), [], [s]))).toBe('external-bad-output');
  });

  it.each([
    ['a number', 7],
    ['null', null],
    ['an object', {}],
    ['an empty string', ''],
  ])('a tensor name that is %s is external-bad-output', (_what, name) => {
    expect(codeOf(() => importRecords(ctx(), [tensor(name as unknown as string, [3, H])], []))).toBe('external-bad-output');
  });

  it.each(['__proto__', 'constructor', 't __proto__', '(toString hasOwnProperty)', 'h t'])(
    'a declared layout "%s": read as axis names (external-bad-output when they are not the stage\'s), never a crash',
    (layout) => {
      const N = c.num_attention_heads;
      const code = codeOf(() => importRecords(ctx({ layouts: { lse: layout } }), [tensor('lse', [N, 3])], []));
      expect(code).toBe(layout === 'h t' ? undefined : 'external-bad-output');
    },
  );

  it('names: and layouts: are read only for their own keys; a mapped name still works', () => {
    const names = { hidden: 'hidden_in' };
    const r = importRecords(ctx({ names, layouts: { constructor: 'x' } }), [tensor('hidden', [3, H])], []);
    expect(r.trace.stages.map((s) => s.stage)).toEqual(['hidden_in']);
  });
});

describe('an external backend writing prototype keys (in process: response.json and stages.safetensors)', () => {
  const out = (name: string, response: string, tensors?: readonly string[]) => {
    const d = join(dir, name);
    mkdirSync(d);
    writeFileSync(join(d, 'response.json'), response);
    if (tensors) rawSafetensors(join(d, 'stages.safetensors'), tensors, [3, H]);
    return d;
  };
  const ok = '{"format": "mla-diff/external-response", "version": 1';
  const read = (d: string) => readResponse(d, { config: c, kvSplits: 1, layouts: {}, names: {}, pieces: ctx().pieces });

  it.each(['constructor', '__proto__', 'toString', '0/a/hasOwnProperty'])('a tensor named %s → external-bad-output', (name) => {
    expect(codeOf(() => read(out(`t-${name.replace(/\W/g, '_')}`, `${ok}}`, [name])))).toBe('external-bad-output');
  });

  it('the well-formed tensor beside them still imports', () => {
    expect(read(out('fine', `${ok}}`, ['0/a/hidden_in'])).recording.trace.stages).toHaveLength(1);
  });

  it('prototype keys in layouts and names of response.json are ignored, not followed', () => {
    const stats = '[{"step": 0, "request": "a", "stage": "hidden_in", "norm": 1}]';
    const text = `${ok}, "layouts": {"__proto__": "x", "constructor": "y"}, "stats": ${stats}}`;
    expect(read(out('proto-layouts', text)).recording.trace.stages).toHaveLength(1);
  });

  it.each([
    [
      '__proto__ in layouts and scalars, and no stage',
      'external-bad-output',
      `${ok}, "layouts": {"__proto__": "t d"}, "scalars": {"__proto__": {"causal": true}}}`,
    ],
    ['a scalars key that is no piece name', 'external-bad-response', `${ok}, "scalars": {"constructor": {"causal": true}}}`],
    ['a stats stage named constructor', 'external-bad-output', `${ok}, "stats": [{"stage": "constructor", "norm": 1}]}`],
    ['a stats stage that is a number', 'external-bad-response', `${ok}, "stats": [{"stage": 5, "norm": 1}]}`],
    ['a top level array', 'external-bad-response', '[1, 2]'],
    ['nesting 100 000 deep', 'external-bad-response', `${ok}, "name": ${'['.repeat(1e5)}${']'.repeat(1e5)}}`],
  ])('%s → %s', (what, code, text) => {
    expect(codeOf(() => read(out(`r-${what.replace(/\W/g, '_')}`, text)))).toBe(code);
  });

  it('a response.json that is a directory → file-unreadable', () => {
    const d = join(dir, 'dir-response');
    mkdirSync(join(d, 'response.json'), { recursive: true });
    expect(codeOf(() => read(d))).toBe('file-unreadable');
  });
});

describe('engine dumps (trace import)', () => {
  const trace = (file: string, names: Record<string, string> = {}) =>
    importTrace({ file, layouts: {}, names }, { config: c, kvSplits: 1, pieces: ctx().pieces });

  it.each(['dump.jsonl', 'dump.safetensors'])('a directory named %s → file-unreadable naming it', (name) => {
    const d = join(dir, 'dirs', name);
    mkdirSync(d, { recursive: true });
    try {
      trace(d);
      throw new Error('no error');
    } catch (e) {
      expect(isMlaDiffError(e) && { code: e.code, file: e.where.file }).toEqual({ code: 'file-unreadable', file: d });
    }
  });

  it('a FIFO named dump.jsonl → file-unreadable (never a read that blocks)', () => {
    const f = join(dir, 'fifo.jsonl');
    execFileSync('mkfifo', [f]);
    expect(codeOf(() => trace(f))).toBe('file-unreadable');
  });

  it('/dev/null named as a dump → file-unreadable', () => {
    expect(codeOf(() => trace('/dev/null'))).toBe('file-unreadable');
  });

  const jsonl = (name: string, text: string) => {
    const f = join(dir, name);
    writeFileSync(f, text);
    return f;
  };
  it.each([
    ['a stage named constructor', 'external-bad-output', '{"stage": "constructor", "norm": 1}\n'],
    ['a stage named __proto__', 'external-bad-output', '{"step": 0, "request": "a", "stage": "__proto__", "norm": 1}\n'],
    ['a stage that is a number', 'external-bad-response', '{"stage": 5, "norm": 1}\n'],
    ['a __proto__ key', 'external-bad-response', '{"__proto__": {"stage": "hidden_in"}, "norm": 1}\n'],
    ['a line nested 100 000 deep', 'external-bad-response', `{"stage": ${'['.repeat(1e5)}${']'.repeat(1e5)}}\n`],
    ['a 2 MB line', 'limit-exceeded', `{"stage": "${'x'.repeat(2 ** 21)}", "norm": 1}\n`],
    ['a stage name of 100 000 characters', 'external-bad-response', `{"stage": "${'x'.repeat(1e5)}", "norm": 1}\n`],
  ])('jsonl with %s → %s', (what, code, text) => {
    expect(codeOf(() => trace(jsonl(`${what.replace(/\W/g, '_')}.jsonl`, text)))).toBe(code);
  });

  it.each([
    ['no stage', '{"norm": 1}\n'],
    ['no norm', '{"stage": "hidden_in"}\n'],
    ['a request without a step', '{"request": "a", "stage": "hidden_in", "norm": 1}\n'],
    ['a step without a request', '{"step": 3, "stage": "hidden_in", "norm": 1}\n'],
  ])('jsonl with %s: the message never says undefined', (what, text) => {
    try {
      trace(jsonl(`missing-${what.replace(/\W/g, '_')}.jsonl`, text));
      throw new Error('no error');
    } catch (e) {
      expect(isMlaDiffError(e)).toBe(true);
      expect((e as Error).message).not.toMatch(/undefined/);
    }
  });

  it('a well-formed jsonl line still imports, through a names: map', () => {
    const run = trace(jsonl('good.jsonl', '{"stage": "h", "norm": 1}\n'), { h: 'hidden_in' });
    expect(run.recording.trace.stages.map((s) => s.stage)).toEqual(['hidden_in']);
  });

  it.each(['constructor', '__proto__', 'toString'])('a safetensors dump with a tensor named %s → external-bad-output', (name) => {
    const f = rawSafetensors(join(dir, `dump-${name.replace(/\W/g, '_')}.safetensors`), [name], [3, H]);
    expect(codeOf(() => trace(f))).toBe('external-bad-output');
  });

  it('readNamedTensors: a header naming a tensor __proto__ is read as a tensor of that name', () => {
    const f = rawSafetensors(join(dir, 'proto.safetensors'), ['__proto__', 'x'], [2]);
    expect(readNamedTensors(f, 'external-bad-output').map((t) => t.name)).toEqual(['__proto__', 'x']);
  });
});
