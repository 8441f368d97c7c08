import { join } from 'node:path';
import execa from 'execa';
import { ROOT, ensureBuilt, itWebgpu, skipReason } from './webgpu-checks';
import { checkDevice, guarded } from '../../src/devices/device-errors';
import { thrownCode } from '../../src/test-utils/errors';

/**
 * A device error (a binding over the limit, out of device memory) stops a run with device-limit
 * instead of reporting the zeros Dawn leaves behind: checkDevice on a runtime's first uncaptured
 * error; on a real adapter (CI: lavapipe) through checks/device-error-check.mjs.
 */
const BENCH = join(__dirname, 'checks', 'device-error-check.mjs');
jest.setTimeout(300_000);

const rt = (error: string | null) => ({ device: { name: 'webgpu' as const }, deviceError: () => error });

it('checkDevice: nothing without an error; device-limit for out of memory and for any other device error', () => {
  expect(thrownCode(() => checkDevice(rt(null)))).toBe('nothing thrown');
  expect(thrownCode(() => checkDevice({ device: { name: 'wasm' } }))).toBe('nothing thrown');
  expect(thrownCode(() => checkDevice(rt('vkAllocateMemory failed with VK_ERROR_OUT_OF_DEVICE_MEMORY')))).toBe('device-limit');
  expect(thrownCode(() => checkDevice(rt('Binding size (160000000) is larger than the maximum storage buffer binding size')))).toBe(
    'device-limit',
  );
});

it("guarded: the value without an error; device-limit when the device's error scopes caught one", async () => {
  type Scoped = <T>(f: () => Promise<T>) => Promise<{ value: T; error: string | null }>;
  const scoped =
    (error: string | null): Scoped =>
    async (f) => ({ value: await f(), error });
  await expect(guarded({ ...rt(null), scoped: scoped(null) }, async () => 7)).resolves.toBe(7);
  await expect(
    guarded({ ...rt(null), scoped: scoped('vkAllocateMemory failed with VK_ERROR_OUT_OF_DEVICE_MEMORY') }, async () => 7),
  ).rejects.toMatchObject({ code: 'device-limit' });
  await expect(guarded({ device: { name: 'wasm' } }, async () => 3)).resolves.toBe(3);
});

itWebgpu(`webgpu: a binding past the limit is caught as device-limit, not read as numbers${skipReason}`, async () => {
  await ensureBuilt('devices/select.js');
  const r = await execa('node', [BENCH], { cwd: ROOT, reject: false });
  const line =
    r.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .pop() ?? '{}';
  expect({ exit: r.exitCode, ...JSON.parse(line) }).toMatchObject({ exit: 0, before: null, code: 'device-limit' });
});
