import { execFileSync } from 'node:child_process';
import { mkdirSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openSafetensors } from './open';
import { tempDir, thrown, writeRaw } from './test-utils/files';

/**
 * Issue 23: a safetensors header or index is a third party's data. Special files, oversized or
 * over-nested JSON, prototype keys and shard names leading out of the index's folder are coded refusals.
 */
const { dir, cleanup } = tempDir();
afterAll(cleanup);

const F32x2 = { dtype: 'F32', shape: [2], data_offsets: [0, 8] };
let n = 0;
const sub = () => {
  const d = join(dir, `case${n++}`);
  mkdirSync(d);
  return d;
};
const index = (d: string, json: unknown) => {
  const p = join(d, 'model.safetensors.index.json');
  writeFileSync(p, typeof json === 'string' ? json : JSON.stringify(json));
  return p;
};

describe('safetensors paths that are no regular file', () => {
  it('a FIFO named model.safetensors → file-unreadable', () => {
    const f = join(dir, 'fifo.safetensors');
    execFileSync('mkfifo', [f]);
    expect(thrown(() => openSafetensors(f)).code).toBe('file-unreadable');
  });

  it('/dev/zero → file-unreadable', () => {
    expect(thrown(() => openSafetensors('/dev/zero')).code).toBe('file-unreadable');
  });

  it('a folder holding a directory named x.safetensors → file-unreadable naming it', () => {
    const d = sub();
    mkdirSync(join(d, 'x.safetensors'));
    const e = thrown(() => openSafetensors(d));
    expect([e.code, e.where.file]).toEqual(['file-unreadable', join(d, 'x.safetensors')]);
  });

  it('an index that is a FIFO → file-unreadable', () => {
    const d = sub();
    execFileSync('mkfifo', [join(d, 'model.safetensors.index.json')]);
    expect(thrown(() => openSafetensors(d)).code).toBe('file-unreadable');
  });
});

describe('hostile indexes', () => {
  it.each([
    ['a shard path out of the folder', 'checkpoint-invalid', { weight_map: { w: '../outside.safetensors' } }],
    ['an absolute shard path', 'checkpoint-invalid', { weight_map: { w: '/etc/passwd' } }],
    ['an empty shard name', 'checkpoint-invalid', { weight_map: { w: '' } }],
    ['a weight_map that is an array', 'checkpoint-invalid', { weight_map: ['a.safetensors'] }],
    ['a weight_map of numbers', 'checkpoint-invalid', { weight_map: { w: 1 } }],
    ['null', 'checkpoint-invalid', 'null'],
    ['not JSON', 'checkpoint-invalid', '{"weight_map": '],
    ['nested 100 000 deep', 'checkpoint-invalid', `{"metadata": {"x": ${'['.repeat(1e5)}${']'.repeat(1e5)}}, "weight_map": {}}`],
    ['a missing shard', 'file-not-found', { weight_map: { w: 'nope.safetensors' } }],
  ])('%s → %s', (_what, code, json) => {
    expect(thrown(() => openSafetensors(index(sub(), json))).code).toBe(code);
  });

  it('an index over 256 MiB → limit-exceeded before it is read', () => {
    const p = index(sub(), '{}');
    truncateSync(p, 256 * 2 ** 20 + 1);
    expect(thrown(() => openSafetensors(p)).code).toBe('limit-exceeded');
  });

  it('more than 100 000 shard files → limit-exceeded before any is opened', () => {
    const weight_map = Object.fromEntries(Array.from({ length: 100_001 }, (_, i) => [`t${i}`, `s${i}.safetensors`]));
    expect(thrown(() => openSafetensors(index(sub(), { weight_map }))).code).toBe('limit-exceeded');
  });

  it('prototype keys as tensor names and metadata keys are keys like any other', () => {
    const d = sub();
    // as text: an object literal's __proto__ would set the prototype, not write a key
    const e = JSON.stringify(F32x2);
    writeRaw(d, 'a.safetensors', `{"__metadata__": {"__proto__": "p", "constructor": "c"}, "__proto__": ${e}}`, new Uint8Array(8));
    writeRaw(d, 'b.safetensors', { constructor: F32x2, toString: { ...F32x2, data_offsets: [8, 16] } }, new Uint8Array(16));
    const text =
      '{"metadata": {"__proto__": 1, "hasOwnProperty": "x"}, "weight_map": ' +
      '{"__proto__": "a.safetensors", "constructor": "b.safetensors", "toString": "b.safetensors"}}';
    const m = openSafetensors(index(d, text));
    expect([...m.tensors.keys()].sort()).toEqual(['__proto__', 'constructor', 'toString']);
    expect(Object.getPrototypeOf(m.metadata)).toBe(Object.prototype);
    expect([m.metadata['__proto__'], m.metadata['constructor'], m.metadata['hasOwnProperty']]).toEqual(['1', 'c', 'x']);
  });
});
