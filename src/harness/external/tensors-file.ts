import { existsSync } from 'node:fs';
import { totalmem } from 'node:os';
import type { ErrorCode } from '../../errors';
import { isMlaDiffError, MlaDiffError } from '../../errors';
import { openSafetensors, readTensorF32 } from '../../formats/safetensors';
import { readRawBits } from '../../formats/safetensors/decode';
import { elementCount } from '../../formats/safetensors/dtypes';
import { statRegularFile } from '../../formats/regular-file';
import type { NamedTensor } from './records';

const READABLE = ['F32', 'F64', 'BF16', 'F16'];
/** Stage names are `{step}/{request}/{stage}[/{chunk}]`: a longer one is no stage name. */
const MAX_NAME_CHARS = 1024;
/** The decoded stage tensors are held in memory at once: at most half the machine's memory, and never past this. */
const MAX_DECODED_BYTES = 64 * 2 ** 30;
/** One typed array holds at most 2^32 − 1 elements. */
const MAX_TENSOR_ELEMENTS = 2 ** 32 - 1;

/**
 * Every tensor of a safetensors file as float32 (F32, BF16, F16) or float64 (F64). A file that is
 * not safetensors, or a tensor of another dtype, is `code` (external-bad-output for a backend's
 * stages.safetensors, external-bad-response for an engine dump).
 */
export function readNamedTensors(file: string, code: ErrorCode): NamedTensor[] {
  if (!existsSync(file)) throw new MlaDiffError('file-not-found', 'no such file', { file });
  // a directory named *.safetensors would otherwise be opened as a checkpoint folder, a FIFO block
  statRegularFile(file, 'a safetensors file');
  let model;
  try {
    model = openSafetensors(file);
  } catch (e) {
    if (!isMlaDiffError(e)) throw e;
    throw new MlaDiffError(
      code,
      `not a readable safetensors file: ${e.message}`,
      { file },
      "write it with safetensors.torch.save_file or the example backends' writer",
    );
  }
  const infos = [...model.tensors.values()];
  const bytes = infos.reduce((n, t) => n + (elementCount(t.shape) ?? Infinity) * (t.dtype === 'F64' ? 8 : 4), 0);
  const most = Math.min(totalmem() / 2, MAX_DECODED_BYTES);
  if (!(bytes <= most))
    throw new MlaDiffError('limit-exceeded', `its tensors decode to ${bytes} bytes; at most ${Math.floor(most)} are held`, { file });
  return infos.map((info) => {
    if (info.name.length > MAX_NAME_CHARS)
      throw new MlaDiffError(code, `a tensor name of ${info.name.length} characters`, { file, field: info.name.slice(0, 80) });
    if ((elementCount(info.shape) ?? Infinity) > MAX_TENSOR_ELEMENTS)
      throw new MlaDiffError('limit-exceeded', `[${info.shape.join(', ')}] is more than ${MAX_TENSOR_ELEMENTS} elements`, {
        file,
        field: info.name,
      });
    if (!READABLE.includes(info.dtype)) {
      throw new MlaDiffError(code, `${info.name} is ${info.dtype}; stage tensors are ${READABLE.join(', ')}`, { file, field: info.name });
    }
    const data =
      info.dtype === 'F64' ? new Float64Array((readRawBits(info) as Uint8Array).slice().buffer) : readTensorF32(model, info.name);
    return { name: info.name, data, shape: info.shape };
  });
}
