import { transposeHost } from '../../core/probes/layout';

/**
 * Layouts a backend writes, einops style: axis names separated by spaces, parentheses grouping
 * axes flattened into one dimension ("t (h v)" is [T, N·V] holding [T, N, V]). The canonical
 * name `hv` stands for the group (h v). Mapping to the canonical layout is a reshape to the
 * atomic axes, a transpose, and a reshape back.
 */
const COMPOSITE: Readonly<Record<string, readonly string[]>> = { hv: ['h', 'v'] };

/** Groups of atomic axis names, or the reason the text is not a layout. */
export function parseLayout(text: string): string[][] | string {
  const tokens = text.match(/\(|\)|[^\s()]+/g) ?? [];
  const groups: string[][] = [];
  let open: string[] | null = null;
  for (const tok of tokens) {
    if (tok === '(') {
      if (open) return 'nested parentheses';
      open = [];
    } else if (tok === ')') {
      if (!open?.length) return open ? 'an empty group "()"' : 'a ")" without "("';
      groups.push(open);
      open = null;
    } else if (!/^[a-z_][a-z0-9_]*$/i.test(tok)) {
      return `"${tok}" is not an axis name`;
    } else {
      // a layout is a third party's text: `__proto__` or `constructor` is an axis name, never Object.prototype's
      const atoms = [...(Object.hasOwn(COMPOSITE, tok) ? COMPOSITE[tok]! : [tok])];
      if (open) open.push(...atoms);
      else groups.push(atoms);
    }
  }
  if (open) return 'a "(" without ")"';
  if (!groups.length) return 'no axes';
  const flat = groups.flat();
  const dup = flat.find((a, i) => flat.indexOf(a) !== i);
  return dup ? `axis "${dup}" appears twice` : groups;
}

/**
 * Values written in `declared` as `got` → the canonical layout's shape `expected`. `sizes` gives
 * the atomic sizes of grouped canonical axes (h, v). Returns the reason when the axes or the dims
 * do not fit.
 */
export function toCanonical<A extends Float32Array | Float64Array>(
  data: A,
  got: readonly number[],
  declared: string,
  canonical: string,
  expected: readonly number[],
  sizes: Record<string, number>,
): { data: A; shape: number[] } | string {
  const canon = parseLayout(canonical);
  const decl = parseLayout(declared);
  if (typeof canon === 'string') throw new Error(`canonical layout "${canonical}": ${canon}`);
  if (typeof decl === 'string') return `layout "${declared}": ${decl}`;
  const size = new Map<string, number>();
  canon.forEach((g, i) => g.forEach((a) => size.set(a, g.length === 1 ? expected[i]! : sizes[a]!)));
  const atoms = decl.flat();
  const unknown = atoms.find((a) => !size.has(a));
  if (unknown !== undefined) return `layout "${declared}": unknown axis "${unknown}" (the stage's axes: ${[...size.keys()].join(' ')})`;
  const missing = [...size.keys()].find((a) => !atoms.includes(a));
  if (missing !== undefined) return `layout "${declared}" lacks axis "${missing}" of the canonical "${canonical}"`;
  const want = decl.map((g) => g.reduce((n, a) => n * size.get(a)!, 1));
  if (got.length !== want.length || got.some((d, i) => d !== want[i])) {
    return (
      `shape [${got.join(', ')}] does not match [${want.join(', ')}] ` +
      `(layout "${declared}", canonical "${canonical}" [${expected.join(', ')}])`
    );
  }
  const order = canon.flat();
  const perm = order.map((a) => atoms.indexOf(a));
  const { data: out } = transposeHost(
    data,
    atoms.map((a) => size.get(a)!),
    perm,
  );
  return { data: out, shape: [...expected] };
}
