import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFixtures } from '../checkpoint/fixtures';
import { MlaDiffError } from '../../errors';
import { inspectCheckpoint } from '.';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mla-diff-inspect-not-'));
  writeFixtures(join(dir, 'fx'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function thrown(path: string): MlaDiffError {
  try {
    inspectCheckpoint(path);
  } catch (e) {
    if (e instanceof MlaDiffError) return e;
    throw e;
  }
  throw new Error(`inspect ${path} did not throw`);
}

describe('inspect: a file that is not a checkpoint is checkpoint-invalid naming it (issue 23: config.json exited 0)', () => {
  it.each([
    ['a config.json beside GGUF files only', 'gguf-dir', 'config.json'],
    ['a config.json beside nothing', 'bare-dir', 'config.json'],
    ['a JSON file that is no index', 'gguf-dir', 'tokenizer.json'],
    ['a text file', 'gguf-dir', 'notes.txt'],
  ])('%s', (_what, sub, name) => {
    const d = join(dir, sub);
    mkdirSync(d, { recursive: true });
    if (sub === 'gguf-dir') copyFileSync(join(dir, 'fx', 'tiny-q8_0.gguf'), join(d, 'tiny-q8_0.gguf'));
    writeFileSync(join(d, name), name.endsWith('.json') ? '{"model_type": "deepseek_v3"}' : 'hello\n');
    const e = thrown(join(d, name));
    expect([e.code, e.where.file]).toEqual(['checkpoint-invalid', join(d, name)]);
    expect(e.hint).toContain('.gguf');
  });

  it("a safetensors checkpoint's own config.json still stands for its directory", () => {
    expect(inspectCheckpoint(join(dir, 'fx', 'tiny-bf16', 'config.json')).container).toMatchObject({ kind: 'safetensors' });
  });

  it('a FIFO is refused by kind before any read (it would block)', () => {
    const fifo = join(dir, 'pipe.gguf');
    try {
      execFileSync('mkfifo', [fifo]);
    } catch {
      return; // no mkfifo here
    }
    const e = thrown(fifo);
    expect([e.code, e.where.file]).toEqual(['file-unreadable', fifo]);
  });
});
