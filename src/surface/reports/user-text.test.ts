import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as ts from 'typescript';
import { LOADER_FAULT_DOCS } from '../../checkpoints/checkpoint/kv-b';
import { FAULTS } from '../../core/faults/catalogue';
import { STAGES } from '../../trace/stages';

/**
 * User-facing text names what a user of the installed package can look up: the math, the public bug
 * (an upstream issue or PR, a project), a shipped doc (docs/*.md). Never this project's own working
 * notes: numbered tracker entries, design notes, the sessions that wrote the code, paths of files
 * the package does not ship. Code comments may keep such references; strings reach users.
 */
const ROOT = join(__dirname, '../../..');
const INTERNAL: readonly RegExp[] = [
  /\bissue \d+/i,
  /aesthetics/i,
  /catalogue example/i,
  /bug-hunt/i,
  /\bsessions?\b/i,
  /\bhelper [A-Z]\b/,
  /shared\/reference/,
];

/**
 * The internal references in a text: the patterns it matches; a note of this repository by name
 * (`x.md` without a folder, `../x.md`, `docs/x.md` that is not shipped; README.md and an output
 * path a user picks, `out/summary.md`, are fine); an `npm run` script unless the text says it is
 * one of the repository.
 */
function internalReferences(text: string): string[] {
  const hits = INTERNAL.flatMap((re) => text.match(re) ?? []).map(String);
  for (const m of text.matchAll(/(?:[\w./-]*\/)?[\w-]+\.md\b/g)) {
    const ref = m[0];
    const note = !ref.includes('/') ? ref !== 'README.md' : ref.includes('../') || ref.startsWith('docs/');
    if (note && !(/^docs\/[\w-]+\.md$/.test(ref) && existsSync(join(ROOT, ref)))) hits.push(ref);
  }
  if (!/repository|checkout/.test(text)) hits.push(...(text.match(/\bnpm run \w+/g) ?? []));
  return hits;
}

/**
 * Every string literal and template text of a source file, with its line: comments are not strings,
 * nor module specifiers, nor the message of a plain `new Error` (an invariant of the build, not a user's mistake).
 */
function stringsOf(file: string): { line: number; text: string }[] {
  const src = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: { line: number; text: string }[] = [];
  const visit = (n: ts.Node) => {
    if (ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) return;
    if (ts.isNewExpression(n) && n.expression.getText() === 'Error') return;
    if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n) || ts.isTemplateLiteralToken(n))
      out.push({ line: src.getLineAndCharacterOfPosition(n.getStart()).line + 1, text: n.text });
    ts.forEachChild(n, visit);
  };
  visit(src);
  return out;
}

/**
 * Strings of files others are changing, `file: text`, each to go once its fix lands; the test below
 * fails on an entry that no longer matches, so the list cannot go stale.
 */
const AWAITING: readonly string[] = [];

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'test-utils' ? [] : sources(p);
    return /\.ts$/.test(e.name) && !/\.(test|d)\.ts$/.test(e.name) ? [p] : [];
  });

describe('user-facing text has no internal references', () => {
  it('internalReferences finds them, and lets public references and shipped docs through', () => {
    expect(internalReferences('norm skipped (aesthetics.md traps)')).toEqual(['aesthetics', 'aesthetics.md']);
    expect(internalReferences('issue 5 catalogue example; ggml-org/llama.cpp#12801')).toEqual(['issue 5', 'catalogue example']);
    expect(internalReferences('see ../shared/reference/gguf-and-bugs.md')).toEqual([
      'shared/reference',
      '../shared/reference/gguf-and-bugs.md',
    ]);
    expect(internalReferences('written by `npm run fixtures`')).toEqual(['npm run fixtures']);
    expect(internalReferences('`mla-diff fixtures DIR` (`npm run fixtures` in the repository)')).toEqual([]);
    expect(internalReferences('vllm-project/vllm#15492; docs/noise-floors.md; README.md; --markdown out/summary.md')).toEqual([]);
    expect(internalReferences('docs/no-such-page.md')).toEqual(['docs/no-such-page.md']);
  });

  it('the fault catalogues: what each fault models and the bug it names', () => {
    for (const [name, f] of Object.entries({ ...FAULTS, ...LOADER_FAULT_DOCS }))
      expect({ name, refs: internalReferences(`${f.enters} ${f.summary} ${f.bug}`) }).toEqual({ name, refs: [] });
  });

  it('the stage docs', () => {
    for (const [name, d] of Object.entries(STAGES)) expect({ name, refs: internalReferences(d.doc) }).toEqual({ name, refs: [] });
  });

  it('every string of src/ (messages, hints, command descriptions, report text)', () => {
    const found = sources(join(ROOT, 'src')).flatMap((f) =>
      stringsOf(f).flatMap(({ line, text }) => internalReferences(text).map((r) => `${relative(ROOT, f)}:${line}: ${r}`)),
    );
    const awaited = (x: string) => AWAITING.some((a) => x.replace(/:\d+: /, ': ') === a);
    expect(found.filter((x) => !awaited(x))).toEqual([]);
    expect(AWAITING.filter((a) => !found.some((x) => x.replace(/:\d+: /, ': ') === a))).toEqual([]);
  });
});
