import { FAULTS, FAULT_NAMES, isFaultName } from '../../core/faults/catalogue';
import { RUN_VERSION } from '../../trace/report';
import type { ErrorCode } from '../../errors';
import { EXIT, EXIT_FOR } from './io/exit-codes';
import type { DocLine } from './test-utils/doc-lines';
import { at, codeSpans, docLines, userDocs } from './test-utils/doc-lines';

// README.md and docs/*.md against the code they describe: the fault catalogue, the run report's version, the exit
// codes. Each failure names the doc line that drifted and what the code says instead.

const lines = userDocs().flatMap(docLines);
const readme = lines.filter((l) => l.file === 'README.md');
const KEBAB = /^[a-z0-9]+(-[a-z0-9]+)+$/;

describe('the docs against the fault catalogue', () => {
  // "Plantable faults (…): `softmax-scale-latent` (scale from 576, enters at `logits`), `rope-neox` (…, `q_pe`), …",
  // a paragraph of several lines: its code spans, each with its line, up to "; a fault planted …" or "`scenarios/` holds"
  const first = readme.findIndex((x) => x.text.startsWith('Plantable faults'));
  const para =
    first < 0
      ? []
      : readme.slice(
          first,
          readme.findIndex((x, i) => i > first && x.text.trim() === ''),
        );
  const end = para.findIndex((x) => /; a fault planted|`scenarios\/` holds/.test(x.text));
  const spans = para.slice(0, end < 0 ? undefined : end + 1).flatMap((l, i) => {
    const text = i === end ? (l.text.split(/; a fault planted|`scenarios\/` holds/)[0] ?? '') : l.text;
    return codeSpans(text).map((s) => ({ s, l }));
  });

  it('README lists every plantable fault, each with the stage it enters', () => {
    const l = para[0];
    if (!l) throw new Error('README.md: no paragraph starting "Plantable faults"');
    const isName = (i: number) => KEBAB.test(spans[i]?.s ?? '');
    const named = spans.filter((_, i) => isName(i)).map((x) => x.s);
    // the stages quoted after a fault, up to the next one (`a` and `b` (…, `logits`): both enter at logits)
    const stagesAfter = (i: number): string[] => {
      const upTo = spans.findIndex((_, j) => j > i && isName(j));
      const own = spans.slice(i + 1, upTo < 0 ? undefined : upTo).flatMap((x) => x.s.split('/'));
      return own.length > 0 || upTo < 0 ? own : stagesAfter(upTo);
    };
    const drift = [
      ...spans.filter((x, i) => isName(i) && !isFaultName(x.s)).map((x) => at(x.l, `\`${x.s}\` is not in the fault catalogue`)),
      ...FAULT_NAMES.filter((n) => !named.includes(n)).map((n) => at(l, `the list lacks \`${n}\` (enters at ${FAULTS[n].enters})`)),
      ...spans.flatMap(({ s, l: where }, i) =>
        isFaultName(s) && !stagesAfter(i).includes(FAULTS[s].enters)
          ? [at(where, `\`${s}\` enters at \`${FAULTS[s].enters}\`, the list says ${stagesAfter(i).join('/') || 'nothing'}`)]
          : [],
      ),
    ];
    expect(drift).toEqual([]);
  });

  it('fault tables (| fault | path | …) name catalogue faults and the paths they can be planted in', () => {
    const drift = tableRows(lines, /^\|\s*fault\s*\|\s*path\s*\|/).flatMap(({ l, cells }) => {
      const name = /^`([^`]+)`/.exec(cells[0] ?? '')?.[1] ?? '';
      if (!isFaultName(name)) return [at(l, `\`${name}\` is not in the fault catalogue`)];
      const paths = FAULTS[name].paths;
      const want = paths.length === 2 ? 'both' : paths.join(', ');
      return cells[1] === want ? [] : [at(l, `\`${name}\` can be planted in ${want}, the table says ${cells[1] ?? ''}`)];
    });
    expect(drift).toEqual([]);
  });
});

describe('the docs against the run report version', () => {
  it(`names the current one, ${RUN_VERSION}, wherever they say which version a run report is`, () => {
    const claims: { l: DocLine; version: number }[] = [];
    lines.forEach((l, i) => {
      for (const m of l.text.matchAll(/`mla-diff\/run`,? version (\d+)|\brun-v(\d+)\.schema\.json/g))
        claims.push({ l, version: Number(m[1] ?? m[2]) });
      // a run report's JSON example: `"format": "mla-diff/run"` with `"version": N` on the next line
      const next = /"version": (\d+)/.exec(lines[i + 1]?.text ?? '');
      if (l.code && /"format": "mla-diff\/run"/.test(l.text) && next) claims.push({ l: lines[i + 1] ?? l, version: Number(next[1]) });
    });
    expect(claims.length).toBeGreaterThan(3);
    const drift = claims
      .filter((c) => c.version !== RUN_VERSION)
      .map((c) => at(c.l, `run report version ${c.version}, RUN_VERSION is ${RUN_VERSION}`));
    expect([...new Set(drift)]).toEqual([]);
  });
});

describe('the docs against the exit codes', () => {
  const rows = tableRows(lines, /^\|\s*exit\s*\|/);
  const codes = Object.keys(EXIT_FOR) as ErrorCode[];

  it('every exit-code table has a row per code of EXIT, and each error code in the row EXIT_FOR gives it', () => {
    expect(rows.length).toBeGreaterThan(0);
    const drift: string[] = [];
    for (const file of new Set(rows.map((r) => r.l.file))) {
      const own = rows.filter((r) => r.l.file === file);
      const exits = own.map((r) => Number(r.cells[0]));
      const want = Object.values(EXIT) as number[];
      if (exits.join() !== want.join())
        drift.push(at(own[0]?.l ?? lines[0]!, `exit-code rows ${exits.join(', ')}, EXIT has ${want.join(', ')}`));
    }
    for (const { l, cells } of rows) {
      const exit = Number(cells[0]);
      const named = codeSpans(cells[2] ?? '').filter((s) => /^[a-z][a-z0-9-]*$/.test(s));
      for (const n of named) {
        const code = codes.find((c) => c === n);
        if (!code) drift.push(at(l, `\`${n}\` is not an error code`));
        else if (EXIT_FOR[code] !== exit) drift.push(at(l, `\`${n}\` exits ${EXIT_FOR[code]}, the table says ${exit}`));
      }
      // a row that is a bare list of codes, and the short list of runtime failures (3), must be complete
      const bareList = (cells[2] ?? '').split(',').every((item) => /^\s*`[^`]+`\s*$/.test(item));
      if ((bareList && named.length > 0) || exit === EXIT.internal) {
        for (const c of codes.filter((x) => EXIT_FOR[x] === exit && !named.includes(x)))
          drift.push(at(l, `the row of exit ${exit} lacks \`${c}\``));
      }
    }
    expect(drift).toEqual([]);
  });

  it('an error code written with its exit in prose (`engine-failed` (exit 3), (exit 2, `sweep-mismatch`)) exits so', () => {
    const said = lines.flatMap((l) => [
      ...[...l.text.matchAll(/`?([a-z][a-z0-9]*(?:-[a-z0-9]+)+)`? \(exit (\d)/g)].map((m) => ({ l, code: m[1] ?? '', exit: Number(m[2]) })),
      ...[...l.text.matchAll(/\(exit (\d), `([a-z][a-z0-9-]*)`/g)].map((m) => ({ l, code: m[2] ?? '', exit: Number(m[1]) })),
    ]);
    expect(said.length).toBeGreaterThan(3);
    const drift = said
      .filter(({ code }) => codes.includes(code as ErrorCode))
      .filter(({ code, exit }) => EXIT_FOR[code as ErrorCode] !== exit)
      .map(({ l, code, exit }) => at(l, `\`${code}\` exits ${EXIT_FOR[code as ErrorCode]}, the text says ${exit}`));
    expect(drift).toEqual([]);
  });
});

/** The body rows of every Markdown table whose header matches, as trimmed cells. */
function tableRows(all: readonly DocLine[], header: RegExp): { l: DocLine; cells: string[] }[] {
  const rows: { l: DocLine; cells: string[] }[] = [];
  all.forEach((l, i) => {
    if (!header.test(l.text)) return;
    for (let j = i + 2; all[j]?.file === l.file && all[j]?.text.startsWith('|'); j++) {
      const row = all[j]!;
      rows.push({
        l: row,
        cells: row.text
          .split(/(?<!\\)\|/)
          .slice(1, -1)
          .map((c) => c.trim()),
      });
    }
  });
  return rows;
}
