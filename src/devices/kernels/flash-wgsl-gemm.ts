import type { FlashLayout, FlashTiles } from './flash-tiles';

/**
 * Unrolled pieces of the flash-attention WGSL (flash-wgsl.ts): every per-thread register is a
 * named vec4 (s{i}_{j}: logit row i, keys 4j..4j+3; o{i}_{j}: output row i, vec4 column j), so
 * nothing is indexed dynamically (a dynamic index spills a private array to local memory).
 */

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
const C = ['x', 'y', 'z', 'w'];
const lines = (n: number, f: (i: number) => string): string => range(n).map(f).join('\n');
const grid = (a: number, b: number, f: (i: number, j: number) => string): string =>
  range(a)
    .flatMap((i) => range(b).map((j) => f(i, j)))
    .join('\n');

/** Declarations of the logit and output registers. */
export function registers(t: FlashTiles, l: FlashLayout): string {
  return [
    grid(t.scoreRows, t.scoreKeys / 4, (i, j) => `  var s${i}_${j}: vec4<f32>;`),
    grid(t.outRows, l.nv, (i, j) => `  var o${i}_${j} = vec4<f32>(0.0);`),
  ].join('\n');
}

export const zeroLogits = (t: FlashTiles): string => grid(t.scoreRows, t.scoreKeys / 4, (i, j) => `    s${i}_${j} = vec4<f32>(0.0);`);

/** One column d of S += Qᵀ[d]·Kᵀ[d] for the thread's scoreRows × scoreKeys logits. */
export function logitStep(t: FlashTiles, l: FlashLayout): string {
  const q = lines(t.scoreRows / 4, (g) => `        let q${g} = faStage[d * ${l.qs4} + sy * ${t.scoreRows / 4} + ${g}];`);
  const k = lines(t.scoreKeys / 4, (j) => `        let k${j} = faStage[FA_KOFF + d * ${l.ks4} + sx * ${t.scoreKeys / 4} + ${j}];`);
  const fma = grid(
    t.scoreRows,
    t.scoreKeys / 4,
    (i, j) => `        s${i}_${j} = fma(vec4<f32>(q${i >> 2}.${C[i & 3]}), k${j}, s${i}_${j});`,
  );
  return [q, k, fma].join('\n');
}

/** Scale (log2 units), mask to FA_NEG, and the thread's partial row maxima into faRed. */
export function scaleMask(t: FlashTiles): string {
  return lines(t.scoreRows, (i) => {
    const keys = lines(
      t.scoreKeys / 4,
      (j) => `      s${i}_${j} = select(vec4<f32>(FA_NEG), s${i}_${j} * scale2, keys0 + vec4<i32>(${4 * j}) <= vec4<i32>(lim${i}));`,
    );
    const mx = range(t.scoreKeys / 4)
      .map((j) => `s${i}_${j}`)
      .reduce((acc, s) => `max(${acc}, ${s})`);
    return `      let br${i} = b0 + sy * ${t.scoreRows} + ${i};
      var lim${i} = -1;
      if (br${i} < B) { lim${i} = kEnd - 1; if (uniforms.causal != 0) { lim${i} = min(lim${i}, uniforms.offset + br${i} / uniforms.rpt); } }
${keys}
      let pm${i} = ${mx};
      faRed[sx * ${t.rows} + sy * ${t.scoreRows} + ${i}] = max(max(pm${i}.x, pm${i}.y), max(pm${i}.z, pm${i}.w));`;
  });
}

/** Probabilities p = 2^(s − m) (0 where masked), written transposed into faP; partial row sums into faRed. */
export function probabilities(t: FlashTiles, l: FlashLayout): string {
  const rows = lines(t.scoreRows, (i) => {
    const ps = lines(
      t.scoreKeys / 4,
      (j) => `      s${i}_${j} = select(vec4<f32>(0.0), exp2(s${i}_${j} - vec4<f32>(m${i})), s${i}_${j} > vec4<f32>(FA_NEG_LIMIT));`,
    );
    const sum = range(t.scoreKeys / 4)
      .map((j) => `s${i}_${j}`)
      .reduce((acc, s) => `${acc} + ${s}`);
    return `      let m${i} = faM[sy * ${t.scoreRows} + ${i}];
${ps}
      faRed[sx * ${t.rows} + sy * ${t.scoreRows} + ${i}] = dot(${sum}, vec4<f32>(1.0));`;
  });
  const writes = range(t.scoreKeys)
    .flatMap((key) =>
      range(t.scoreRows / 4).map((g) => {
        const v = range(4)
          .map((c) => `s${4 * g + c}_${key >> 2}.${C[key & 3]}`)
          .join(', ');
        return `      faP[(sx * ${t.scoreKeys} + ${key}) * ${l.ps4} + sy * ${t.scoreRows / 4} + ${g}] = vec4<f32>(${v});`;
      }),
    )
    .join('\n');
  return `${rows}\n${writes}`;
}

/** O *= α for the thread's output rows (α from faAlpha). */
export function rescale(t: FlashTiles, l: FlashLayout): string {
  return lines(
    t.outRows,
    (i) => `      let al${i} = faAlpha[oy * ${t.outRows} + ${i}];
${lines(l.nv, (j) => `      o${i}_${j} = o${i}_${j} * al${i};`)}`,
  );
}

/** One key c of O += Pᵀ[c]ᵀ·V[c] for the thread's outRows × nv vec4 outputs. */
export function valueStep(t: FlashTiles, l: FlashLayout): string {
  const p = lines(t.outRows / 4, (g) => `        let p${g} = faP[key * ${l.ps4} + oy * ${t.outRows / 4} + ${g}];`);
  const v = lines(l.nv, (j) => `        let v${j} = faStage[c * ${l.ep4} + ${j * l.ox} + ox];`);
  const fma = grid(t.outRows, l.nv, (i, j) => `        o${i}_${j} = fma(vec4<f32>(p${i >> 2}.${C[i & 3]}), v${j}, o${i}_${j});`);
  return [p, v, fma].join('\n');
}

/** out[b, col] = O / l for the thread's rows below B and columns below E (l from faAlpha). */
export function storeOutput(t: FlashTiles, l: FlashLayout): string {
  return lines(t.outRows, (i) => {
    const cols = grid(
      l.nv,
      4,
      (j, c) =>
        `      if (${j * l.ox * 4 + c} + ox * 4 < FA_E) { result[row${i} + ${j * l.ox * 4 + c} + ox * 4] = o${i}_${j}.${C[c]} * inv${i}; }`,
    );
    return `    let bo${i} = b0 + oy * ${t.outRows} + ${i};
    if (bo${i} < B) {
      let l${i} = faAlpha[oy * ${t.outRows} + ${i}];
      var inv${i} = 0.0;
      if (l${i} > 0.0) { inv${i} = 1.0 / l${i}; }
      let row${i} = zOff + a * uniforms.oHead + bo${i} * uniforms.oRow;
${cols}
    }`;
  });
}
