/** Pure helpers the MHA path's steps share: the heads/tokens transpose and the kernel's model-dtype output cast. */
import * as tf from '@tensorflow/tfjs-core';
import type { TensorProbe } from '../core/probes/probe';
import type { Attended } from '../devices/kernels/attention';
import type { PathStep } from './path-step';
import type { Rounding } from './rounding';

/** [N,T,E] ↔ [T,N,E]. */
export const swap01 = (x: tf.Tensor): tf.Tensor3D => tf.transpose(x, [1, 0, 2]) as tf.Tensor3D;

/** The stages at which a kernel (FA or merge_attn_states) writes O. */
export type KernelStage = 'attn_out_heads' | 'suffix_output' | 'chunk_output' | 'context_output';

/** A kernel's result with O written in the model dtype (FA / merge_attn_states write O so). */
export type KernelOut = (a: Attended, stage: KernelStage, chunk?: number) => Attended;

export const kernelOut =
  (rd: Rounding, probe: TensorProbe): KernelOut =>
  (a, stage, chunk) => ({ ...a, out: rd.at('attn_out_heads', a.out, probe, stage, chunk) });

/** What every step of one MHA piece reads, with the kernels' P cast and O write. */
export interface MhaStep extends PathStep {
  /** FA casts P before P·V. */
  castP: (p: tf.Tensor3D) => tf.Tensor3D;
  kernel: KernelOut;
}
