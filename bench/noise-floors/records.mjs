// Per-record noise-floor ratios of a case and quantiles of them: shared by bench/noise-floors/run.mjs
// and bench/precision/calibrate.mjs.

export const label = (v) => `${v.stage}${v.chunk === undefined ? '' : `[${v.chunk}]`}`;
export const finite = (x) => x !== null && x !== undefined && Number.isFinite(x);

/** Per record: floor, source, vs-reference errors, ratios (engine pair, each path vs ref, worst pair). */
export function recordsOf(c) {
  return c.comparison.stages.map((v) => {
    const pairs = v.pairs.filter((p) => finite(p.relErr));
    const eng = pairs.find((p) => p.a === 'mha' && p.b === 'mqa');
    return {
      step: v.step,
      request: v.request,
      stage: v.stage,
      verdict: v.verdict,
      label: label(v),
      kind: v.stage.startsWith('W_') ? 'weight' : 'activation',
      floor: v.floor.value,
      source: v.floor.source,
      vsReference: v.vsReference,
      engineRatio: eng ? eng.relErr / v.floor.value : null,
      pathRatio: Object.fromEntries(
        Object.entries(v.vsReference)
          .filter(([, x]) => finite(x))
          .map(([p, x]) => [p, x / v.floor.value]),
      ),
      worstRatio: pairs.length ? Math.max(...pairs.map((p) => p.relErr)) / v.floor.value : null,
    };
  });
}

/** p50/p90/p99/max of the finite values. */
export const quantiles = (xs) => {
  const s = xs.filter(finite).sort((a, b) => a - b);
  const at = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { n: s.length, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: s[s.length - 1] };
};
