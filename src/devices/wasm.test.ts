import type { HostBlas } from './kernels/host-blas';
import { wasmDescription } from './wasm';

// The device line run prints above each table: which BLAS ran the products, or what to install for one.
describe('wasmDescription', () => {
  const blas = { description: 'OpenBLAS 0.3.21 (Haswell kernels, 2 threads)', threads: 2, sgemm: () => undefined } satisfies HostBlas;

  it('names the host BLAS the products go through', () => {
    expect(wasmDescription(blas, { kind: 'auto' })).toBe(
      'wasm: tfjs-backend-wasm on the CPU, products through OpenBLAS 0.3.21 (Haswell kernels, 2 threads)',
    );
  });

  it('without one found, says what to install and what it buys, per platform', () => {
    expect(wasmDescription(null, { kind: 'auto' }, 'linux')).toBe(
      'wasm: tfjs-backend-wasm (XNNPACK, SIMD) on the CPU; ' +
        'no host BLAS (apt-get install libopenblas0-pthread: ~2× faster at 512 tokens and more)',
    );
    expect(wasmDescription(null, { kind: 'auto' }, 'darwin')).toMatch(/XNNPACK.*brew install openblas, then MLA_DIFF_BLAS=/);
    expect(wasmDescription(null, { kind: 'auto' }, 'win32')).toMatch(/MLA_DIFF_BLAS=<a library that exports cblas_sgemm>/);
  });

  it('MLA_DIFF_BLAS=off: XNNPACK as asked, no hint', () => {
    expect(wasmDescription(null, { kind: 'off' }, 'linux')).toBe('wasm: tfjs-backend-wasm (XNNPACK, SIMD) on the CPU');
  });
});
