// bench/reference/results.md from results.json (bench/reference/run.mjs writes both; --render redoes the Markdown).
const f = (x, d = 1) => (x == null || !Number.isFinite(x) ? '—' : x.toFixed(d));

/** The Markdown page of one results document. */
export function render(doc) {
  const m = doc.machine;
  const lines = [
    '# The float64 reference at real sizes',
    '',
    'GLM-5, all 64 heads, one causal prefill of T synthetic tokens (issue 21). Produced by',
    '',
    `    ${doc.command}`,
    '',
    `on ${m.cpu}, ${m.cores} cores, ${f(m.memoryGiB, 0)} GiB, Node ${m.node}, ${doc.date.slice(0, 10)}; load average at the end`,
    `${m.load.map((x) => f(x, 1)).join(' / ')} (1 / 5 / 15 min: other jobs shared the machine where it is above the core count);`,
    `Math.exp ${f(m.expNs)} ns a call on one thread, fresh memory written at ${f(m.firstTouchGBps, 2)} GB/s (first touch).`,
    '',
    '## The reference alone',
    '',
    "Its own process (bench/reference/one.mjs): `seconds` is runReferenceJob's wall time (weights generated, every stage",
    "recorded); `GMAC/s` the estimate's multiply-adds (planReference, src/harness/run/plan-reference.ts) over it;",
    '`estimate` what `reference: auto` expects on this machine; `scores`: logits and attn_probs recorded (unfused wasm) or',
    "not (fused attention: one group of heads' logits at a time, only the keys each row sees multiplied).",
    '',
    '| T | scores | GEMM | seconds | TMAC | GMAC/s | estimate (s) | records (GiB, est.) | peak RSS (GiB) |',
    '|---:|:---:|---|---:|---:|---:|---:|---:|---:|',
    ...doc.rows.map((r) =>
      r.failed
        ? `| ${r.T} | ${r.scores ? 'yes' : 'no'} | ${r.gemm} | ${r.failed} | | | | | |`
        : `| ${r.T} | ${r.scores ? 'yes' : 'no'} | ${r.gemm} | ${f(r.seconds)} | ${f(r.tmac, 3)} | ${f(r.gmacPerS)} | ` +
          `${f(r.estimate)} | ${f(r.estimateGiB)} | ${f(r.rssGiB)} |`,
    ),
    '',
  ];
  if (doc.runs.length) {
    const by = (T, ref) => doc.runs.find((r) => r.T === T && r.reference === ref);
    lines.push(
      '## Beside the fp32 paths (the CLI on wasm)',
      '',
      "`mla-diff run <the scenario> --device wasm --format json`: with `--reference off`, the fp32 paths' wall time (MHA, MQA,",
      'cold as the run report times them, and the whole process); with `--reference on`, the whole run with the reference on',
      "its worker thread beside them, the reference's own seconds there, and the process's peak RSS.",
      '',
      '| T | paths: mha / mqa / cold (s) | ref. off (s) | peak RSS (GiB) | ref. on (s) | reference (s) | peak RSS (GiB) | verdict |',
      '|---:|---:|---:|---:|---:|---:|---:|:---:|',
    );
    for (const T of [...new Set(doc.runs.map((r) => r.T))]) {
      const [off, on] = [by(T, 'off'), by(T, 'on')];
      const p = off?.paths ?? {};
      const cell = (r, x) => (r?.failed ? r.failed : x);
      lines.push(
        `| ${T} | ${f(p.mha)} / ${f(p.mqa)} / ${f(p.cold)} | ${cell(off, f(off?.wall))} | ${f(off?.rssGiB)} | ` +
          `${cell(on, f(on?.wall))} | ${f(on?.seconds?.reference)} | ${f(on?.rssGiB)} | ${on?.verdict ?? '—'} |`,
      );
    }
    lines.push('', `Device line of the runs: ${doc.runs.find((r) => r.device)?.device ?? '—'}.`, '');
  }
  if (doc.notes?.length) lines.push('## Notes', '', ...doc.notes.map((n) => `- ${n}`), '');
  return lines.join('\n');
}
