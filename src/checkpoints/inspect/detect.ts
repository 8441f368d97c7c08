import { readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { MlaDiffError } from '../../errors';
import { RandomAccessFile } from '../../formats/file';
import { statRegularFile } from '../../formats/regular-file';
import { parseShardName } from '../../formats/gguf/split';
import { GGUF_MAGIC } from '../../formats/gguf/value-types';

export type CheckpointKind = 'gguf' | 'safetensors';

/** What `path` is: the reader to use and the path to give it. */
export interface Detected {
  kind: CheckpointKind;
  path: string;
}

export const ACCEPTED =
  'mla-diff inspect reads a .gguf file (or any shard of a split), a .safetensors file, ' +
  'a model.safetensors.index.json, or a checkpoint directory';

/** A directory: safetensors if it holds any (or an index), else its one GGUF model (one file or one split). */
function detectDir(dir: string): Detected {
  const names = readdirSync(dir).sort();
  if (names.some((n) => n.endsWith('.safetensors') || n.endsWith('.safetensors.index.json'))) return { kind: 'safetensors', path: dir };
  const ggufs = names.filter((n) => n.endsWith('.gguf'));
  const models = new Set(ggufs.map((n) => parseShardName(n)?.base ?? n));
  if (models.size === 1) return { kind: 'gguf', path: join(dir, ggufs[0]!) };
  if (models.size > 1) {
    throw new MlaDiffError(
      'checkpoint-invalid',
      `the directory holds ${models.size} GGUF models`,
      { file: dir },
      `name one: ${[...models]
        .slice(0, 4)
        .map((b) =>
          join(
            dir,
            ggufs.find((n) => n.startsWith(b))!,
          ),
        )
        .join(', ')}`,
    );
  }
  throw new MlaDiffError('checkpoint-invalid', 'the directory holds no .safetensors, index or .gguf file', { file: dir }, ACCEPTED);
}

/**
 * A Hugging Face config.json stands for its safetensors checkpoint directory; beside no safetensors (or beside
 * GGUF files only, which carry their config in their own header) it is no checkpoint.
 */
function configJson(path: string): Detected {
  const dir = dirname(path) || '.';
  const names = readdirSync(dir);
  if (names.some((n) => n.endsWith('.safetensors') || n.endsWith('.safetensors.index.json'))) return { kind: 'safetensors', path: dir };
  throw new MlaDiffError(
    'checkpoint-invalid',
    "a model's config.json with no .safetensors or model.safetensors.index.json beside it: not a checkpoint",
    { file: path },
    ACCEPTED,
  );
}

/** First bytes: "GGUF", or an 8-byte little-endian header length followed by `{` (safetensors). */
function sniff(path: string): CheckpointKind | undefined {
  const f = RandomAccessFile.open(path);
  try {
    if (f.size < 9) return undefined;
    const head = f.read(0, 9, 'file magic');
    if (head.readUInt32LE(0) === GGUF_MAGIC) return 'gguf';
    const n = head.readBigUInt64LE(0);
    return n >= 2n && 8n + n <= BigInt(f.size) && head[8] === 0x7b ? 'safetensors' : undefined;
  } finally {
    f.close();
  }
}

/**
 * Tells a GGUF from a safetensors checkpoint by content, not by name. Missing → 'file-not-found';
 * neither → 'checkpoint-invalid' with what is accepted. Reads at most 9 bytes of the file.
 */
export function detectCheckpoint(path: string): Detected {
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new MlaDiffError(
      code === 'ENOENT' ? 'file-not-found' : 'file-unreadable',
      code === 'ENOENT' ? 'no such file or directory' : `cannot read: ${(e as Error).message}`,
      { file: path },
    );
  }
  if (isDir) return detectDir(path);
  // A FIFO would block the 9-byte read below, a device feed it forever: refused by kind, with the path.
  statRegularFile(path, 'a checkpoint', ACCEPTED);
  if (basename(path) === 'config.json') return configJson(path);
  if (path.endsWith('.index.json')) return { kind: 'safetensors', path };
  if (path.endsWith('.json')) {
    throw new MlaDiffError(
      'checkpoint-invalid',
      'a JSON file that is not a checkpoint index (model.safetensors.index.json)',
      { file: path },
      ACCEPTED,
    );
  }
  const kind = sniff(path);
  if (kind) return { kind, path };
  throw new MlaDiffError(
    'checkpoint-invalid',
    'not a GGUF or safetensors checkpoint (neither the "GGUF" magic nor a safetensors JSON header)',
    { file: path },
    ACCEPTED,
  );
}
