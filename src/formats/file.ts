import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { MlaDiffError } from '../errors';
import { missingMessage } from './regular-file';

/**
 * A checkpoint file read by offset: GGUF and safetensors files are hundreds of GB, so nothing
 * here reads or maps the whole file. Every short read is a `checkpoint-truncated` error naming
 * the file, what was being read and where.
 */
export class RandomAccessFile {
  private constructor(
    readonly path: string,
    private fd: number,
    readonly size: number,
  ) {}

  static open(path: string): RandomAccessFile {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new MlaDiffError(
        code === 'ENOENT' ? 'file-not-found' : 'file-unreadable',
        code === 'ENOENT' ? missingMessage(path) : `cannot open: ${(e as Error).message}`,
        { file: path },
      );
    }
    const st = fstatSync(fd);
    if (st.isDirectory()) {
      closeSync(fd);
      throw new MlaDiffError('file-unreadable', 'is a directory, not a checkpoint file', { file: path });
    }
    return new RandomAccessFile(path, fd, st.size);
  }

  /** `length` bytes at `offset`, into `dst` when given; `what` names the field or tensor for errors. */
  read(offset: number, length: number, what: string, dst?: Uint8Array): Buffer {
    if (offset < 0 || offset + length > this.size) {
      throw new MlaDiffError(
        'checkpoint-truncated',
        `${what}: needs bytes ${offset}..${offset + length} but the file is ${this.size} bytes`,
        { file: this.path },
        'the file is truncated (an interrupted download?) or its header is corrupt',
      );
    }
    const buf = dst ? Buffer.from(dst.buffer, dst.byteOffset, length) : Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const n = readSync(this.fd, buf, done, Math.min(length - done, 1 << 30), offset + done);
      if (n === 0) throw new MlaDiffError('checkpoint-truncated', `${what}: short read at byte ${offset + done}`, { file: this.path });
      done += n;
    }
    return buf;
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }
}
