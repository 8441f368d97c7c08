// A device error is caught, not reported as numbers: on webgpu a tensor over the binding limit makes
// Dawn drop the dispatch (its output reads as zeros); the runtime keeps the first uncaptured error and
// checkDevice turns it into device-limit (exit 2 in the CLI). Plain node on dist/; needs an adapter.
// Usage: node bench/kernels/device-error-check.mjs [--device webgpu]. Exit 0 when the error is caught.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const dist = (m) => require(new URL(`../../dist/${m}.js`, import.meta.url).pathname);
const { selectRuntime } = dist('runtime/select');
const { checkDevice } = dist('runtime/device');

const rt = await selectRuntime('webgpu');
const { tf } = rt;
const before = rt.deviceError();
const n = Math.floor(rt.device.adapter.maxStorageBufferBindingSize / 4) + 1024; // just past the binding limit
const x = tf.fill([n], 1);
const y = tf.add(x, 1); // a binding over the limit: the dispatch is dropped
const one = tf.slice(y, [0], [1]);
const value = (await one.data())[0];
tf.dispose([x, y, one]);
await new Promise((r) => setTimeout(r, 50)); // the error event arrives through the event loop
let code = null;
try { checkDevice(rt); } catch (e) { code = e.code; }
console.log(JSON.stringify({ before, value, error: rt.deviceError()?.split('\n')[0] ?? null, code }));
process.exit(before === null && code === 'device-limit' ? 0 : 1);
