import { MlaDiffError } from '../errors';
import { guarded, wasmHeapLimit } from './device-errors';

const wasm = { device: { name: 'wasm' as const } };
// Node's WebAssembly, which this project's TypeScript lib does not declare.
const { RuntimeError } = (globalThis as unknown as { WebAssembly: { RuntimeError: ErrorConstructor } }).WebAssembly;

describe('the wasm heap running out', () => {
  it.each([
    ['a RuntimeError past the heap', new RuntimeError('memory access out of bounds')],
    ["emscripten's abort", new Error('Aborted(). Build with -sASSERTIONS for more info.')],
    ['a failed grow', new RangeError('WebAssembly.Memory.grow(): Maximum memory size exceeded')],
    ['a view where malloc gave nothing (seen: 64 heads, T = 8192)', new RangeError('Invalid typed array length: 234881024')],
  ])('%s is device-limit, naming the heap, with a hint', async (_, e) => {
    await expect(
      guarded(wasm, async () => {
        throw e;
      }),
    ).rejects.toMatchObject({ code: 'device-limit', where: { field: '--device' } });
    const err = wasmHeapLimit(wasm, e)!;
    expect(err).toBeInstanceOf(MlaDiffError);
    expect(err.message).toMatch(/^wasm: the heap ran out/);
    expect(err.hint).toMatch(/fewer tokens/);
  });

  it('other errors, and the same messages on other devices, pass through unchanged', async () => {
    const other = new TypeError('x is not a function');
    await expect(
      guarded(wasm, async () => {
        throw other;
      }),
    ).rejects.toBe(other);
    const oob = new RuntimeError('memory access out of bounds');
    expect(wasmHeapLimit({ device: { name: 'cpu' } }, oob)).toBeNull();
    await expect(
      guarded({ device: { name: 'cpu' } }, async () => {
        throw oob;
      }),
    ).rejects.toBe(oob);
    await expect(guarded(wasm, async () => 5)).resolves.toBe(5);
  });
});
