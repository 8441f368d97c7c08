import type { FlashTiles } from './flash-tiles';

/**
 * A transposed chunk of Q or K staged through registers (flash-wgsl.ts): `load(d0)` fetches the
 * chunk at column d0 into named vec4 registers, issued before the micro-GEMM on the previous chunk
 * so that the L2 latency hides behind it; `store` writes them to workgroup memory. Item i (thread
 * t holds i = t + n·threads) is column d = i % DC of the 4 rows (or keys) origin + 4·(i / DC) + 0..3,
 * zero outside [0, limit) × [0, D).
 */
export interface StagedChunk {
  decl: string;
  load: (d0: string) => string;
  store: string;
}

const C = ['x', 'y', 'z', 'w'];

export function transposedChunk(
  t: FlashTiles,
  name: string,
  dst: string,
  stride: number,
  groups: number,
  src: (row: string, col: string) => string,
  origin: string,
  limit: string,
): StagedChunk {
  const n = t.chunk * groups;
  const items = Array.from({ length: Math.ceil(n / t.threads) }, (_, k) => k);
  const partial = (k: number) => (k + 1) * t.threads > n;
  const guard = (k: number) => `t + ${k * t.threads} < ${n}`;
  const load = (d0: string) =>
    items
      .map(
        (k) => `      {
        let i = t + ${k * t.threads};
        let d = ${d0} + i % ${t.chunk};
        let r = ${origin} + (i / ${t.chunk}) * 4;
        var v = vec4<f32>(0.0);
        if (${partial(k) ? `${guard(k)} && ` : ''}d < FA_D) {
${C.map((c, j) => `          if (r + ${j} < ${limit}) { v.${c} = ${src(`r + ${j}`, 'd')}; }`).join('\n')}
        }
        ${name}${k} = v;
      }`,
      )
      .join('\n');
  const store = items
    .map(
      (k) =>
        `      ${partial(k) ? `if (${guard(k)}) ` : ''}{ let i = t + ${k * t.threads}; ` +
        `faStage[${dst} + (i % ${t.chunk}) * ${stride} + i / ${t.chunk}] = ${name}${k}; }`,
    )
    .join('\n');
  return { decl: items.map((k) => `  var ${name}${k}: vec4<f32>;`).join('\n'), load, store };
}

/**
 * A V sub-chunk (valueKeys keys × E columns, vec4 i = key·ep4 + column group) staged into faStage:
 * `direct` loads and stores it in one loop; with prefetchV `fetch(c0)` loads the sub-chunk at key
 * c0 of the tile into registers (issued before the micro-GEMM on the previous one) and `store`
 * writes them. `loads` fills v from row s, columns col..col+3 (V, or the first E columns of K).
 */
export function valueStage(
  t: FlashTiles,
  l: { ep4: number },
  loads: string,
): { decl: string; fetch: (c0: string) => string; store: string; direct: string } {
  const n = t.valueKeys * l.ep4;
  const items = Array.from({ length: Math.ceil(n / t.threads) }, (_, k) => k);
  const guard = (k: number) => ((k + 1) * t.threads > n ? `if (t + ${k * t.threads} < ${n}) ` : '');
  const fetch = (c0: string) =>
    items
      .map(
        (k) => `      ${guard(k)}{
        let i = t + ${k * t.threads};
        let s = s0 + ${c0} + i / ${l.ep4};
        let col = (i % ${l.ep4}) * 4;
        var v = vec4<f32>(0.0);
        if (s < S) {
${loads}
        }
        vp${k} = v;
      }`,
      )
      .join('\n');
  return {
    decl: items.map((k) => `  var vp${k}: vec4<f32>;`).join('\n'),
    fetch,
    store: items.map((k) => `      ${guard(k)}{ faStage[t + ${k * t.threads}] = vp${k}; }`).join('\n'),
    direct: `      for (var i = t; i < ${n}; i += ${t.threads}) {
        let s = s0 + c0 + i / ${l.ep4};
        let col = (i % ${l.ep4}) * 4;
        var v = vec4<f32>(0.0);
        if (s < S) {
${loads}
        }
        faStage[i] = v;
      }`,
  };
}
