// bench/cpu's one results document: results.json holds one key per measurement (what the script that
// measured it wrote), results.md is rendered from results.json alone, a section per key. The scripts
// call record(key, data); `node bench/cpu/results.mjs` re-renders results.md from results.json.
//   capital-of-france   run.mjs           mla-diff run scenarios/capital-of-france.yaml against the numpy anchor
//   issue8-<T>          issue8.mjs        issue 8's target (the layer ≤ 2× numpy) at T tokens
//   gemm-ceiling-<T>    gemm-ceiling.mjs  the projections as plain products: wasm, host BLAS, numpy
//   (wasm ceiling)      wasm-ceiling.mjs  derived from gemm-ceiling-512, long and issue8-512, no timing of its own
//   long                long.mjs          the layer's forward at T = 512 and 2048, before/after
//   profile-512         forward.mjs --profile, assembled by hand (its note says how)
//   cli-long            cli-long.mjs      scenarios/gpu/glm5-long-2048.yaml through the CLI on wasm
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const JSON_PATH = 'bench/cpu/results.json';
export const MD_PATH = 'bench/cpu/results.md';
const GROUPS = ['capital-of-france', 'issue8', 'gemm-ceiling', 'long', 'profile', 'cli-long']; // the order of the sections
/** Sorts keys by section group, then by prompt length (issue8-512 before issue8-2048), then by name. */
const byOrder = (a, b) => {
  const g = (k) => GROUPS.findIndex((x) => k === x || k.startsWith(`${x}-`));
  const t = (k) => Number(/-(\d+)$/.exec(k)?.[1] ?? 0);
  const [ga, gb] = [g(a), g(b)].map((x) => (x < 0 ? GROUPS.length : x));
  return ga - gb || t(a) - t(b) || a.localeCompare(b);
};

/** results.json as an object (empty when there is none yet). */
export function load() {
  return existsSync(JSON_PATH) ? JSON.parse(readFileSync(JSON_PATH, 'utf8')) : {};
}

/** Stores one measurement under its key in results.json and re-renders results.md; returns results.md. */
export function record(key, data) {
  const doc = { ...load(), [key]: data };
  const sorted = Object.fromEntries(
    Object.keys(doc)
      .sort(byOrder)
      .map((k) => [k, doc[k]]),
  );
  writeFileSync(JSON_PATH, `${JSON.stringify(sorted, null, 1)}\n`);
  return rerender(sorted);
}

/** Rewrites results.md from results.json (or from doc); returns it. */
export function rerender(doc = load()) {
  const md = render(doc);
  writeFileSync(MD_PATH, md);
  return md;
}

const machineLine = (m) => `${m.cpus} × ${m.cpu}, ${m.memGiB} GiB, Node ${m.node}`;
const anchor = (id) => `<a id="${id}"></a>`;

/** results.md: a header, then a section per measurement present in doc. */
export function render(doc) {
  const keys = Object.keys(doc).sort(byOrder);
  const sections = [];
  const toc = [];
  const add = (id, title, lines) => {
    toc.push(`- [${title}](#${id})`);
    sections.push(anchor(id), `## ${title}`, '', ...lines);
    while (sections.at(-1) === '' && sections.at(-2) === '') sections.pop();
  };
  for (const key of keys) {
    const d = doc[key];
    if (key === 'capital-of-france') add(key, 'capital-of-france end to end vs the numpy anchor', capitalOfFrance(d));
    else if (/^issue8-\d+$/.test(key)) add(key, `Issue 8's target at T = ${d.tokens} (both paths ≤ 2× numpy)`, issue8(d));
    else if (/^gemm-ceiling-\d+$/.test(key)) {
      add(key, `The projections as plain products at T = ${d.tokens}: wasm, host BLAS, numpy`, gemmCeiling(d));
      if (d.tokens === 512 && doc.long)
        add('wasm-ceiling', 'Why 2× numpy at T = 512 is out of reach on wasm’s own kernels, and what meets it', wasmCeiling(doc));
    } else if (key === 'long') add(key, 'GLM-5 layer forward at T = 512 and 2048 on wasm vs the numpy anchor', long(d, doc['profile-512']));
    else if (key === 'cli-long') add(key, `\`${d.scenario}\` through the CLI on wasm`, cliLong(d));
    else if (key !== 'profile-512') add(key, key, ['```json', JSON.stringify(d, null, 1), '```', '']);
  }
  return [
    '# CPU benchmarks',
    '',
    'Every number here was measured on this project’s 2-core x86-64 VM (2 × Intel(R) Xeon(R) Processor with AVX-512,',
    '24 GiB, Node v20.20.2), unless its section says otherwise. Each section names the command that produced it; the command',
    'stores its data under its key in [results.json](results.json) (the headline JSON: one key per section, as the script wrote',
    'it) and re-renders this page from that file (`bench/cpu/results.mjs`; `node bench/cpu/results.mjs` re-renders alone).',
    'Earlier per-measurement documents (issue8-512.md, long.md, cli-long.md, wasm-ceiling.md, …) are in git history.',
    '',
    ...toc,
    '',
    ...sections,
  ].join('\n');
}

function capitalOfFrance(r) {
  const rows = r.rows;
  const { numpy_s: mNumpy, mla_diff_s: mOurs } = r.median;
  const span = (k) => `${Math.min(...rows.map((x) => x[k])).toFixed(2)}–${Math.max(...rows.map((x) => x[k])).toFixed(2)}`;
  return [
    `Command: \`${r.command}\` (${r.date.slice(0, 10)}), machine: ${machineLine(r.machine)}, numpy ${r.machine.numpy}.`,
    '',
    'mla-diff: `mla-diff run scenarios/capital-of-france.yaml --device wasm` — GLM-5 layer, 5 tokens, both paths on all 64 ' +
      'heads and on TP rank 0 of 8, every stage recorded, float64 reference on a worker thread. Anchor: `python3 mla_numpy.py 5` ' +
      '— the same layer in numpy float32, weights generated, each path run twice (warm-up + timed). Wall time of the whole ' +
      'process, alternating runs.',
    '',
    '| round | numpy wall (s) | of which weights (s) | mla-diff wall (s) | of which weights (s) | float64 reference, own thread (s) |',
    '|---|---|---|---|---|---|',
    ...rows.map(
      (x, i) =>
        `| ${i + 1} | ${x.numpy_s.toFixed(2)} | ${/weights_s=([\d.]+)/.exec(x.numpy_out)?.[1] ?? '?'} | ` +
        `${x.mla_diff_s.toFixed(2)} | ${x.inner.weights.toFixed(2)} | ${x.inner.reference?.toFixed(2) ?? '—'} |`,
    ),
    `| **median** | **${mNumpy.toFixed(2)}** | | **${mOurs.toFixed(2)}** | | |`,
    '',
    `Ratio mla-diff / numpy (medians): **${(mOurs / mNumpy).toFixed(2)}×** (target ≤ 1.5×). Spread: numpy ${span('numpy_s')} ` +
      `s, mla-diff ${span('mla_diff_s')} s. Both are dominated by first touches of fresh memory (on the 2-core VM of this ` +
      `project a page fault costs microseconds: touching 1 GiB took ~2 s), so absolute times drift from session to session; the ` +
      `rounds alternate so that both see the same conditions.`,
    '',
    'Longer prompts (T = 512, 2048), each path on its own, with peak memory: [below](#long) (`node bench/cpu/long.mjs`).',
    '',
    `Weights: numpy draws 165M standard normals and divides (\`weights_s\`); mla-diff generates the same count of ` +
      `counter-based samples straight into the wasm heap, once, shared by both paths and both cases. Largest mha↔mqa relative ` +
      `error (last round): ` +
      `${rows
        .at(-1)
        .worst.map((w) => `${w.case} ${w.relErr?.toExponential(1)} at ${w.stage}`)
        .join(', ')}; ` +
      `numpy's own rel(mha, mqa): ${/rel=([\d.e+-]+)/.exec(rows.at(-1).numpy_out)?.[1]}.`,
    '',
  ];
}

function issue8(r) {
  const { median, medianProbesOn: medOn, rows, tokens: T } = r;
  const xnnpack = Boolean(median.xnnpack);
  const s = (x) => (x / 1000).toFixed(2);
  const ratio = (k, p) => `${(median[k][p] / median.numpy[p]).toFixed(2)}×`;
  const last = rows.at(-1);
  return [
    `Command: \`${r.command}\` (${r.date.slice(0, 10)}), machine: ${machineLine(r.machine)}; load average after the run ` +
      `${r.machine.loadavgAfter.map((x) => x.toFixed(1)).join(' / ')}.`,
    '',
    `One GLM-5 layer, all 64 heads, one causal prefill of ${T} tokens, each path on its own, probes off (the run after a ` +
      `warm-up); ${rows.length} alternating rounds, medians. numpy: \`mla_numpy.py ${T}\` (float32, its BLAS on all cores). ` +
      `mla-diff on wasm:`,
    `- **host BLAS**: ${r.devices.blas}.`,
    ...(xnnpack ? [`- **XNNPACK** (MLA_DIFF_BLAS=off): ${r.devices.xnnpack}.`] : []),
    '',
    `| | numpy (s) | wasm + host BLAS (s) | ratio |${xnnpack ? ' wasm, XNNPACK (s) | ratio |' : ''}`,
    `|---|---|---|---|${xnnpack ? '---|---|' : ''}`,
    ...['mha', 'mqa', 'both'].map(
      (p) =>
        `| ${p === 'both' ? '**both paths**' : p} | ${s(median.numpy[p])} | ${s(median.blas[p])} | **${ratio('blas', p)}** |` +
        `${xnnpack ? ` ${s(median.xnnpack[p])} | ${ratio('xnnpack', p)} |` : ''}`,
    ),
    '',
    medOn
      ? `With every stage recorded (probes on, the same processes): host BLAS mha ${s(medOn.blas.mha)} s, mqa ` +
        `${s(medOn.blas.mqa)} s${xnnpack ? `; XNNPACK mha ${s(medOn.xnnpack.mha)} s, mqa ${s(medOn.xnnpack.mqa)} s` : ''}.`
      : 'Probes off only (--probes off).',
    '',
    `Peak RSS (last round, MiB): numpy ${last.numpy.rssMiB.toFixed(0)} (both paths, one process); host BLAS mha ` +
      `${last.blas.mha.rssMiB.toFixed(0)}, mqa ${last.blas.mqa.rssMiB.toFixed(0)}. |out| mha/mqa (ours, synthetic weights): ` +
      `${last.blas.mha.outNorm.toFixed(3)} / ${last.blas.mqa.outNorm.toFixed(3)}; numpy: ${last.numpy.out}.`,
    '',
    '| round | numpy mha / mqa (s) | host BLAS mha / mqa (s) |' + (xnnpack ? ' XNNPACK mha / mqa (s) |' : ''),
    '|---|---|---|' + (xnnpack ? '---|' : ''),
    ...rows.map(
      (x, i) =>
        `| ${i + 1} | ${s(x.numpy.mha.offMs)} / ${s(x.numpy.mqa.offMs)} | ${s(x.blas.mha.offMs)} / ${s(x.blas.mqa.offMs)} |` +
        `${xnnpack ? ` ${s(x.xnnpack.mha.offMs)} / ${s(x.xnnpack.mqa.offMs)} |` : ''}`,
    ),
    '',
  ];
}

const gflops = (flop, ms) => (ms ? (flop / (ms / 1000) / 1e9).toFixed(1) : '—');

function gemmCeiling(c) {
  const sum = (k) => c.rows.reduce((a, r) => a + (r[k] ?? NaN), 0);
  const flop = c.rows.reduce((a, r) => a + r.flop, 0);
  const ms = (x) => (x == null ? '—' : x.toFixed(1));
  return [
    `Command: \`${c.command}\` (${c.date.slice(0, 10)}` +
      `${/ --out /.test(c.command) ? '; --out wrote a file of its own then, without it the script stores this key' : ''}); ` +
      `threads: ${c.threads}; host BLAS: ${c.blas ?? 'none'}.`,
    '',
    `The five projections of one GLM-5 layer at T = ${c.tokens} as plain products, each the median of ${c.reps} after a ` +
      `warm-up: tf.matMul on tfjs-backend-wasm (XNNPACK, SIMD128, one thread: the threaded build does not initialise in Node) in ` +
      `both operand orders (x·W, W·xᵀ; the faster counts), the same x·Wᵀ through the host BLAS as mla-diff's wasm runtime forms ` +
      `it, and numpy's \`@\` (its BLAS, all cores). ms, GFLOP/s in brackets.`,
    '',
    '| projection | [M, K]·[K, N] | wasm x·W | wasm W·xᵀ | wasm (faster) | host BLAS | numpy |',
    '|---|---|---|---|---|---|---|',
    ...c.rows.map(
      (r) =>
        `| ${r.name} | [${r.M}, ${r.K}]·[${r.K}, ${r.N}] | ${ms(r.directMs)} | ${ms(r.swappedMs)} | ${ms(r.wasmMs)} (` +
        `${gflops(r.flop, r.wasmMs)}) | ${ms(r.blasMs)} (${gflops(r.flop, r.blasMs)}) | ${ms(r.numpyMs)} (` +
        `${gflops(r.flop, r.numpyMs)}) |`,
    ),
    `| **total** | ${(flop / 1e9).toFixed(1)} GFLOP | | | ${sum('wasmMs').toFixed(0)} (${gflops(flop, sum('wasmMs'))}) | ` +
      `${sum('blasMs').toFixed(0)} (${gflops(flop, sum('blasMs'))}) | ${sum('numpyMs').toFixed(0)} (` +
      `${gflops(flop, sum('numpyMs'))}) |`,
    '',
  ];
}

/**
 * Why the CPU target of issue 8 is out of reach on tfjs-backend-wasm's own kernels, from gemm-ceiling-512 and long (no timing of its own).
 */
function wasmCeiling(doc) {
  const ceiling = doc['gemm-ceiling-512'];
  const T = ceiling.tokens;
  const row = doc.long.rows.find((r) => r.tokens === T);
  if (!row) return [`(results.json's long has no row at T = ${T})`, ''];
  // GLM-5 (mla-math.md): hidden 6144, q_lora 2048, kv_lora 512, rope 64, nope 192, v 256, 64 heads.
  const [H, Lq, L, R, P, V, N] = [6144, 2048, 512, 64, 192, 256, 64];
  const mm = (m, k, n) => 2 * m * k * n;
  const shared = mm(T, H, Lq) + mm(T, H, L + R) + mm(T, Lq, N * (P + R)) + mm(T, N * V, H); // q_a, kv_a, q_b, o_proj
  const flop = { mha: shared + mm(T, L, N * (P + V)), mqa: shared + N * (mm(T, P, L) + mm(T, L, V)) }; // kv_b; W_UK_T and W_UV per head
  const total = ceiling.rows.reduce((a, r) => a + r.flop, 0);
  const wasmMs = ceiling.rows.reduce((a, r) => a + r.wasmMs, 0);
  const wasmRate = total / (wasmMs / 1000); // FLOP/s, one thread
  const numpyRate = total / (ceiling.rows.reduce((a, r) => a + r.numpyMs, 0) / 1000);
  const threads = 2;
  const productsS = (flop.mha + flop.mqa) / (threads * wasmRate);
  const numpyS = (row.numpy.mhaMs + row.numpy.mqaMs) / 1000;
  const G = (x) => (x / 1e9).toFixed(1);
  const lines = [
    `\`node bench/cpu/wasm-ceiling.mjs\` (it only re-renders this page): derived from [gemm-ceiling-${T}](#gemm-ceiling-${T}) ` +
      `above and [long](#long) below, no timing of its own.`,
    '',
    `- The products of one layer at T = ${T}: MHA ${G(flop.mha)} GFLOP (q_a, kv_a, q_b, kv_b, o_proj), MQA ${G(flop.mqa)} GFLOP`,
    `  (q_a, kv_a, q_b, the absorbed W_UK_T and W_UV per head, o_proj); both paths ${G(flop.mha + flop.mqa)} GFLOP, before any attention.`,
    `- tf.matMul on wasm runs the five projections of one path in ${(wasmMs / 1000).toFixed(2)} s: **${G(wasmRate)} GFLOP/s** ` +
      `on one thread`,
    `  (tfjs-backend-wasm's SIMD build). numpy on the same machine: ${G(numpyRate)} GFLOP/s (its BLAS on both cores; this CPU ` +
      `has AVX-512).`,
    `- numpy runs both layers in ${numpyS.toFixed(2)} s (MHA ${(row.numpy.mhaMs / 1000).toFixed(2)} s, MQA ` +
      `${(row.numpy.mqaMs / 1000).toFixed(2)} s): the target is ${(2 * numpyS).toFixed(2)} s.`,
    `- The products of both paths alone, at the measured wasm rate on ${threads} threads with perfect scaling: **` +
      `${productsS.toFixed(2)} s**,`,
    `  ${(productsS / numpyS).toFixed(2)}× numpy's whole layers, ${productsS > 2 * numpyS ? 'over' : 'within'} the target with ` +
      `nothing else counted.`,
    '',
    `So no tiling of the attention can meet the target on wasm: it needs products at ≥ ${G((flop.mha + flop.mqa) / (2 * numpyS))} GFLOP/s,`,
    `${((flop.mha + flop.mqa) / (2 * numpyS) / wasmRate).toFixed(1)}× the single-thread wasm rate, on a machine with ${threads}` +
      ` cores. WebAssembly SIMD is 128-bit`,
    "(4 float lanes, against AVX-512's 16), and tfjs-backend-wasm does not start its threaded build in Node",
    '(its WASM_HAS_MULTITHREAD_SUPPORT flag is false under IS_NODE, tfjs issue 3830). The `tensorflow` device',
    "(tfjs-node, native) would have the rate, but its install downloads libtensorflow, which the CI machine's",
    'network (npm registry and Debian only) does not reach.',
    '',
  ];
  const blasMs = ceiling.rows.every((r) => r.blasMs) ? ceiling.rows.reduce((a, r) => a + r.blasMs, 0) : null;
  const layer = doc[`issue8-${T}`];
  if (!blasMs || !layer) return lines;
  const blasRate = total / (blasMs / 1000);
  const m = layer.median;
  return [
    ...lines,
    '### What meets it: the host BLAS',
    '',
    'tfjs-backend-wasm keeps its tensors in the wasm heap, where `cblas_sgemm` can read and write them in place',
    `(src/devices/kernels/host-blas.ts, wasm-blas.ts: koffi's FFI, no copy). Through ${ceiling.blas}, the same five`,
    `projections take ${(blasMs / 1000).toFixed(2)} s: **${G(blasRate)} GFLOP/s**, ${(blasRate / wasmRate).toFixed(1)}× the ` +
      `wasm rate and ${((100 * blasRate) / numpyRate).toFixed(0)} % of numpy's.`,
    `The whole layer so run (\`${layer.command}\`, [issue8-${T}](#issue8-${T}) above, ${layer.rows.length} alternating rounds, medians):`,
    `both paths ${(m.blas.both / 1000).toFixed(2)} s against numpy's ${(m.numpy.both / 1000).toFixed(2)} s, **` +
      `${(m.blas.both / m.numpy.both).toFixed(2)}×** (target ≤ 2×);`,
    `MHA ${(m.blas.mha / m.numpy.mha).toFixed(2)}×, MQA ${(m.blas.mqa / m.numpy.mqa).toFixed(2)}×.` +
      `${m.xnnpack ? ` On XNNPACK in the same rounds: ${(m.xnnpack.both / m.numpy.both).toFixed(2)}×.` : ''}`,
    '',
  ];
}

function long(result, prof) {
  const ms = (x) => (x == null ? '—' : (x / 1000).toFixed(2));
  const cell = (c) => (c ? (c.failed ? c.failed.replace(/^exit (\d+):.*/, 'failed (exit $1)') : `${ms(c.ms)}`) : '—');
  const ratio = (c, n) => (c?.ms != null && n ? `${(c.ms / n).toFixed(2)}×` : '—');
  return [
    `Command: \`${result.command}\` (${result.date.slice(0, 10)}), machine: ${machineLine(result.machine)}.`,
    '',
    ...(result.note ? [`Conditions: ${result.note}`, ''] : []),
    'mla-diff: `node bench/cpu/forward.mjs --path P --tokens T --probes off` — one layer, all 64 heads, one causal prefill, ' +
      '`MlaBackend.step` with nothing recorded (as run-case drives it), weights uploaded first; T ≤ 512: the run after a ' +
      'warm-up, else the first run. numpy: `python3 mla_numpy.py T` — the same layer in float32, the second of two runs. Each ' +
      'measurement is its own process; peak RSS from /usr/bin/time (the numpy figure includes its 660 MB of weights, as ours ' +
      'does). "before" is the build this work started from (unfused [N,T,S] attention, tf.unstack copying its input per entry, ' +
      'every intermediate of a step alive until its end); "failed (exit 7)" there is the wasm heap (4 GiB) running out ' +
      '(Aborted(), then memory access out of bounds).',
    '',
    '| T | path | numpy (s) | mla-diff after (s) | after / numpy | mla-diff before (s) | peak RSS numpy / after / before (MiB) |',
    '|---|---|---|---|---|---|---|',
    ...result.rows.flatMap((r) =>
      ['mha', 'mqa'].map((p) => {
        const n = r.numpy[`${p}Ms`];
        const np = `${ms(n)}${r.numpy.earlierRun ? ' (earlier run)' : ''}`;
        const a = r[`after_${p}`];
        const b = r[`before_${p}`];
        return (
          `| ${r.tokens}${r.earlierRun ? ' (earlier run)' : ''} | ${p} | ${np} | ${cell(a)} | ${ratio(a, n)} | ${cell(b)} | ` +
          `${r.numpy.rssMiB?.toFixed(0) ?? '—'} / ${a?.rssMiB?.toFixed(0) ?? '—'} / ${b?.rssMiB?.toFixed(0) ?? '—'} |`
        );
      }),
    ),
    '',
    ...(prof ? profileLines(prof) : []),
  ];
}

/** Where the time goes at T = 512, from results.json's profile-512 (forward.mjs --profile: tf.profile of one probes-off step). */
function profileLines(prof) {
  const lines = [
    "Where the time goes at T = 512 (results.json's `profile-512`: the slowest kernels of one probes-off step under " +
      'tf.profile, and the probes-off wall times of the same process).',
    `Its note: ${prof.note}`,
    '',
  ];
  for (const [label, runs] of [
    ['before', prof.before],
    ['after', prof.after],
  ]) {
    for (const r of runs) {
      const total = r.profile.reduce((a, k) => a + k.ms, 0);
      const top = r.profile
        .slice(0, 4)
        .map(
          (k) =>
            `${k.kernel.replace(/ .*/, '')} ${k.kernel.slice(k.kernel.indexOf(' ') + 1)} ${(k.ms / 1000).toFixed(1)} s` +
            `${k.n > 1 ? ` (${k.n} calls)` : ''}`,
        );
      lines.push(
        `- ${label} ${r.path} (runs ${r.probesOffAllMs.map((x) => (x / 1000).toFixed(1)).join(' / ')} s): ${top.join('; ')} — ` +
          `of ${(total / 1000).toFixed(1)} s in the ${r.profile.length} slowest kernels.`,
      );
    }
  }
  return [...lines, ''];
}

function cliLong(r) {
  const gpu = r.gpuReport !== null;
  const compared = r.rows.filter((x) => x.rel !== null).length;
  return [
    `Command: \`${r.command}\` (${r.date.slice(0, 10)}), machine: ${machineLine(r.machine)}.`,
    `It runs \`mla-diff run ${r.scenario} --device wasm --format json\` under /usr/bin/time, as CI's scenario check does.`,
    '',
    `- Device: ${r.device}.`,
    `- Exit ${r.exit}, verdict **${r.verdict}**; wall **${r.wallS.toFixed(1)} s**, peak RSS **${r.rssGiB.toFixed(2)} GiB** ` +
      `(the machine: ${r.machine.memGiB} GiB).`,
    `- The report's seconds (probes on): mha ${r.pathSeconds.mha.toFixed(1)}, mqa ${r.pathSeconds.mqa.toFixed(1)} (each from ` +
      `its step's start to its completion; both steps are encoded before either is awaited, and on wasm encoding is the ` +
      `computing, so MHA's includes MQA's), weights ${r.seconds.weights.toFixed(1)}.`,
    `- Worst mha↔mqa relative error: ${r.worstEngine.relErr.toExponential(2)} at ${r.worstEngine.stage}.`,
    ...(gpu
      ? [
          `- Against the H200's report of the same scenario (${r.gpuReport}), the largest relative difference of a stage's L2 ` +
            `norm: ${r.worstCross.rel.toExponential(2)} (${r.worstCross.path} ${r.worstCross.stage}), over ${compared} records.`,
        ]
      : []),
    '',
    '| path | stage | L2 (wasm) | L2 (H200) | rel |',
    '|---|---|---|---|---|',
    ...r.rows.map(
      (x) => `| ${x.path} | ${x.stage} | ${x.l2.toPrecision(8)} | ${x.gpuL2?.toPrecision(8) ?? '—'} | ${x.rel?.toExponential(1) ?? '—'} |`,
    ),
    '',
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--help')) {
    console.log('Usage: node bench/cpu/results.mjs  (re-renders bench/cpu/results.md from bench/cpu/results.json)');
  } else {
    rerender();
    console.log(`wrote ${MD_PATH} from ${JSON_PATH}`);
  }
}
