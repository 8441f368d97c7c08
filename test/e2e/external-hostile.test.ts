/**
 * Issue 23 through the built CLI: what an external backend or an engine dump writes is data. A tensor
 * named `constructor`, prototype keys in response.json, a directory or FIFO where a dump is expected:
 * exit 2 with their codes, never "internal error" (exit 3).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { external, externalSuite, mla } from './external-helpers';

jest.setTimeout(120_000);

const { tmp, scenario } = externalSuite();

/** A safetensors file whose header is written as text, so that any name (`__proto__` too) goes in as given. */
function rawStages(path: string, names: readonly string[], shape: number[]): void {
  const n = shape.reduce((a, b) => a * b, 1) * 4;
  const entries = names.map(
    (x, i) => `${JSON.stringify(x)}: {"dtype": "F32", "shape": ${JSON.stringify(shape)}, "data_offsets": [${i * n}, ${(i + 1) * n}]}`,
  );
  const header = Buffer.from(`{${entries.join(', ')}}`);
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(header.length));
  writeFileSync(path, Buffer.concat([len, header, Buffer.alloc(names.length * n)]));
}

const expectCode = async (args: string[], code: string) => {
  const r = await mla(['run', ...args]);
  expect(r.stderr).toContain(`error [${code}]`);
  expect(r.stderr).not.toContain('internal error');
  expect(r.exitCode).toBe(2);
};

describe('an external backend writing prototype keys', () => {
  /** A backend that copies prepared files: response.json (`response`) and stages.safetensors with these tensor names. */
  const canned = (name: string, response: string, tensors?: readonly string[]) => {
    const d = tmp(name);
    mkdirSync(d);
    writeFileSync(join(d, 'response.json'), response);
    if (tensors) rawStages(join(d, 'stages.safetensors'), tensors, [5, 48]);
    return external(`cp ${d}/* "$MLA_DIFF_OUT"/`);
  };
  const ok = '{"format": "mla-diff/external-response", "version": 1';

  it.each(['constructor', '__proto__', 'toString', '0/prompt/hasOwnProperty'])('a tensor named %s: external-bad-output, exit 2', (t) =>
    expectCode([scenario(`t-${t.replace(/\W/g, '_')}`, canned(`t-${t.replace(/\W/g, '_')}`, `${ok}}`, [t]))], 'external-bad-output'),
  );

  it('a stats stage named constructor: external-bad-output', () =>
    expectCode([scenario('s-ctor', canned('s-ctor', `${ok}, "stats": [{"stage": "constructor", "norm": 1}]}`))], 'external-bad-output'));

  it('scalars keyed constructor: external-bad-response', () =>
    expectCode([scenario('sc-ctor', canned('sc-ctor', `${ok}, "scalars": {"constructor": {"causal": true}}}`))], 'external-bad-response'));
});

describe('engine dumps that are no regular file', () => {
  it('a directory named dump.jsonl: file-unreadable naming it', async () => {
    const d = tmp('dir-dump.jsonl');
    mkdirSync(d);
    const r = await mla(['run', scenario('dir-dump', ''), '--trace', d]);
    expect([r.exitCode, r.stderr.includes('error [file-unreadable]'), r.stderr.includes(d)]).toEqual([2, true, true]);
  });

  it('a FIFO named dump.jsonl: file-unreadable, no hang', async () => {
    const f = tmp('fifo-dump.jsonl');
    execFileSync('mkfifo', [f]);
    await expectCode([scenario('fifo-dump', ''), '--trace', f], 'file-unreadable');
  });

  it('a jsonl dump with a stage named __proto__: external-bad-output', async () => {
    const f = tmp('proto.jsonl');
    writeFileSync(f, '{"step": 0, "request": "prompt", "stage": "__proto__", "norm": 1}\n');
    await expectCode([scenario('proto-dump', ''), '--trace', f], 'external-bad-output');
  });
});
