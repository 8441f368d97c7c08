// The issue-8 table from one device session: mla-diff's layer times (bench/gpu/attention.mjs JSON,
// one or more files) beside PyTorch eager fp32 on the same GPU (the stdout of
// ../shared/anchors/mla_torch.py), with the ratio. Prints Markdown; writes --out JSON.
// Usage: node bench/gpu/summary.mjs --layer a.json[,b.json] --torch torch.log [--out summary.json]
import { readFileSync, writeFileSync, existsSync } from 'node:fs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const rows = arg('layer', '')
  .split(',')
  .filter((f) => f && existsSync(f))
  .flatMap((f) => JSON.parse(readFileSync(f, 'utf8')).rows);
const torchLog = arg('torch', '');
const torch = new Map(); // T → { mha, mqa, peakGB }
if (torchLog && existsSync(torchLog)) {
  for (const line of readFileSync(torchLog, 'utf8').split('\n')) {
    const m = /^torch\.float32\s+T=\s*(\d+)\s+mha\s+([\d.]+) ms\s+mqa\s+([\d.]+) ms.*peakGB=([\d.]+)/.exec(line);
    if (m) torch.set(Number(m[1]), { mha: Number(m[2]), mqa: Number(m[3]), peakGB: Number(m[4]) });
  }
}
const fmt = (x, d = 1) => (x === undefined || x === null || Number.isNaN(x) ? '—' : x.toFixed(d));
const out = [];
console.log('| T | path | probes off | probes on | TFLOP/s (off) | GPU memory | PyTorch eager fp32 | ratio off | ratio on |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  for (const path of ['mha', 'mqa']) {
    const off = r[`${path}_off`];
    const on = r[`${path}_on`];
    const t = torch.get(r.tokens)?.[path];
    const e = {
      tokens: r.tokens,
      path,
      offMs: off?.ms,
      onMs: on?.ms,
      tflops: off?.tflops,
      gpuBytes: Math.max(off?.gpuBytes ?? 0, on?.gpuBytes ?? 0) || undefined,
      torchMs: t,
      ratioOff: t && off?.ms ? off.ms / t : undefined,
      ratioOn: t && on?.ms ? on.ms / t : undefined,
      error: off?.error ?? on?.error,
    };
    out.push(e);
    const mem = e.gpuBytes ? `${(e.gpuBytes / 2 ** 30).toFixed(1)} GiB` : '—';
    console.log(
      `| ${r.tokens} | ${path} | ${e.error && !off?.ms ? e.error.slice(0, 40) : `${fmt(e.offMs)} ms`} | ` +
        `${on?.ms ? `${fmt(e.onMs)} ms` : '—'} | ${fmt(e.tflops)} | ${mem} | ${t ? `${fmt(t, 2)} ms` : '—'} | ` +
        `${e.ratioOff ? `${fmt(e.ratioOff, 2)}×` : '—'} | ${e.ratioOn ? `${fmt(e.ratioOn, 2)}×` : '—'} |`,
    );
  }
}
const both = (T, k) => {
  const a = out.filter((e) => e.tokens === T);
  return a.length === 2 && a.every((e) => e[k]) ? a.reduce((s, e) => s + e[k], 0) : undefined;
};
for (const T of [...new Set(out.map((e) => e.tokens))]) {
  const t = torch.get(T);
  const [off, on] = [both(T, 'offMs'), both(T, 'onMs')];
  if (t && off)
    console.log(
      `T=${T}: both paths ${fmt(off)} ms off, ${fmt(on)} ms on; PyTorch ${fmt(t.mha + t.mqa)} ms → ` +
        `${fmt(off / (t.mha + t.mqa), 2)}× / ${on ? fmt(on / (t.mha + t.mqa), 2) : '—'}×`,
    );
}
// Both paths as the CLI runs a piece (pipelined: attention.mjs `both_*`).
const pipelined = [];
for (const r of rows) {
  const t = torch.get(r.tokens);
  const [off, on] = [r.both_off?.ms, r.both_on?.ms];
  if (off === undefined && on === undefined) continue;
  const torchMs = t ? t.mha + t.mqa : undefined;
  pipelined.push({
    tokens: r.tokens,
    offMs: off,
    onMs: on,
    torchMs,
    ratioOff: torchMs && off ? off / torchMs : undefined,
    ratioOn: torchMs && on ? on / torchMs : undefined,
  });
  console.log(
    `T=${r.tokens}: both paths pipelined (as the CLI) ${fmt(off)} ms off, ${fmt(on)} ms on` +
      `${torchMs ? `; PyTorch mha+mqa ${fmt(torchMs)} ms → ${fmt(off / torchMs, 2)}× / ${fmt(on / torchMs, 2)}×` : ''}`,
  );
}
const file = arg('out', null);
if (file) writeFileSync(file, JSON.stringify({ rows: out, pipelined, torch: Object.fromEntries(torch) }, null, 1));
