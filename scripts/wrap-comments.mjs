#!/usr/bin/env node
// Re-wraps comment lines longer than the limit (140, eslint's max-len) so that they fit: `//` comments and
// the lines of `/* … */` and `/** … */` blocks, keeping the indentation and the comment prefix (and a list
// item's hanging indent). Code and strings are never touched: TypeScript's parser says where the comments
// are. A trailing `// …` after code on an over-long line moves onto its own line above the code; a
// one-line `/** … */` that is too long opens into a block. Run it after prettier (prettier does not wrap
// comments; it leaves what this writes alone). Lines it cannot fix (one word longer than the room, code,
// strings) are left as they are and counted.
//
// Usage: node scripts/wrap-comments.mjs [--check] [--width N] [paths…]   (default: src test bench scripts)
//   --check: change nothing, list the files that would change (exit 1 if any).
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const args = process.argv.slice(2);
const check = args.includes('--check');
const widthAt = args.indexOf('--width');
const WIDTH = widthAt >= 0 ? Number(args[widthAt + 1]) : 140;
const roots = args.filter((a, i) => !a.startsWith('--') && (widthAt < 0 || i !== widthAt + 1));
const EXT = /\.(ts|mts|cts|mjs|cjs|js)$/;
const SKIP_DIR = new Set(['node_modules', 'dist', 'coverage', 'out', 'fixtures', '.git']);

/** Length as eslint's max-len counts it: code points. */
const len = (s) => Array.from(s).length;

/** Directives whose text must stay on one line. */
const DIRECTIVE =
  /^\s*(\/\/\/|\/\/\s*(eslint|@ts-|prettier-ignore|istanbul|c8|#)|\/\*\s*(eslint|global|istanbul|c8|prettier-ignore|webpackChunkName))/;
/** Text a wrapped line must not begin with (it would become markup: a list item, a tag, a heading, a table row, a quote). */
const MARKUP_START = /^([-*+>|#@]|\d+[.)])(\s|$)|^@/;

function* files(path) {
  const st = statSync(path);
  if (st.isFile()) {
    if (EXT.test(path)) yield path;
    return;
  }
  for (const name of readdirSync(path).sort()) {
    if (SKIP_DIR.has(name)) continue;
    const p = join(path, name);
    if (statSync(p).isDirectory()) yield* files(p);
    else if (EXT.test(name) && !name.endsWith('.d.ts')) yield p;
  }
}

/** Every comment's [pos, end) and kind, from the parser (so `//` in a string or regex is not one). */
function commentRanges(text, file) {
  const kind = /\.(ts|mts|cts)$/.test(file) ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const found = new Map();
  const add = (ranges) => {
    for (const r of ranges ?? []) found.set(r.pos, r);
  };
  const visit = (node) => {
    add(ts.getLeadingCommentRanges(text, node.getFullStart()));
    add(ts.getTrailingCommentRanges(text, node.getEnd()));
    for (const child of node.getChildren(sf)) visit(child);
  };
  visit(sf);
  return { ranges: [...found.values()].sort((a, b) => a.pos - b.pos), heads: statementHeads(sf) };
}

/** Where the statements (in a block, not the bare body of an if or a loop), members and properties begin. */
function statementHeads(sf) {
  const heads = new Set();
  const BLOCKS = new Set([
    ts.SyntaxKind.Block,
    ts.SyntaxKind.SourceFile,
    ts.SyntaxKind.ModuleBlock,
    ts.SyntaxKind.CaseClause,
    ts.SyntaxKind.DefaultClause,
  ]);
  const visit = (node) => {
    const member = ts.isClassElement(node) || ts.isTypeElement(node) || ts.isEnumMember(node);
    const property = ts.isPropertyAssignment(node) || ts.isShorthandPropertyAssignment(node) || ts.isSpreadAssignment(node);
    if (((ts.isStatement(node) || ts.isVariableStatement(node)) && node.parent && BLOCKS.has(node.parent.kind)) || member || property) {
      heads.add(node.getStart(sf));
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return heads;
}

/**
 * Splits `text` at spaces into lines `first + piece`, then `rest + piece`, each ≤ WIDTH where a break allows it; never so that a line
 * begins with markup. Prefers breaks outside brackets and `code` (a long enough line); runs of spaces inside a piece are kept.
 */
function wrap(text, first, rest) {
  const out = [];
  let prefix = first;
  let left = text;
  while (len(prefix + left) > WIDTH) {
    let any = -1; // the last break whose head fits
    let outside = -1; // … of those, the last outside brackets and backticks
    let over = -1; // the first break there is, when none fits (the line stays long)
    let depth = 0;
    let tick = false;
    for (let i = 0; i < left.length; i++) {
      const c = left[i];
      if (c === '`') tick = !tick;
      else if (!tick && '([{'.includes(c)) depth++;
      else if (!tick && ')]}'.includes(c)) depth = Math.max(0, depth - 1);
      if (c !== ' ') continue;
      const head = left.slice(0, i).trimEnd();
      const tail = left.slice(i).trimStart();
      if (head === '' || tail === '' || MARKUP_START.test(tail)) continue;
      if (len(prefix + head) > WIDTH) {
        if (any < 0) over = i;
        break;
      }
      any = i;
      if (depth === 0 && !tick) outside = i;
    }
    const good = (i) => i > 0 && len(prefix + left.slice(0, i).trimEnd()) >= 0.6 * WIDTH;
    const cut = good(outside) ? outside : any >= 0 ? any : over;
    if (cut < 0) break;
    out.push(prefix + left.slice(0, cut).trimEnd());
    left = left.slice(cut).trimStart();
    prefix = rest;
  }
  out.push(prefix + left);
  return out;
}

/** A list item's hanging indent: continuation lines line up with the item's text. */
function hanging(text) {
  const m = /^(\s*)([-*+•]|\d+[.)]|\([a-z0-9]+\))\s+/.exec(text);
  return m ? ' '.repeat(len(m[0])) : /^\s*/.exec(text)[0];
}

function rewrap(text, file) {
  const { ranges, heads } = commentRanges(text, file);
  const lines = text.split('\n');
  const starts = [];
  for (let i = 0, at = 0; i < lines.length; at += lines[i].length + 1, i++) starts.push(at);
  const lineOf = (pos) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const replace = new Map(); // line index → replacement lines
  for (const r of ranges) {
    const a = lineOf(r.pos);
    const b = lineOf(r.end - 1);
    const comment = text.slice(r.pos, r.end);
    if (DIRECTIVE.test(comment)) continue;
    if (r.kind === ts.SyntaxKind.SingleLineCommentTrivia) {
      const line = lines[a];
      if (len(line) <= WIDTH) continue;
      const before = line.slice(0, r.pos - starts[a]);
      const m = /^(\/\/+\s*)(.*)$/.exec(comment);
      const indent = /^\s*/.exec(line)[0];
      if (before.trim() === '') {
        // continuation lines: a list item's hanging indent, or the next line's deeper indent when it continues this one
        const next = a + 1 < lines.length ? /^(\s*)\/\/(\s*)\S/.exec(lines[a + 1]) : null;
        const deeper = next && next[1] === before && next[2].length > m[1].length - 2 ? next[2].slice(m[1].length - 2) : '';
        const more = hanging(m[2]) || deeper;
        replace.set(a, wrap(m[2], before + m[1], before + m[1] + more));
      } else if (
        line.slice(r.end - starts[a]).trim() === '' &&
        len(before.trimEnd()) <= WIDTH &&
        heads.has(starts[a] + indent.length) &&
        !/^\s*[)\]}]/.test(line)
      ) {
        // a trailing comment: onto its own line(s) above the code, at the code's indentation
        const above = wrap(m[2], indent + m[1], indent + m[1] + hanging(m[2]));
        replace.set(a, [...above, before.trimEnd()]);
      }
      continue;
    }
    // A block comment.
    const indent = /^\s*/.exec(lines[a])[0];
    const wholeLines = lines[a].slice(0, r.pos - starts[a]).trim() === '' && lines[b].slice(r.end - starts[b]).trim() === '';
    if (!wholeLines) continue;
    if (a === b) {
      if (len(lines[a]) <= WIDTH) continue;
      const m = /^\/\*(\*?)\s*([\s\S]*?)\s*\*\/$/.exec(comment);
      if (!m) continue;
      const star = `${indent} * `;
      replace.set(a, [`${indent}/*${m[1]}`, ...wrap(m[2], star, star + hanging(m[2])), `${indent} */`]);
      continue;
    }
    let fenced = false; // inside a ``` code sample: left alone
    for (let i = a; i <= b; i++) {
      const line = lines[i];
      const inner = /^(\s*\*\s?)(.*)$/.exec(line);
      if (inner && /^\s*```/.test(inner[2])) fenced = !fenced;
      if (fenced || len(line) <= WIDTH) continue;
      if (i === a) {
        const m = /^(\s*\/\*\*?\s+)(.*)$/.exec(line);
        if (m) replace.set(i, wrap(m[2], m[1], `${indent} * ${hanging(m[2])}`));
        continue;
      }
      if (!inner || /^\s*\*\//.test(line)) continue;
      let body = inner[2];
      const closes = i === b && /\s*\*\/\s*$/.test(body);
      if (closes) body = body.replace(/\s*\*\/\s*$/, '');
      const pad = inner[1].endsWith(' ') ? inner[1] : `${inner[1]} `;
      const out = wrap(body, inner[1], pad + hanging(body));
      if (closes) {
        const last = `${out[out.length - 1]} */`;
        if (len(last) <= WIDTH) out[out.length - 1] = last;
        else out.push(`${indent} */`);
      }
      replace.set(i, out);
    }
  }
  if (replace.size === 0) return text;
  return lines.flatMap((line, i) => replace.get(i) ?? [line]).join('\n');
}

let changed = 0;
let longLeft = 0;
for (const root of roots.length > 0 ? roots : ['src', 'test', 'bench', 'scripts']) {
  for (const file of files(root)) {
    const before = readFileSync(file, 'utf8');
    const after = rewrap(before, file);
    longLeft += after.split('\n').filter((l) => len(l) > WIDTH).length;
    if (after === before) continue;
    changed++;
    if (check) console.log(file);
    else writeFileSync(file, after);
  }
}
const verb = check ? 'would change' : 'changed';
console.error(`wrap-comments: ${changed} file(s) ${verb}; ${longLeft} line(s) > ${WIDTH} left (code, strings, unbreakable words)`);
process.exit(check && changed > 0 ? 1 : 0);
