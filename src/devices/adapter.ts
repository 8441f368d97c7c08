import { MlaDiffError } from '../errors';
import { installCommand } from './install-hints';
import type { AdapterInfo } from './runtime';

/** Names Mesa/Dawn give software adapters. */
const SOFTWARE = /llvmpipe|lavapipe|swiftshader|software|softpipe/i;

export function isSoftwareAdapter(a: AdapterInfo): boolean {
  return a.isFallbackAdapter || SOFTWARE.test(`${a.architecture} ${a.device} ${a.description}`);
}

/** e.g. `nvidia-h200 (nvidia; NVIDIA: 580.159.04)`, `llvmpipe-… (mesa, software; llvmpipe: Mesa 25.0.7 …)`. */
export function describeAdapter(a: AdapterInfo): string {
  const vendor = [a.vendor, a.architecture].filter(Boolean).join(', ');
  const details = [vendor, a.description].filter(Boolean).join('; ');
  return `${a.device || 'unknown adapter'}${details ? ` (${details})` : ''}`;
}

/** Why there is no WebGPU: the package, a Vulkan driver, or an adapter from Dawn. */
export type Missing = 'package' | 'driver' | 'adapter';

const MISSING: Record<Missing, [string, string]> = {
  package: [
    'WebGPU is not installed: `webgpu` (Dawn) and @tensorflow/tfjs-backend-webgpu are optional, not installed with mla-diff',
    `${installCommand('webgpu')} (Dawn: linux-x64, macOS, Windows), or run --device wasm`,
  ],
  driver: [
    'no Vulkan driver is installed (no ICD manifest; VK_DRIVER_FILES unset)',
    'on a GPU machine install the vendor Vulkan driver or set VK_DRIVER_FILES; without a GPU install Mesa lavapipe ' +
      '(mesa-vulkan-drivers from bookworm-backports); or run --device wasm',
  ],
  adapter: [
    'Dawn found no WebGPU adapter (no GPU, or its Vulkan driver failed)',
    'check VK_DRIVER_FILES and the driver (--verbose shows what Dawn and the Vulkan loader said), or run --device wasm',
  ],
};

/** `--device webgpu` asked for where it cannot run: exit 2, what is missing and what to do. */
export function webgpuUnavailable(missing: Missing): MlaDiffError {
  const [message, hint] = MISSING[missing];
  return new MlaDiffError('device-unavailable', message, { field: '--device' }, hint);
}

// GPUAdapter as Dawn exposes it; typed loosely because @webgpu/types is not a dependency.
interface DawnAdapter {
  info?: Record<string, unknown>;
  limits: { maxStorageBufferBindingSize: number; maxBufferSize: number };
}

export function adapterInfo(adapter: DawnAdapter): AdapterInfo {
  const i = adapter.info ?? {};
  const s = (k: string) => (typeof i[k] === 'string' ? (i[k] as string) : '');
  return {
    vendor: s('vendor'),
    architecture: s('architecture'),
    device: s('device'),
    description: s('description'),
    isFallbackAdapter: i['isFallbackAdapter'] === true,
    maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
    maxBufferSize: adapter.limits.maxBufferSize,
  };
}

/**
 * Loads Dawn (the `webgpu` package, an ES module) and asks for an adapter; null when none.
 * `flags` go to Dawn's create(), e.g. ['enable-dawn-features=disable_robustness'] (the environment
 * variable MLA_DIFF_DAWN_FLAGS, `;`-separated, for benchmarks: off by default, since without
 * robustness an out-of-bounds access corrupts memory silently instead of being clamped).
 */
export async function requestDawnAdapter(
  flags: string[] = dawnFlags(process.env),
): Promise<{ gpu: unknown; globals: object; adapter: DawnAdapter } | null> {
  let mod: { create: (flags: string[]) => { requestAdapter(o?: object): Promise<DawnAdapter | null> }; globals: object };
  try {
    mod = (await import('webgpu')) as unknown as typeof mod;
  } catch {
    return null;
  }
  const gpu = mod.create(flags);
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  return adapter ? { gpu, globals: mod.globals, adapter } : null;
}

/** Dawn flags from MLA_DIFF_DAWN_FLAGS (`;`-separated), none when unset. */
export function dawnFlags(env: NodeJS.ProcessEnv): string[] {
  return (env['MLA_DIFF_DAWN_FLAGS'] ?? '')
    .split(';')
    .map((f) => f.trim())
    .filter(Boolean);
}

/**
 * Adapter probe run in a child process by `--device auto` (and by `--device webgpu` where fd 2 cannot be captured,
 * native-stderr.ts): Dawn and the Vulkan loader print warnings on stderr when they look for drivers, auto-selection
 * must stay quiet, and a driver that crashes Dawn must not take mla-diff with it.
 */
export const PROBE_SCRIPT = `
import('webgpu').then(async ({ create }) => {
  const a = await create([]).requestAdapter({ powerPreference: 'high-performance' });
  const i = (a && a.info) || {};
  const pick = (k) => (typeof i[k] === 'string' ? i[k] : '');
  process.stdout.write(JSON.stringify(a ? { vendor: pick('vendor'), architecture: pick('architecture'),
    device: pick('device'), description: pick('description'), isFallbackAdapter: i.isFallbackAdapter === true,
    maxStorageBufferBindingSize: a.limits.maxStorageBufferBindingSize, maxBufferSize: a.limits.maxBufferSize } : null));
  process.exit(0);
}).catch(() => { process.stdout.write('null'); process.exit(0); });
`;
