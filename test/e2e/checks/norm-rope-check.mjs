// The single-program RMSNorm and RoPE (src/devices/kernels/norm-rope.ts) against the tfjs ops they replace
// (shared.ts rmsNorm / applyRope) on the same webgpu backend and against float64 on the host: rows
// of the GLM-5 norms' widths, widths off the 256-thread stride, a row count past the 65 535
// workgroups of one dispatch dimension (spilling into y), both pair styles on [T,N,R] and [T,R],
// and empty tensors. Tolerance: max |kernel − oracle| / max |oracle| ≤ 1e-6 (the squares' sum order
// and a fused multiply-add differ). Plain node on the built package (mla-diff, mla-diff/devices). Usage: node
// test/e2e/checks/norm-rope-check.mjs
// [--device webgpu] [--out DIR]. Exit status 1 on a mismatch or a leaked tensor.
import { createRequire } from 'node:module';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { arg } from './check-utils.mjs';

const require = createRequire(import.meta.url);
const api = require('mla-diff');
const dev = require('mla-diff/devices');
const { selectRuntime } = api;
const { rmsNormKernel, ropeKernel } = dev;
const { rmsNorm, applyRope } = api;

const TOL = 1e-6;
const rt = await selectRuntime(arg('device', 'webgpu'));
const { tf } = rt;
console.log(`device: ${rt.device.description}`);

function values(n, seed, scale = 1) {
  const a = new Float32Array(n);
  let x = seed >>> 0;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    a[i] = ((x / 2 ** 32) * 2 - 1) * scale;
  }
  return a;
}
const relErr = (got, want) => {
  let d = 0,
    s = 0;
  for (let i = 0; i < want.length; i++) {
    d = Math.max(d, Math.abs(got[i] - want[i]));
    s = Math.max(s, Math.abs(want[i]));
  }
  return s > 0 ? d / s : d;
};

const checks = [];
async function check(name, make, host) {
  const before = tf.memory().numTensors;
  const { got, want, inputs } = make();
  const [g, w] = [await got.data(), await want.data()];
  const shapeOk = JSON.stringify(got.shape) === JSON.stringify(want.shape);
  tf.dispose([got, want, ...inputs]);
  const leaked = tf.memory().numTensors - before;
  const rel = relErr(g, w);
  const hostErr = relErr(g, host());
  const ok = shapeOk && rel <= TOL && hostErr <= TOL && leaked === 0;
  checks.push({ name, rel, host: hostErr, shapeOk, leakedTensors: leaked, ok });
  console.log(
    `${ok ? 'ok  ' : 'FAIL'} ${name.padEnd(44)} vs tfjs ${rel.toExponential(2)} vs float64 ${hostErr.toExponential(2)}` +
      `${shapeOk ? '' : ' SHAPE'} leaked ${leaked}`,
  );
}

const EPS = 1e-5;
for (const [i, shape] of [
  [1, 7],
  [5, 6144],
  [3, 513],
  [4, 2, 512],
  [70000, 4],
  [0, 8],
].entries()) {
  const n = shape.reduce((a, b) => a * b, 1);
  const C = shape[shape.length - 1];
  const xv = values(n, 10 + i, 3),
    wv = values(C, 20 + i);
  await check(
    `rmsNorm [${shape}]`,
    () => {
      const x = tf.tensor(xv, shape),
        w = tf.tensor1d(wv);
      return { got: rmsNormKernel(tf, x, w, EPS), want: tf.tidy(() => rmsNorm(x, w, EPS)), inputs: [x, w] };
    },
    () => {
      const out = new Float64Array(n);
      for (let r = 0; r < n / C; r++) {
        let s = 0;
        for (let c = 0; c < C; c++) s += xv[r * C + c] ** 2;
        const inv = 1 / Math.sqrt(s / C + EPS);
        for (let c = 0; c < C; c++) out[r * C + c] = xv[r * C + c] * inv * wv[c];
      }
      return out;
    },
  );
}
for (const style of ['gptj', 'neox']) {
  for (const [i, shape] of [
    [4, 3, 8],
    [9, 64],
    [33, 16, 64],
    [0, 2, 4],
  ].entries()) {
    const n = shape.reduce((a, b) => a * b, 1);
    const [T, R] = [shape[0], shape[shape.length - 1]];
    const h = R / 2,
      inner = T ? n / (T * R) : 0;
    const xv = values(n, 40 + i, 2),
      cv = values(T * h, 50 + i),
      sv = values(T * h, 60 + i);
    await check(
      `rope ${style} [${shape}]`,
      () => {
        const x = tf.tensor(xv, shape),
          cos = tf.tensor2d(cv, [T, h]),
          sin = tf.tensor2d(sv, [T, h]);
        return { got: ropeKernel(tf, x, cos, sin, style), want: tf.tidy(() => applyRope(x, { cos, sin }, style)), inputs: [x, cos, sin] };
      },
      () => {
        const out = new Float64Array(n);
        for (let t = 0; t < T; t++)
          for (let m = 0; m < inner; m++)
            for (let j = 0; j < h; j++) {
              const base = (t * inner + m) * R;
              const [a, b] = style === 'gptj' ? [base + 2 * j, base + 2 * j + 1] : [base + j, base + j + h];
              const [c, s] = [cv[t * h + j], sv[t * h + j]];
              out[a] = xv[a] * c - xv[b] * s;
              out[b] = xv[b] * c + xv[a] * s;
            }
        return out;
      },
    );
  }
}

const passed = checks.every((c) => c.ok);
const outDir = arg('out');
if (outDir) {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'norm-rope-check.json'), JSON.stringify({ device: rt.device, tolerance: TOL, passed, checks }, null, 2));
}
console.log(passed ? `\nall ${checks.length} cases within ${TOL} relative, no leak` : '\nFAIL: a case exceeds the tolerance or leaks');
process.exit(passed ? 0 : 1);
