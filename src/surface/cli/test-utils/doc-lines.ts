import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** The repository root (this file is src/surface/cli/test-utils/doc-lines.ts); MLA_DIFF_DOCS_ROOT checks another tree's docs. */
export const ROOT = process.env['MLA_DIFF_DOCS_ROOT'] ?? resolve(__dirname, '../../../..');

/** One line of a Markdown document, as the drift checks read it. */
export interface DocLine {
  /** Relative to ROOT, e.g. `docs/golden.md`. */
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  readonly text: string;
  /** Inside a ``` fence or a 4-space-indented code block: a shell line, not prose. */
  readonly code: boolean;
}

/** README.md and docs/*.md, the documents a user reads. */
export function userDocs(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', ...docs];
}

export function docLines(file: string): DocLine[] {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  let fenced = false;
  return lines.map((text, i) => {
    const fence = /^\s*```/.test(text);
    const code = fenced || /^ {4}(\$ |npx )?mla-diff /.test(text);
    if (fence) fenced = !fenced;
    return { file, line: i + 1, text, code: code && !fence };
  });
}

/** `README.md:12: the line` (shortened): what a failure names. */
export function at(l: DocLine, what: string): string {
  const text = l.text.trim();
  return `${l.file}:${l.line}: ${what} — in «${text.length > 110 ? `${text.slice(0, 107)}…` : text}»`;
}

/** The `inline code` spans of a prose line. */
export function codeSpans(text: string): string[] {
  return [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');
}

/** The targets of a line's Markdown links and images, `[text](target)`, that are not URLs or in-page anchors. */
export function relativeLinks(text: string): string[] {
  return [...text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? '').filter((t) => !/^[a-z]+:/i.test(t) && !t.startsWith('#'));
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as dashes. */
export function headingSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors a Markdown file defines: `<a id="…">`/`<a name="…">` and its headings' slugs. */
export function anchorsOf(path: string): Set<string> {
  const text = readFileSync(path, 'utf8');
  const ids = [...text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)].map((m) => m[1] ?? '');
  const headings = [...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => headingSlug(m[1] ?? ''));
  return new Set([...ids, ...headings]);
}

/** Where a link of `file` points, or why it does not. */
export function brokenLink(file: string, target: string): string | null {
  const [path = '', anchor] = target.split('#');
  const abs = path === '' ? join(ROOT, file) : resolve(join(ROOT, dirname(file)), decodeURIComponent(path));
  if (!existsSync(abs)) return `link to ${target}: no file ${relative(ROOT, abs)}`;
  if (anchor && abs.endsWith('.md') && !anchorsOf(abs).has(anchor))
    return `link to ${target}: no anchor #${anchor} in ${relative(ROOT, abs)}`;
  return null;
}
