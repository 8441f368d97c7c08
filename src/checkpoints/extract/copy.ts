import { RandomAccessFile } from '../../formats/file';
import { rowBytes } from '../../formats/gguf/ggml-types';
import type { GgufTensorInfo } from '../../formats/gguf/types';
import type { LazyTensor } from '../../formats/gguf/write';

/** Bytes per read while copying: a tensor of GBs never sits whole in memory. */
const CHUNK_BYTES = 16 << 20;

/** Counts what a copy read from the source files. */
export interface ReadCounter {
  bytes: number;
}

/**
 * A tensor written as the source's bytes, unchanged (same type, same blocks), read in chunks when
 * the writer reaches it. `rows` keeps only the first rows of the outermost PyTorch dim (ne's last),
 * which are the first bytes of the tensor.
 */
export function copiedTensor(name: string, src: GgufTensorInfo, counter: ReadCounter, rows?: number): LazyTensor {
  const ne = [...src.ne];
  let bytes = src.bytes;
  if (rows !== undefined) {
    ne[ne.length - 1] = rows;
    bytes = rowBytes(src.type, ne[0]!) * ne.slice(1).reduce((a, b) => a * b, 1);
  }
  return {
    name,
    ne,
    type: src.type,
    bytes,
    produce: function* () {
      const f = RandomAccessFile.open(src.file);
      try {
        for (let done = 0; done < bytes;) {
          const n = Math.min(CHUNK_BYTES, bytes - done);
          const chunk = f.read(src.offset + done, n, `tensor ${src.name}`);
          counter.bytes += n;
          done += n;
          yield new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length);
        }
      } finally {
        f.close();
      }
    },
  };
}
