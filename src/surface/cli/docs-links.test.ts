import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, at, brokenLink, codeSpans, docLines, relativeLinks, userDocs } from './test-utils/doc-lines';

// Every relative link of README.md and docs/*.md resolves (file and #anchor), and every repository path they name
// (a scenario, a source file, a bench page) exists: a renamed or removed file fails here with the doc line.

const lines = userDocs().flatMap(docLines);

/**
 * Paths a doc names from the repository root: `scenarios/x.yaml`, src/…/y.ts, bench/…/results.md; globs and other
 * projects' files (llama.cpp's src/llama-graph.cpp) skipped, links left to the test above.
 */
const EXT = 'md|ts|mjs|cjs|json|ya?ml|py|sh|svg|png';
const REPO_PATH = new RegExp(
  `(?<![\\w./$-])((?:bench|docs|examples|schema|scenarios|scripts|src|test)/[\\w./-]*\\.(?:${EXT}))(?![\\w/*{-])`,
  'g',
);
const LINK = /!?\[[^\]]*\]\([^)]*\)/g;
/** Written by a command, not in git: fixtures/checkpoints/ (npm run fixtures), out/. */
const GENERATED = /^(fixtures\/checkpoints|out)\//;

describe('the docs against the files of the repository', () => {
  it('tells a broken link and a missing anchor from good ones', () => {
    expect(brokenLink('README.md', 'docs/golden.md')).toBeNull();
    expect(brokenLink('docs/golden.md', '../bench/cpu/results.md#issue8-512')).toBeNull();
    expect(brokenLink('docs/golden.md', 'golden.md')).toBeNull();
    expect(brokenLink('README.md', 'docs/nope.md')).toMatch(/no file docs\/nope\.md/);
    expect(brokenLink('README.md', 'docs/golden.md#nope')).toMatch(/no anchor #nope/);
  });

  it('every relative link of README.md and docs/*.md points at a file (and #anchor) that exists', () => {
    const drift = lines.flatMap((l) =>
      relativeLinks(l.text).flatMap((target) => {
        const why = brokenLink(l.file, target);
        return why ? [at(l, why)] : [];
      }),
    );
    expect(drift).toEqual([]);
  });

  it('every repository path README.md and docs/*.md name exists', () => {
    const drift = lines.flatMap((l) => {
      const paths = [...l.text.replace(LINK, ' ').matchAll(REPO_PATH)].map((m) => (m[1] ?? '').replace(/[.]$/, ''));
      return [...new Set(paths)].filter((p) => !GENERATED.test(p) && !existsSync(join(ROOT, p))).map((p) => at(l, `no file ${p}`));
    });
    expect(drift).toEqual([]);
  });

  it("the scenarios README's list names (`scenarios/` holds … `chunked-prefill`, …) are shipped scenarios", () => {
    const readme = lines.filter((l) => l.file === 'README.md');
    const first = readme.findIndex((l) => l.text.includes('`scenarios/` holds'));
    expect(first).toBeGreaterThanOrEqual(0);
    const para = readme.slice(first, readme.findIndex((l, i) => i > first && (l.text.trim() === '' || /Bad input/.test(l.text))) + 1);
    const shipped = new Set(
      ['scenarios', 'scenarios/gpu']
        .flatMap((d) => readdirSync(join(ROOT, d)).filter((f) => f.endsWith('.yaml')))
        .map((f) => f.replace(/\.yaml$/, '')),
    );
    const named = para.flatMap((l, i) => {
      const text = i === 0 ? l.text.slice(l.text.indexOf('`scenarios/` holds')) : (l.text.split('Bad input')[0] ?? '');
      return codeSpans(text)
        .filter((s) => /^[a-z0-9]+(-[a-z0-9]+)*$/.test(s))
        .map((s) => ({ s, l }));
    });
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter(({ s }) => !shipped.has(s)).map(({ s, l }) => at(l, `\`${s}\`: no scenarios/${s}.yaml`))).toEqual([]);
  });
});
