import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import * as tf from '@tensorflow/tfjs-core';
import { MlaDiffError } from '../errors';
import { describeAdapter, isSoftwareAdapter, PROBE_SCRIPT } from './adapter';
import type { AdapterInfo, DeviceRequest, Log, Runtime } from './runtime';
import { createCpuRuntime } from './cpu';
import { createTensorflowRuntime, loadTfjsNode } from './tensorflow';
import { createWasmRuntime } from './wasm';
import { parseBlasRequest } from './kernels/host-blas';
import { createWebgpuRuntime } from './webgpu';
import { installCommand, missingPackages } from './install-hints';

const ICD_DIRS = ['/usr/share/vulkan/icd.d', '/etc/vulkan/icd.d', '/usr/local/share/vulkan/icd.d'];

/** Is there any Vulkan driver manifest Dawn could load? Saves a probe on machines without one. */
function vulkanDriverListed(): boolean {
  if (process.env['VK_DRIVER_FILES'] || process.env['VK_ICD_FILENAMES']) return true;
  return ICD_DIRS.some((d) => existsSync(d) && readdirSync(d).some((f) => f.endsWith('.json')));
}

export type Probe = { adapter: AdapterInfo } | { missing: 'package' | 'driver' | 'adapter' };

/**
 * Asks Dawn for an adapter in a child process: Dawn and the Vulkan loader print warnings (and
 * stack-like error lines) on stderr while they look for drivers, and none of that may reach the user.
 */
export function probeAdapter(): Probe {
  if (missingPackages('webgpu').length) return { missing: 'package' };
  const entry = require.resolve('webgpu');
  if (!vulkanDriverListed()) return { missing: 'driver' };
  const script = PROBE_SCRIPT.replace("import('webgpu')", `import(${JSON.stringify(pathToFileURL(entry).href)})`);
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 20_000,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  try {
    const adapter = r.status === 0 ? (JSON.parse(r.stdout) as AdapterInfo | null) : null;
    return adapter ? { adapter } : { missing: 'adapter' };
  } catch {
    return { missing: 'adapter' };
  }
}

const MISSING: Record<'package' | 'driver' | 'adapter', [string, string]> = {
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
    'check VK_DRIVER_FILES and the driver, or run --device wasm',
  ],
};

async function webgpuIfAvailable(reason: string, env: NodeJS.ProcessEnv): Promise<Runtime> {
  const p = probeAdapter();
  if ('missing' in p) {
    const [message, hint] = MISSING[p.missing];
    throw new MlaDiffError('device-unavailable', message, { field: '--device' }, hint);
  }
  return createWebgpuRuntime(reason, env);
}

/**
 * auto = webgpu on a hardware adapter; else tfjs-node(-gpu) if it loads; else wasm.
 * A software adapter (lavapipe) is used only when webgpu is asked for by name.
 */
export async function selectRuntime(request: DeviceRequest, log: Log = () => {}, env: NodeJS.ProcessEnv = process.env): Promise<Runtime> {
  tf.enableProdMode();
  const blas = parseBlasRequest(env['MLA_DIFF_BLAS']); // wasm only
  switch (request) {
    case 'webgpu':
      return webgpuIfAvailable('requested', env);
    case 'tensorflow':
      return createTensorflowRuntime('requested');
    case 'wasm':
      return createWasmRuntime('requested', blas);
    case 'cpu':
      return createCpuRuntime('requested');
    case 'auto':
      break;
    default: {
      const never: never = request;
      throw new MlaDiffError('usage', `unknown device "${String(never)}"`, { field: '--device' });
    }
  }
  const notes: string[] = [];
  const probe = probeAdapter();
  const adapter = 'adapter' in probe ? probe.adapter : null;
  if (adapter && !isSoftwareAdapter(adapter)) return createWebgpuRuntime(`auto: hardware adapter ${describeAdapter(adapter)}`, env);
  notes.push(
    adapter ? `skipped software adapter ${describeAdapter(adapter)}` : `no WebGPU (${'missing' in probe ? probe.missing : ''} missing)`,
  );
  try {
    loadTfjsNode();
    return await createTensorflowRuntime(`auto: ${notes.join('; ')}; tfjs-node-gpu loaded`);
  } catch (e) {
    notes.push('tfjs-node-gpu not loadable');
    log(`device auto: ${e instanceof Error ? e.message : String(e)}`);
  }
  return createWasmRuntime(`auto: ${notes.join('; ')}`, blas);
}
