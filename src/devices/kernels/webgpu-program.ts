import type * as tfc from '@tensorflow/tfjs-core';

/**
 * The part of tfjs-backend-webgpu 4.22's WebGPUProgram (webgpu_program.ts) and of its backend that
 * mla-diff's own WGSL programs use (src/devices/kernels/wgsl-round.ts, src/devices/kernels/flash-attention.ts):
 * the package exports neither type, so they are declared here once.
 */
export interface WebgpuProgram {
  outputShape: number[];
  shaderKey: string;
  dispatchLayout: { x: number[] };
  dispatch: [number, number, number];
  workgroupSize: [number, number, number];
  variableNames: string[];
  /** A WGSL struct-field string of program uniforms, e.g. "scale : f32, B : i32,". */
  uniforms?: string;
  size?: boolean;
  outputComponent?: number;
  variableComponents?: number[];
  getUserCode(): string;
}

export type WebgpuUniform = { type: 'int32' | 'float32' | 'uint32'; data: number[] };

/** The parts of GPUDevice used: its limits (the kernels' checks) and its error scopes (webgpu.ts's error handling). */
export interface WebgpuDevice {
  limits: Record<string, number>;
  addEventListener?(type: string, f: (e: { error?: { message?: string } }) => void): void;
  pushErrorScope(filter: 'out-of-memory' | 'validation'): void;
  popErrorScope(): Promise<{ message: string } | null>;
  queue: { onSubmittedWorkDone(): Promise<void> };
}

export interface WebgpuBackend {
  device: WebgpuDevice;
  runWebGPUProgram(
    program: WebgpuProgram,
    inputs: tfc.TensorInfo[],
    dtype: 'float32' | 'int32',
    uniforms?: WebgpuUniform[],
  ): tfc.TensorInfo;
}

/**
 * tf.backend() as tfjs-backend-webgpu's backend: the one place it is cast. `Extra` names further
 * parts a single caller uses (webgpu-upload.ts's UploadingBackend). Call it with webgpu the backend.
 */
export function webgpuBackend<Extra extends object = object>(tf: typeof tfc): WebgpuBackend & Extra {
  return tf.backend() as unknown as WebgpuBackend & Extra;
}
