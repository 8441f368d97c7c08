import { MlaDiffError } from '../errors';
import type { DeviceName, Runtime } from './runtime';

/** The part of a Runtime its error handling reads. */
export interface DeviceLike {
  readonly device: { readonly name: DeviceName };
  readonly deviceError?: Runtime['deviceError'];
  readonly scoped?: Runtime['scoped'];
}

/**
 * What tfjs-backend-wasm throws when its heap (4 GiB: wasm32) cannot hold a tensor: emscripten's
 * abort, a RuntimeError from an access past the heap's end, a failed grow, or (its malloc having
 * aborted) a view of the heap past its end where the new tensor should be.
 */
const WASM_HEAP =
  /memory access out of bounds|Aborted\(|Cannot enlarge memory|Out of memory|WebAssembly\.Memory|Invalid typed array length/;

/**
 * f inside the device's error scopes; throws device-limit (checkDevice) when the device reported an
 * error meanwhile, or (wasm) when f ran the heap out.
 */
export async function guarded<T>(rt: DeviceLike, f: () => Promise<T>): Promise<T> {
  if (!rt.scoped) {
    let value: T;
    try {
      value = await f();
    } catch (e) {
      throw wasmHeapLimit(rt, e) ?? e;
    }
    checkDevice(rt);
    return value;
  }
  const { value, error } = await rt.scoped(f);
  checkDevice(rt, error);
  return value;
}

/** device-limit for an error that is the wasm heap running out, else null. */
export function wasmHeapLimit(rt: DeviceLike, e: unknown): MlaDiffError | null {
  const message = e instanceof Error ? e.message : String(e);
  if (rt.device.name !== 'wasm' || !WASM_HEAP.test(message)) return null;
  return new MlaDiffError(
    'device-limit',
    `wasm: the heap ran out (tfjs-backend-wasm's is at most 4 GiB: ${message.split('\n')[0]}); ` +
      'results after it are invalid, none is reported',
    { field: '--device' },
    'fewer tokens, heads (cases: heads) or pieces, or --device webgpu on a GPU (a 64-head T = 2048 prefill fits on wasm)',
  );
}

/** Throws device-limit (exit 3) when the device reported an error: its results since are not numbers to judge. */
export function checkDevice(rt: DeviceLike, scoped: string | null = null): void {
  const error = scoped ?? rt.deviceError?.();
  if (!error) return;
  const memory = /out of (device )?memory|OUT_OF_DEVICE_MEMORY/i.test(error);
  throw new MlaDiffError(
    'device-limit',
    `${rt.device.name}: the GPU reported ${memory ? 'running out of memory' : 'an error'} (${error.split('\n')[0]}); ` +
      'results after it are invalid, none is reported',
    { field: '--device' },
    memory
      ? "a piece is compared with every stage of every path held on the GPU: shorter pieces (a step's chunk:), fewer heads (cases: heads)"
      : 'run with --verbose for the device log; check the adapter and driver',
  );
}
