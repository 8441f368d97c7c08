// Host values to the GPU through tfjs's buffer pool (src/devices/webgpu-upload.ts, installed by the
// webgpu runtime): tensors made from float32, int32 and bool host values of 1 to 300 000 elements
// (int32 within ±2^23, which tfjs's webgpu ops carry through f32; and one past the 1 MiB cut-over, through tfjs's own upload) come back
// equal, bit for bit, after a
// GPU op reads them; a tensor disposed while a recorded, unsubmitted command still reads it keeps its
// values for that command while a new upload of the same size goes on; and once the pool holds
// buffers of a size, 50 more uploads of that size create no GPU buffer. Plain node on the built package (mla-diff, mla-diff/devices).
// Usage: node test/e2e/checks/upload-check.mjs [--device webgpu] [--out DIR]. Exit status 1 on a failure or a leak.
import { createRequire } from 'node:module';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { arg } from './check-utils.mjs';

const require = createRequire(import.meta.url);
const api = require('mla-diff');
const { selectRuntime } = api;

const rt = await selectRuntime(arg('device', 'webgpu'));
const { tf } = rt;
const backend = tf.backend();
let created = 0;
const create0 = backend.device.createBuffer.bind(backend.device);
const createdDescs = [];
backend.device.createBuffer = (d) => {
  created++;
  createdDescs.push(d);
  return create0(d);
};
console.log(`device: ${rt.device.description}`);

const hostValues = (n, seed, dtype) => {
  const a = dtype === 'float32' ? new Float32Array(n) : dtype === 'int32' ? new Int32Array(n) : new Uint8Array(n);
  let x = seed >>> 0;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    // int32 within ±2^23: tfjs's webgpu ops carry int32 through f32
    a[i] = dtype === 'float32' ? (x / 2 ** 32 - 0.5) * 1e3 : dtype === 'int32' ? (x & 0xffffff) - 0x800000 : x & 1;
  }
  return a;
};
const same = (got, want) => got.length === want.length && want.every((v, i) => Object.is(Number(got[i]), Number(want[i])));
const checks = [];
const record = (name, ok, extra = {}) => {
  checks.push({ name, ok, ...extra });
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name} ${Object.keys(extra).length ? JSON.stringify(extra) : ''}`);
};

for (const dtype of ['float32', 'int32', 'bool']) {
  for (const n of [1, 3, 1000, 300_000]) {
    const before = tf.memory().numTensors;
    const v = hostValues(n, n + dtype.length, dtype);
    const x = tf.tensor1d(v, dtype);
    const y = tf.tidy(() => (dtype === 'bool' ? tf.logicalNot(tf.logicalNot(x)) : tf.reverse(tf.reverse(x)))); // read on the GPU
    const got = await y.data();
    tf.dispose([x, y]);
    record(`${dtype} [${n}] through a GPU op`, same(got, v) && tf.memory().numTensors === before, {
      leaked: tf.memory().numTensors - before,
    });
  }
}
{
  // past the cut-over: tfjs's own upload
  const v = hostValues((1 << 18) + 5, 7, 'float32');
  const x = tf.tensor1d(v);
  const y = tf.tidy(() => tf.neg(tf.neg(x)));
  const got = await y.data();
  tf.dispose([x, y]);
  record(`float32 [${v.length}] (over 1 MiB, tfjs's upload)`, same(got, v));
}
{
  // a tensor disposed while an unsubmitted command reads it; a new upload of the same size meanwhile
  tf.env().set('WEBGPU_DEFERRED_SUBMIT_BATCH_SIZE', 1000);
  const [v1, v2] = [hostValues(4096, 1, 'float32'), hostValues(4096, 2, 'float32')];
  const a = tf.tensor1d(v1);
  const b = tf.neg(a);
  a.dispose();
  const c = tf.tensor1d(v2);
  const d = tf.neg(c);
  const [gb, gd] = [await b.data(), await d.data()];
  tf.dispose([b, c, d]);
  tf.env().set('WEBGPU_DEFERRED_SUBMIT_BATCH_SIZE', rt.device.name === 'webgpu' ? 4 : 15);
  record(
    'disposed under a pending command, re-uploaded meanwhile',
    same(
      gb,
      v1.map((x) => -x),
    ) &&
      same(
        gd,
        v2.map((x) => -x),
      ),
  );
}
{
  // no buffer created once the pool has one of the size
  for (let i = 0; i < 3; i++) {
    const x = tf.tensor1d(hostValues(64, i, 'int32'), 'int32');
    const y = tf.reverse(x);
    await y.data();
    tf.dispose([x, y]);
  }
  const c0 = created;
  const ok = [];
  for (let i = 0; i < 50; i++) {
    const v = hostValues(64, 100 + i, 'int32');
    const x = tf.tensor1d(v, 'int32');
    const y = tf.reverse(x);
    ok.push(same((await y.data()).reverse(), v));
    tf.dispose([x, y]);
  }
  record('50 uploads of a pooled size create no GPU buffer', ok.every(Boolean) && created === c0, {
    createdBuffers: createdDescs.slice(c0),
  });
}

const passed = checks.every((c) => c.ok);
const out = arg('out', null);
if (out) {
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'upload-check.json'), JSON.stringify({ device: rt.device, passed, checks }, null, 1));
}
console.log(passed ? `\nall ${checks.length} checks pass` : '\nFAIL');
process.exit(passed ? 0 : 1);
