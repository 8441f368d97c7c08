import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import execa from 'execa';
import { probeAdapter } from '../../src/devices/select';

/**
 * Runtime.round bit for bit against the reference rounding on every storage format, through
 * test/e2e/checks/rounding-check.mjs on the built package: on webgpu (the WGSL kernel; Dawn cannot load
 * under jest) where an adapter exists (CI: lavapipe, MLA_DIFF_REQUIRE_WEBGPU=1), and on wasm.
 */
const ROOT = resolve(__dirname, '../..');
const BENCH = join(ROOT, 'test', 'e2e', 'checks', 'rounding-check.mjs');

jest.setTimeout(180_000);

interface Check {
  dtype: string;
  set: string;
  values: number;
  deviceVsOracle: number;
  hostVsOracle: number;
  deviceVsHost: number;
  leakedTensors: number;
  overflowed: { oracle: number; roundInto: number };
}
interface RoundingJson {
  bitExact: boolean;
  device: { name: string };
  checks: Check[];
  throughput: { rows: { dtype: string; device: { medianMs: number } }[] };
}

let dir: string;
beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist', 'devices', 'kernels', 'wgsl-round.js'))) await execa('npm', ['run', 'build'], { cwd: ROOT });
  dir = mkdtempSync(join(tmpdir(), 'mla-rounding-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function bench(device: string, extra: string[]): Promise<RoundingJson> {
  const out = join(dir, device);
  const r = await execa('node', [BENCH, '--device', device, '--out', out, ...extra], { cwd: ROOT, reject: false });
  expect({ exit: r.exitCode, stderr: r.exitCode === 0 ? '' : r.stderr }).toEqual({ exit: 0, stderr: '' });
  expect(readFileSync(join(out, 'rounding.md'), 'utf8')).toContain('bit exact: **true**');
  return JSON.parse(readFileSync(join(out, 'rounding.json'), 'utf8')) as RoundingJson;
}

function expectExact(r: RoundingJson, device: string): void {
  expect(r.device.name).toBe(device);
  expect(r.bitExact).toBe(true);
  expect(r.checks.map((c) => `${c.dtype} ${c.set}`)).toEqual([
    'bfloat16 edge',
    'bfloat16 random',
    'float16 edge',
    'float16 random',
    'fp8_e4m3 edge',
    'fp8_e4m3 random',
  ]);
  for (const c of r.checks) {
    expect({ ...c, values: c.values > 1000 }).toEqual({
      ...c,
      values: true,
      deviceVsOracle: 0,
      hostVsOracle: 0,
      deviceVsHost: 0,
      leakedTensors: 0,
      overflowed: { oracle: c.overflowed.roundInto, roundInto: c.overflowed.roundInto },
    });
  }
}

const webgpu = process.env['MLA_DIFF_REQUIRE_WEBGPU'] === '1' || !('missing' in probeAdapter());
(webgpu ? it : it.skip)(
  'webgpu: the WGSL rounding equals the oracle bit for bit (edge + 20k random values), and times a 1M tensor',
  async () => {
    const r = await bench('webgpu', ['--random', '20000', '--elements', String(2 ** 20), '--reps', '2']);
    expectExact(r, 'webgpu');
    expect(r.throughput.rows.map((row) => [row.dtype, row.device.medianMs > 0])).toEqual([
      ['bfloat16', true],
      ['float16', true],
      ['fp8_e4m3', true],
    ]);
  },
);

it('wasm: the bench agrees too (heap-to-heap roundInto)', async () => {
  expectExact(await bench('wasm', ['--random', '20000', '--elements', '0']), 'wasm');
});
