/**
 * The external protocol's sharp edges (docs/external-backends.md, issue 21 point 5) through the built CLI, with the Node
 * example backend's flags: logits written after the causal mask, LSE written [N, T] but declared [T, N] when T = N, k_nope
 * with all S keys, records for a cached piece, weight stages per piece; the verdict lines' third-party clauses.
 */
import { rmSync } from 'node:fs';
import { suiteDir, tinySchedule } from './cli-helpers';
import { external, mla, NODE_MLA, runJson } from './external-helpers';

jest.setTimeout(120_000);

const dir = suiteDir();
const node = (flags: string) => external(`node ${NODE_MLA} ${flags}`, '  name: node\n');
/** tinySchedule (chat: chunked prefill with context, decodes, a second turn; hit: 7 cached, then 6) through the backend. */
const write = (name: string, flags: string) => dir.write(`${name}.yaml`, tinySchedule(name, node(flags)));
/** One prefill of these tokens (tiny: N = 4 heads), reference on, through the backend. */
const prompt = (name: string, ids: string, flags: string) =>
  dir.write(
    `${name}.yaml`,
    `name: ${name}\nmodel: {preset: tiny}\nweights: {synthetic: {seed: 3}}\nprompt:\n  ids: [${ids}]\nreference: on\n${node(flags)}`,
  );

/** Runs one failing scenario: exit 2, the code; removes the exchange directory the failure keeps. */
async function refused(file: string, code: string): Promise<string> {
  const r = await mla(['run', file]);
  const kept = /exchange directory kept: (\S+)/.exec(r.stderr)?.[1];
  if (kept) rmSync(kept, { recursive: true, force: true });
  expect(r.stderr).toContain(`error [${code}]`);
  expect(r.exitCode).toBe(2);
  return r.stderr;
}

describe('logits written after the causal mask', () => {
  it('−inf at the masked keys: detected, compared at the visible keys, agrees (no rel err Infinity)', async () => {
    const { code, run } = await runJson([write('masked', '--logits -inf')]);
    expect(code).toBe(0);
    const c = run.cases[0]!;
    const logits = c.trace.diffs.filter((d) => d.a === 'external' && d.b === 'reference' && d.stage === 'logits');
    expect(logits.length).toBeGreaterThan(4);
    for (const d of logits) expect(d.relErr).toBeLessThan(1e-6);
    const masked = c.trace.paths.external!.stages.filter((s) => s.masked);
    expect(masked.length).toBeGreaterThan(0);
    expect(masked.every((s) => s.stage === 'logits')).toBe(true);
  });

  it('declared in response.json ("masked": ["logits"]) with torch.finfo(float32).min: agrees; PASS names the largest error', async () => {
    const r = await mla(['run', write('declared', '--logits finfo --declare-masked')]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/PASS .*; largest external \(node\) error \S+ vs reference at \w+ \(step \d+, \w+; tolerance \S+\)/);
  });
});

describe('LSE written [N, T], declared "t h"', () => {
  it('T = N = 4: the shape check passes; the values fit only transposed: external-layout (exit 2)', () =>
    refused(prompt('lse4', '5, 17, 256, 999', '--mislabel-lse'), 'external-layout'));
  it('T = 5: the shape check refuses it (external-bad-output)', () =>
    refused(prompt('lse5', '5, 17, 256, 999, 42', '--mislabel-lse'), 'external-bad-output'));
});

describe('protocol errors of a schedule with context and a prefix-cache hit', () => {
  it('k_nope and v with all S keys: external-key-count', () => refused(write('keys', '--key-rows all'), 'external-key-count'));
  it('rows for a piece of kind cached: refused, external-bad-output', () =>
    refused(write('cached', '--write-cached'), 'external-bad-output'));
  it('W_UK_T and W_UV the same for every piece: one record each, at the first piece, compared with mqa and the reference', async () => {
    const { code, run } = await runJson([write('weights', '--weights same')]);
    expect(code).toBe(0);
    const w = run.cases[0]!.trace.diffs.filter((d) => d.a === 'external' && d.stage === 'W_UV');
    expect(w.map((d) => d.b).sort()).toEqual(['mqa', 'reference']);
    for (const d of w) expect(d.relErr).toBe(0);
  });
  it('W_UV drifting between pieces: refused, external-bad-output', () => refused(write('drift', '--weights drift'), 'external-bad-output'));
});

describe('verdict lines with a third party', () => {
  it('FAIL, the third party the culprit: its tolerance and its floor', async () => {
    const r = await mla(['run', prompt('fail', '5, 17, 256, 999, 42', '--fault w-uv-wrong-axis')]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/FAIL .*departs from paths that agree; rel err \S+, norm ratio \S+; its tolerance \S+, its floor \S+/);
  });
});
