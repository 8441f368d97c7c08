import type { Runtime } from '../devices/runtime';
import { selectRuntime } from '../devices/select';

/** A runtime for unit tests: wasm unless MLA_DIFF_TEST_DEVICE says otherwise (cpu, webgpu). */
export function testRuntime(device = (process.env['MLA_DIFF_TEST_DEVICE'] ?? 'wasm') as 'wasm' | 'cpu' | 'webgpu'): Promise<Runtime> {
  return selectRuntime(device);
}

/** Runs `fn` and asserts that it leaves no tfjs tensor behind. */
export async function expectNoLeak<T>(rt: Runtime, fn: () => Promise<T>): Promise<T> {
  const before = rt.tf.memory().numTensors;
  const out = await fn();
  expect(rt.tf.memory().numTensors).toBe(before);
  return out;
}
