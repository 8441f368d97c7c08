/** Pure helpers of the float64 reference: host tensors, array concatenation and a request's history of keys and values. */
import type { HostTensor } from '../core/probes/probe';

export const host = (shape: number[], data: Float64Array | Float32Array): HostTensor => ({ shape, data });

export const cat = (a: Float64Array, b: Float64Array) => {
  const c = new Float64Array(a.length + b.length);
  c.set(a);
  c.set(b, a.length);
  return c;
};

/** A request's keys and values so far, one row a cached token. */
export interface History {
  latent: Float64Array; // [S,L+R]
  k: Float64Array; // [S,N,D]
  v: Float64Array; // [S,N,V]
  latentOnly: Float64Array; // [S,L]
}
