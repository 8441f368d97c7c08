// What the WGSL kernel checks (*-check.mjs) share: reading their flags, and seeded values so that a failure reproduces.

/** The value after `--name` on the command line, else `dflt`. */
export const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};

/** n deterministic float32 values in [-amp, amp] (an LCG from `seed`). */
export function values(n, seed, amp = 1) {
  const a = new Float32Array(n);
  let x = seed >>> 0;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    a[i] = ((x / 2 ** 32) * 2 - 1) * amp;
  }
  return a;
}

/** `a` with a[i] = v for each [i, v] of `entries`. */
export const put = (a, entries) => {
  for (const [i, v] of entries) a[i] = v;
  return a;
};
