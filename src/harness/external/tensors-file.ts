import { existsSync } from 'node:fs';
import type { ErrorCode } from '../../errors';
import { isMlaDiffError, MlaDiffError } from '../../errors';
import { openSafetensors, readTensorF32 } from '../../formats/safetensors';
import { readRawBits } from '../../formats/safetensors/decode';
import type { NamedTensor } from './records';

const READABLE = ['F32', 'F64', 'BF16', 'F16'];

/**
 * Every tensor of a safetensors file as float32 (F32, BF16, F16) or float64 (F64). A file that is
 * not safetensors, or a tensor of another dtype, is `code` (external-bad-output for a backend's
 * stages.safetensors, external-bad-response for an engine dump).
 */
export function readNamedTensors(file: string, code: ErrorCode): NamedTensor[] {
  if (!existsSync(file)) throw new MlaDiffError('file-not-found', 'no such file', { file });
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
  return [...model.tensors.values()].map((info) => {
    if (!READABLE.includes(info.dtype)) {
      throw new MlaDiffError(code, `${info.name} is ${info.dtype}; stage tensors are ${READABLE.join(', ')}`, { file, field: info.name });
    }
    const data =
      info.dtype === 'F64' ? new Float64Array((readRawBits(info) as Uint8Array).slice().buffer) : readTensorF32(model, info.name);
    return { name: info.name, data, shape: info.shape };
  });
}
