/** The flash-attention kernel's WGSL without a GPU: the shader key and source, the default tiles per device and the tile checks. */
import type { FlashTiles } from './flash-tiles';
import { accumulatorFloats, LONG_ROWS } from './flash-tiles';
import { defaultTiles, flashShader, flashShaderKey, tileBytes, tilesProblem } from './flash-wgsl';
import { H200, H200_MHA, LIMITS } from './test-utils/flash-limits';

const LAVAPIPE = { maxComputeWorkgroupStorageSize: 32768, maxComputeInvocationsPerWorkgroup: 1024 };

describe('the WGSL', () => {
  it('bakes every compile-time constant into the shader key and the source', () => {
    const wide = defaultTiles(576, 512, H200);
    expect(flashShaderKey({ ...wide, prefetchV: false }, 576, 512, true)).toBe(
      'mlaFlashAttn2_r64_k64_c32_w256_sr4_sk4_or8_vk4_pv0_u1_d576_e512_vk',
    );
    const flags = ['prefetchV', 'unroll'];
    const fields = Object.keys(wide).filter((f) => !flags.includes(f)) as Exclude<keyof FlashTiles, 'prefetchV' | 'unroll'>[];
    for (const f of fields)
      expect(flashShaderKey({ ...wide, [f]: wide[f] * 2 }, 576, 512, true)).not.toBe(flashShaderKey(wide, 576, 512, true));
    expect(flashShaderKey({ ...wide, prefetchV: !wide.prefetchV }, 576, 512, true)).not.toBe(flashShaderKey(wide, 576, 512, true));
    expect(flashShaderKey({ ...wide, unroll: !wide.unroll }, 576, 512, true)).not.toBe(flashShaderKey(wide, 576, 512, true));
    expect(flashShader({ ...wide, prefetchV: true }, 576, 512, true)).toContain('vp0 = v;'); // V through registers
    expect(flashShader({ ...wide, prefetchV: false }, 576, 512, true)).not.toContain('vp0');
    expect(flashShader({ ...wide, unroll: true }, 576, 512, true)).not.toMatch(/for \(var [dc] = 0/); // columns and keys unrolled
    expect(flashShader({ ...wide, unroll: false }, 576, 512, true)).toContain(`for (var d = 0; d < ${wide.chunk}; d++)`);
    const src = flashShader(wide, 576, 512, true);
    expect(src).toContain('const FA_D = 576;');
    expect(src).toContain('K[kBase + s * kRow + col + 0]'); // V read out of K, through K's row stride
    expect(src).not.toMatch(/\bV\[/);
    expect(src).not.toMatch(/\b[so]\[/); // registers are named, never dynamically indexed arrays
    expect(flashShader(H200_MHA, 256, 256, false)).toContain('V[vBase + s * vRow + col + 0]');
  });

  it.each([
    ['H200 (48 KiB)', H200],
    ['lavapipe (32 KiB)', LAVAPIPE],
    ['WebGPU defaults (16 KiB, 256 threads)', LIMITS],
  ])('picks default tiles per form (short and long) that fit %s', (_, limits) => {
    for (const [D, E] of [
      [24, 16],
      [256, 256],
      [576, 512],
    ] as const) {
      for (const rows of [1, 512, LONG_ROWS]) {
        const t = defaultTiles(D, E, limits, rows);
        expect(tilesProblem(t)).toBeNull();
        expect(tileBytes(t, E)).toBeLessThanOrEqual(limits.maxComputeWorkgroupStorageSize);
        expect(t.threads).toBeLessThanOrEqual(limits.maxComputeInvocationsPerWorkgroup);
      }
    }
  });

  it('the H200 defaults keep O at 64 floats per thread (128 for the latent) and use at least 256 threads, 32 rows', () => {
    for (const [D, E] of [
      [256, 256],
      [576, 512],
    ] as const) {
      for (const rows of [512, LONG_ROWS]) {
        const t = defaultTiles(D, E, H200, rows);
        expect(accumulatorFloats(t, E)).toBe(E > 256 ? 128 : 64);
        expect(t.threads).toBeGreaterThanOrEqual(256);
        expect(t.rows).toBeGreaterThanOrEqual(32);
        expect(defaultTiles(D, E, undefined, rows)).toEqual(t);
      }
    }
  });

  it('gives the MHA form 128-row tiles from LONG_ROWS query rows per head where 512 threads fit; the latent form keeps its tiles', () => {
    expect(defaultTiles(256, 256, H200, LONG_ROWS)).toMatchObject({ rows: 128, keys: 64, threads: 512 });
    expect(defaultTiles(256, 256, H200, LONG_ROWS - 1)).toMatchObject({ rows: 64, keys: 128, threads: 256 });
    expect(defaultTiles(256, 256, LAVAPIPE, LONG_ROWS)).toEqual(defaultTiles(256, 256, LAVAPIPE));
    expect(defaultTiles(576, 512, H200, LONG_ROWS)).toEqual(defaultTiles(576, 512, H200));
  });

  it('explains each invalid tile set', () => {
    expect(tilesProblem({ ...H200_MHA, rows: 0 })).toMatch(/positive integers/);
    expect(tilesProblem({ ...H200_MHA, outRows: 6 })).toMatch(/outRows .* multiple of 4/);
    expect(tilesProblem({ ...H200_MHA, scoreRows: 4 })).toMatch(/threads .* must equal/);
    expect(tilesProblem({ ...H200_MHA, scoreRows: 12 })).toMatch(/must divide rows/);
    expect(tilesProblem({ ...H200_MHA, outRows: 64, threads: 256 })).toBeNull();
    expect(tilesProblem({ ...H200_MHA, outRows: 8, rows: 64, keys: 16, scoreRows: 4, scoreKeys: 4, threads: 64 })).toBeNull();
    expect(tilesProblem({ ...H200_MHA, rows: 8, keys: 128, scoreRows: 4, scoreKeys: 4, outRows: 4, threads: 64 })).toBeNull();
    expect(tilesProblem({ ...H200_MHA, rows: 64, keys: 4, scoreRows: 4, scoreKeys: 4, outRows: 4, valueKeys: 4, threads: 16 })).toMatch(
      /rows .* must not exceed threads/,
    );
    expect(tilesProblem({ ...H200_MHA, rows: 64, outRows: 4, keys: 64, scoreKeys: 4, scoreRows: 4, threads: 256, valueKeys: 128 })).toMatch(
      /valueKeys/,
    );
  });
});
