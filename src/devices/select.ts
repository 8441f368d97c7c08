import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import * as tf from '@tensorflow/tfjs-core';
import { MlaDiffError } from '../errors';
import type { Missing } from './adapter';
import { describeAdapter, isSoftwareAdapter, PROBE_SCRIPT, webgpuUnavailable } from './adapter';
import type { AdapterInfo, DeviceRequest, Log, Runtime } from './runtime';
import { createCpuRuntime } from './cpu';
import { createTensorflowRuntime, loadTfjsNode } from './tensorflow';
import { createWasmRuntime } from './wasm';
import { parseBlasRequest } from './kernels/host-blas';
import { createWebgpuRuntime } from './webgpu';
import { missingPackages } from './install-hints';
import type { StderrCapture } from './native-stderr';
import { stderrCapture } from './native-stderr';

const ICD_DIRS = ['/usr/share/vulkan/icd.d', '/etc/vulkan/icd.d', '/usr/local/share/vulkan/icd.d'];

/** Is there any Vulkan driver manifest Dawn could load? Saves a probe on machines without one. */
function vulkanDriverListed(): boolean {
  if (process.env['VK_DRIVER_FILES'] || process.env['VK_ICD_FILENAMES']) return true;
  return ICD_DIRS.some((d) => existsSync(d) && readdirSync(d).some((f) => f.endsWith('.json')));
}

export type Probe = { adapter: AdapterInfo } | { missing: Missing };

/** What is missing before Dawn is even loaded: its package, or any Vulkan driver for it to find. */
function missingBeforeDawn(): Missing | null {
  if (missingPackages('webgpu').length) return 'package';
  return vulkanDriverListed() ? null : 'driver';
}

/** What Dawn and the Vulkan loader wrote while they looked, one log line each: seen under --verbose only. */
const logStderr = (log: Log) => (text: string) => {
  for (const line of text.split('\n')) if (line.trim()) log(`webgpu stderr: ${line.trimEnd()}`);
};

/**
 * Asks Dawn for an adapter in a child process: Dawn and the Vulkan loader print warnings (and
 * stack-like error lines) on stderr while they look for drivers, and none of that may reach the user;
 * and a driver that crashes Dawn takes down the child, not this process.
 */
export function probeAdapter(log: Log = () => {}): Probe {
  const missing = missingBeforeDawn();
  if (missing) return { missing };
  const entry = pathToFileURL(require.resolve('webgpu')).href;
  const script = PROBE_SCRIPT.replace("import('webgpu')", `import(${JSON.stringify(entry)})`);
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 20_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  logStderr(log)(r.stderr ?? '');
  try {
    const adapter = r.status === 0 ? (JSON.parse(r.stdout) as AdapterInfo | null) : null;
    return adapter ? { adapter } : { missing: 'adapter' };
  } catch {
    return { missing: 'adapter' };
  }
}

/** The in-process adapter and device, with fd 2 captured around them where libc allows (native-stderr.ts). */
function webgpuQuietly(capture: StderrCapture | null, reason: string, env: NodeJS.ProcessEnv, log: Log): Promise<Runtime> {
  return capture ? capture(() => createWebgpuRuntime(reason, env), logStderr(log)) : createWebgpuRuntime(reason, env);
}

/**
 * `--device webgpu`: Dawn in this process at once, its stderr captured (no child process: 0.24 s warm, 0.49 s cold on
 * the H200, bench/cli/results.md). Without libc to capture it with, the child probe first, as auto does. The price: a
 * driver that crashes Dawn while it enumerates adapters now ends this process rather than the child; webgpu was asked
 * for by name, and one that crashes in making the device did so here already.
 */
async function webgpuIfAvailable(reason: string, env: NodeJS.ProcessEnv, log: Log): Promise<Runtime> {
  const capture = stderrCapture();
  let missing = missingBeforeDawn();
  if (!missing && !capture) {
    const probe = probeAdapter(log);
    if ('missing' in probe) missing = probe.missing;
  }
  if (missing) throw webgpuUnavailable(missing);
  return webgpuQuietly(capture, reason, env, log);
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
      return webgpuIfAvailable('requested', env, log);
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
  // auto keeps the child: it must stay quiet and alive on machines whose driver crashes Dawn, where nobody asked for a GPU.
  const probe = probeAdapter(log);
  const adapter = 'adapter' in probe ? probe.adapter : null;
  if (adapter && !isSoftwareAdapter(adapter)) {
    return webgpuQuietly(stderrCapture(), `auto: hardware adapter ${describeAdapter(adapter)}`, env, log);
  }
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
