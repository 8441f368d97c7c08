// Runtime.round on one device against the reference rounding (src/core/precision/oracle.ts) and the
// host's roundInto, bit for bit, on the edge and random input sets of every storage format; then
// the throughput of Runtime.round on a large tensor against a host round trip (download, roundArray,
// upload). Plain node on the built package (mla-diff, mla-diff/devices; production dependencies only).
// Usage: node test/e2e/checks/rounding-check.mjs --device webgpu [--out DIR] [--random 100000]
//          [--elements 67108864] [--reps 5]      (--elements 0 skips the throughput part)
// Exit status 1 when any value differs from the oracle.
import { createRequire } from 'node:module';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import os from 'node:os';
import { arg } from './check-utils.mjs';

const require = createRequire(import.meta.url);
const api = require('mla-diff');
const dev = require('mla-diff/devices');
const { selectRuntime } = api;
const { STORAGE_DTYPES, FORMATS, roundArray, roundInto, buildOracle, oracleRoundArray, edgeValues, randomValues, bitMismatches } = dev;

const device = arg('device', 'auto');
const outDir = arg('out');
const randomCount = Number(arg('random', '100000'));
const requested = Number(arg('elements', String(64 * 2 ** 20)));
const reps = Number(arg('reps', '5'));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const hex = (u) => `0x${(u >>> 0).toString(16).padStart(8, '0')}`;

const rt = await selectRuntime(device);
const { tf } = rt;
// A tensor may not exceed the device's storage binding limit (128 MiB on lavapipe).
const elements = Math.min(requested, Math.floor(rt.maxTensorBytes / 4));
console.log(`device: ${rt.device.description}${elements < requested ? ` (throughput on ${elements} elements: the binding limit)` : ''}`);

/** Runtime.round of `input` read back, and whether any tensor was left behind. */
async function deviceRound(input, dtype) {
  const before = tf.memory().numTensors;
  const x = tf.tensor(input, [input.length], 'float32');
  const y = tf.tidy(() => rt.round(x, dtype));
  const got = new Float32Array(await y.data());
  y.dispose();
  x.dispose();
  return { got, leaked: tf.memory().numTensors - before };
}

const checks = [];
for (const dtype of STORAGE_DTYPES) {
  const oracle = buildOracle(dtype);
  const edges = edgeValues(oracle);
  // The edge set at odd length (a scalar kernel on webgpu), the random one a multiple of 4 (vec4).
  const sets = { edge: edges.length % 2 ? edges : edges.subarray(1), random: randomValues(oracle, randomCount, 3) };
  for (const [set, input] of Object.entries(sets)) {
    const want = oracleRoundArray(oracle, input);
    const host = new Float32Array(input.length);
    const hostOverflowed = roundInto(input, host, dtype);
    const { got, leaked } = await deviceRound(input, dtype);
    const vsOracle = bitMismatches(input, got, want.out);
    const hostVsOracle = bitMismatches(input, host, want.out);
    const vsHost = bitMismatches(input, got, host);
    checks.push({
      dtype,
      set,
      values: input.length,
      deviceVsOracle: vsOracle.count,
      hostVsOracle: hostVsOracle.count,
      deviceVsHost: vsHost.count,
      overflowed: { oracle: want.overflowed, roundInto: hostOverflowed },
      leakedTensors: leaked,
      firstMismatches: [...vsOracle.first, ...hostVsOracle.first].map((m) => ({
        index: m.index,
        input: hex(m.input),
        got: hex(m.got),
        want: hex(m.want),
      })),
    });
  }
}

console.log('\ndtype     set     values  device≠oracle  roundInto≠oracle  device≠roundInto  overflowed (oracle/roundInto)  leaked');
for (const c of checks) {
  console.log(
    `${FORMATS[c.dtype].short.padEnd(9)} ${c.set.padEnd(7)} ${String(c.values).padStart(6)}  ` +
      `${String(c.deviceVsOracle).padStart(13)}  ${String(c.hostVsOracle).padStart(16)}  ${String(c.deviceVsHost).padStart(16)}  ` +
      `${`${c.overflowed.oracle}/${c.overflowed.roundInto}`.padStart(29)}  ${String(c.leakedTensors).padStart(6)}`,
  );
  for (const m of c.firstMismatches) console.log(`    mismatch at ${m.index}: input ${m.input} got ${m.got} want ${m.want}`);
}

/** One element read back: waits for every queued kernel without downloading the tensor. */
const sync = async (t) => {
  const one = tf.slice(t, [0], [1]);
  await one.data();
  one.dispose();
};

/** The host round trip Runtime.round replaces: download (asynchronously: webgpu has no dataSync in Node), round, upload. */
const hostTrip = async (t, dtype) => tf.tensor(roundArray(await t.data(), dtype), t.shape, 'float32');

async function timeIt(fn, x) {
  const times = [];
  for (let r = 0; r <= reps; r++) {
    const t0 = performance.now();
    const y = await fn(x);
    await sync(y);
    const ms = performance.now() - t0;
    y.dispose();
    if (r > 0) times.push(ms); // r = 0 warms up (shader compilation, allocation)
  }
  return { medianMs: median(times), allMs: times };
}

const throughput = [];
if (elements > 0) {
  const x = rt.makeFilled([elements], (dst) => {
    for (let i = 0; i < dst.length; i++) dst[i] = Math.sin(i * 0.7) * 2 ** ((i % 61) - 30);
  });
  await sync(x);
  const syncOnly = [];
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    await sync(x);
    syncOnly.push(performance.now() - t0);
  }
  console.log(
    `\nthroughput on ${elements} elements (${((elements * 4) / 2 ** 20).toFixed(0)} MiB), median of ${reps} after a warm-up; ` +
      `sync (1-element read) alone ${median(syncOnly).toFixed(2)} ms`,
  );
  for (const dtype of STORAGE_DTYPES) {
    const onDevice = await timeIt((t) => rt.round(t, dtype), x);
    const trip = await timeIt((t) => hostTrip(t, dtype), x);
    const row = {
      dtype,
      elements,
      device: onDevice,
      hostRoundTrip: trip,
      deviceGBps: (elements * 8) / (onDevice.medianMs * 1e6),
      speedup: trip.medianMs / onDevice.medianMs,
    };
    throughput.push(row);
    console.log(
      `${FORMATS[dtype].short.padEnd(5)} Runtime.round ${onDevice.medianMs.toFixed(2).padStart(9)} ms (` +
        `${row.deviceGBps.toFixed(1)} GB/s read+write)   host round trip ${trip.medianMs.toFixed(1).padStart(8)} ms   ×` +
        `${row.speedup.toFixed(1)}`,
    );
  }
  x.dispose();
  throughput.syncOnlyMs = median(syncOnly);
}

const failed = checks.some((c) => c.deviceVsOracle || c.hostVsOracle || c.overflowed.oracle !== c.overflowed.roundInto || c.leakedTensors);
const result = {
  command: `node test/e2e/checks/rounding-check.mjs ${process.argv.slice(2).join(' ')}`,
  device: rt.device,
  host: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version },
  bitExact: !failed,
  checks,
  throughput: { syncOnlyMs: throughput.syncOnlyMs ?? null, rows: [...throughput] },
};
if (outDir) {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'rounding.json'), JSON.stringify(result, null, 2));
  const md = [
    `# Runtime.round on ${rt.device.description}`,
    '',
    `\`${result.command}\` — bit exact: **${!failed}**`,
    '',
    '| dtype | set | values | device≠oracle | roundInto≠oracle | device≠roundInto | overflowed (oracle/roundInto) |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...checks.map(
      (c) =>
        `| ${FORMATS[c.dtype].short} | ${c.set} | ${c.values} | ${c.deviceVsOracle} | ${c.hostVsOracle} | ${c.deviceVsHost} | ` +
        `${c.overflowed.oracle}/${c.overflowed.roundInto} |`,
    ),
    ...(throughput.length
      ? [
          '',
          `Throughput, ${elements} elements, median of ${reps} (1-element read-back sync alone: ${throughput.syncOnlyMs.toFixed(2)} ms):`,
          '',
          '| dtype | Runtime.round ms | GB/s (read+write) | host round trip ms | speed-up |',
          '|---|---:|---:|---:|---:|',
          ...throughput.map(
            (r) =>
              `| ${FORMATS[r.dtype].short} | ${r.device.medianMs.toFixed(2)} | ${r.deviceGBps.toFixed(1)} | ` +
              `${r.hostRoundTrip.medianMs.toFixed(1)} | ${r.speedup.toFixed(1)} |`,
          ),
        ]
      : []),
    '',
  ].join('\n');
  writeFileSync(join(outDir, 'rounding.md'), md);
}
console.log(
  failed ? '\nFAIL: some value differs from the reference rounding' : '\nbit exact: every device result equals the reference rounding',
);
process.exit(failed ? 1 : 0);
