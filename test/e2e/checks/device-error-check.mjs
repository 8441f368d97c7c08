// A device error is caught, not reported as numbers: on webgpu a tensor over the binding limit makes
// Dawn drop the dispatch (its output reads as zeros); run inside the runtime's error scopes (guarded,
// as run-case runs every step) it becomes device-limit (exit 2 in the CLI). Plain node on the built package (mla-diff, mla-diff/devices);
// needs an adapter.
// Usage: node test/e2e/checks/device-error-check.mjs [--device webgpu]. Exit 0 when the error is caught.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const api = require('mla-diff');
const dev = require('mla-diff/devices');
const { selectRuntime } = api;
const { guarded } = dev;

const rt = await selectRuntime('webgpu');
const { tf } = rt;
const before = rt.deviceError();
const n = Math.floor(rt.device.adapter.maxStorageBufferBindingSize / 4) + 1024; // just past the binding limit
let value = null;
let code = null;
try {
  await guarded(rt, async () => {
    // as run-case runs each step: inside the device's error scopes
    const x = tf.fill([n], 1);
    const y = tf.add(x, 1); // a binding over the limit: the dispatch is dropped
    const one = tf.slice(y, [0], [1]);
    value = (await one.data())[0];
    tf.dispose([x, y, one]);
  });
} catch (e) {
  code = e.code;
}
console.log(JSON.stringify({ before, value, error: rt.deviceError()?.split('\n')[0] ?? null, code }));
process.exit(before === null && code === 'device-limit' ? 0 : 1);
