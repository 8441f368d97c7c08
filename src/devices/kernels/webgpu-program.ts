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

export interface WebgpuBackend {
  device: { limits: Record<string, number> };
  runWebGPUProgram(program: WebgpuProgram, inputs: tfc.TensorInfo[], dtype: 'float32' | 'int32', uniforms?: WebgpuUniform[]): tfc.TensorInfo;
}
