import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseScenario } from './load';

const dir = mkdtempSync(join(tmpdir(), 'tolerances-file-'));
const put = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};
const RATCHET =
  'format: mla-diff/tolerances\nversion: 1\nscenario: s\ndevice: cpu\nmargin: 2\nstages:\n  logits: { rel: 4.0e-7 }\n  lse: { floor: 4 }\n';
put('ratchet.yaml', RATCHET);
const scenario = (tolerances: string) => `name: s\nmodel: {preset: tiny}\nprompt: {ids: [1, 2, 3]}\ntolerances:\n${tolerances}`;
const parse = (tolerances: string, allowLooser = false) => parseScenario(scenario(tolerances), join(dir, 's.yaml'), { allowLooser });

describe('tolerances: {file: …} (the ratchet)', () => {
  it("takes the file's stages, relative to the scenario file; inline stages override them", () => {
    expect(parse('  file: ratchet.yaml\n').tolerances.stages).toEqual({ logits: 4e-7, lse: { floor: 4 } });
    const s = parse('  file: ratchet.yaml\n  default: {rel: 1.0e-6}\n  stages:\n    logits: {rel: 1.0e-7}\n    q_pe: {rel: 1.0e-3}\n');
    expect(s.tolerances).toEqual({ default: 1e-6, stages: { logits: 1e-7, lse: { floor: 4 }, q_pe: 1e-3 } });
  });

  it("an inline tolerance looser than the file's fails on its line unless --allow-looser", () => {
    const text = '  file: ratchet.yaml\n  stages:\n    logits: {rel: 1.0e-5}\n';
    expect(() => parse(text)).toThrow(
      expect.objectContaining({ code: 'tolerance-looser', where: expect.objectContaining({ line: 7, field: 'tolerances.stages.logits' }) }),
    );
    expect(() => parse('  file: ratchet.yaml\n  stages:\n    lse: {floor: 8}\n')).toThrow(
      expect.objectContaining({ code: 'tolerance-looser' }),
    );
    expect(parse(text, true).tolerances.stages?.logits).toBe(1e-5);
  });

  it("a missing file fails on the scenario's line", () => {
    expect(() => parse('  file: gone.yaml\n')).toThrow(
      expect.objectContaining({ code: 'file-not-found', where: expect.objectContaining({ line: 5, field: 'tolerances.file' }) }),
    );
  });

  it.each([
    ['another format', RATCHET.replace('mla-diff/tolerances', 'mla-diff/run'), 'invalid-value', 'format'],
    ['another version', RATCHET.replace('version: 1', 'version: 2'), 'invalid-value', 'version'],
    ['an unknown stage', `${RATCHET}  q_nopee: { rel: 1 }\n`, 'unknown-key', 'stages.q_nopee'],
    ['an unknown key', `${RATCHET}extra: 1\n`, 'unknown-key', 'extra'],
    ['both rel and floor', `${RATCHET}  v: { rel: 1, floor: 2 }\n`, 'invalid-value', 'stages.v'],
    ['a string tolerance', `${RATCHET}  v: { rel: big }\n`, 'invalid-type', 'stages.v.rel'],
    ['bad YAML', 'format: [\n', 'yaml-syntax', undefined],
  ])('a tolerances file with %s fails naming that file (%s)', (_what, text, code, field) => {
    put('bad.yaml', text);
    expect(() => parse('  file: bad.yaml\n')).toThrow(
      expect.objectContaining({ code, where: expect.objectContaining({ file: join(dir, 'bad.yaml'), ...(field ? { field } : {}) }) }),
    );
  });
});

describe('tolerances: {file: …} that is not a regular file (issue 23)', () => {
  it('a FIFO, a directory or /dev/zero is file-unreadable naming it, never read (a FIFO blocked the load)', () => {
    execFileSync('mkfifo', [join(dir, 'tol.fifo')]);
    for (const file of [join(dir, 'tol.fifo'), dir, '/dev/zero'])
      expect(() => parse(`  file: ${file}\n`)).toThrow(
        expect.objectContaining({ code: 'file-unreadable', where: expect.objectContaining({ file }) }),
      );
  });
});
