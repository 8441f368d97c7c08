// bench/checkpoint's results: results.json holds one key per bench ('layer-load': run.mjs, 'sparse-416gb':
// sparse-run.mjs, 'extract': extract-run.mjs); results.md is prose with each bench's table rendered from results.json between markers.
// record(key, data) stores a bench's data and re-renders its table; `node bench/checkpoint/results.mjs`
// re-renders every table.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const JSON_PATH = 'bench/checkpoint/results.json';
const MD_PATH = 'bench/checkpoint/results.md';
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const MiB = (b) => `${(b / 2 ** 20).toFixed(0)} MiB`;

/** The table of run.mjs's loads: a row per file type, layer count and layer loaded, medians over the rounds. */
function layerLoad(d) {
  const rounds = Math.max(...d.rows.map((x) => x.round));
  const lines = [
    `| type | layers in file | file size | layer | load (median of ${rounds}) | header parse | bytes read | peak RSS | ` +
      `\`mla-diff inspect\` |`,
    '|---|---|---|---|---|---|---|---|---|',
  ];
  const keys = [...new Set(d.rows.map((x) => `${x.type}/${x.layers}/${x.layer}`))];
  for (const k of keys) {
    const r = d.rows.filter((x) => `${x.type}/${x.layers}/${x.layer}` === k);
    const { type, layers, layer } = r[0];
    const label = type === 'Q4_K' ? 'Q4_K (attn_k_b Q5_0)' : type;
    const m = (f) => med(r.map(f));
    lines.push(
      `| ${label} | ${layers} | ${(r[0].fileBytes / 2 ** 30).toFixed(2)} GiB | ${layer} | ${m((x) => x.loadSeconds).toFixed(2)}` +
        ` s | ${m((x) => x.openSeconds).toFixed(2)} s | ` +
        `${MiB(m((x) => x.bytesRead))} | ${m((x) => x.maxRssMiB).toFixed(0)} MiB | ${m((x) => x.inspectSeconds).toFixed(2)} s |`,
    );
  }
  return lines;
}

/** The table of sparse-run.mjs: inspect and three layers of the 416 GB file, medians over the rounds. */
function sparse(d) {
  const rounds = Math.max(...d.rows.map((x) => x.round));
  const GB = (d.file.fileBytes / 1e9).toFixed(0);
  const lines = [`| ${GB} GB file | median of ${rounds} | bytes read | peak RSS |`, '|---|---|---|---|'];
  for (const what of [...new Set(d.rows.map((x) => x.what))]) {
    const r = d.rows.filter((x) => x.what === what);
    if (what === 'inspect') lines.push(`| \`mla-diff inspect\` | ${med(r.map((x) => x.seconds)).toFixed(2)} s | header only | |`);
    else
      lines.push(
        `| ${what} | ${med(r.map((x) => x.loadSeconds)).toFixed(2)} s (header ${med(r.map((x) => x.openSeconds)).toFixed(2)} ` +
          `s) | ${MiB(med(r.map((x) => x.bytesRead)))} | ${med(r.map((x) => x.maxRssMiB)).toFixed(0)} MiB |`,
      );
  }
  return lines;
}

/** The tables of extract-run.mjs: `mla-diff extract` of layers 0, 40, 77 of each file (medians over the rounds); llama.cpp's runs. */
function extract(d) {
  const rounds = Math.max(...d.cases[0].rows.map((x) => x.round));
  const lines = [
    `| file | size | layer | \`mla-diff extract\` (median of ${rounds}, whole process) | of it, extracting | bytes read | written | ` +
      'peak RSS |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const c of d.cases) {
    for (const layer of [...new Set(c.rows.map((x) => x.layer))]) {
      const r = c.rows.filter((x) => x.layer === layer);
      const m = (f) => med(r.map(f));
      lines.push(
        `| ${c.what} | ${(c.fileBytes / 2 ** 30).toFixed(2)} GiB | ${layer} | ${m((x) => x.processSeconds).toFixed(2)} s | ` +
          `${m((x) => x.seconds).toFixed(2)} s | ${MiB(m((x) => x.bytesRead))} | ${MiB(m((x) => x.bytesWritten))} | ` +
          `${m((x) => x.maxRssMiB).toFixed(0)} MiB |`,
      );
    }
  }
  for (const c of d.cases.filter((x) => x.engine)) {
    lines.push('', '| llama.cpp on the extracted layer | load | prefill 8 + decode 1 | nodes captured |', '|---|---|---|---|');
    for (const e of c.engine) {
      const layer = /l(\d+)\.gguf$/.exec(e.model)?.[1];
      const decode = e.decodeSeconds.map((s) => s.toFixed(3)).join(' + ');
      lines.push(`| layer ${layer} of ${c.what} | ${e.loadSeconds.toFixed(2)} s | ${decode} s | ${e.nodes} |`);
    }
  }
  return lines;
}

const TABLES = { 'layer-load': layerLoad, 'sparse-416gb': sparse, extract };
const begin = (key) => `<!-- ${key}: rendered from results.json by bench/checkpoint/results.mjs -->`;
const end = (key) => `<!-- /${key} -->`;

/** Re-renders the tables of results.md from doc (results.json by default); returns the tables. */
export function rerender(doc = JSON.parse(readFileSync(JSON_PATH, 'utf8'))) {
  let md = readFileSync(MD_PATH, 'utf8');
  const out = {};
  for (const [key, table] of Object.entries(TABLES)) {
    if (!doc[key]) continue;
    const [a, b] = [md.indexOf(begin(key)), md.indexOf(end(key))];
    if (a < 0 || b < a) throw new Error(`${MD_PATH} lacks the markers of ${key}`);
    out[key] = table(doc[key]).join('\n');
    md = `${md.slice(0, a + begin(key).length)}\n${out[key]}\n${md.slice(b)}`;
  }
  writeFileSync(MD_PATH, md);
  return out;
}

/** Stores one bench's data under key in results.json and re-renders results.md's tables; returns that bench's table. */
export function record(key, data) {
  const doc = { ...JSON.parse(readFileSync(JSON_PATH, 'utf8')), [key]: data };
  writeFileSync(JSON_PATH, `${JSON.stringify(doc, null, 2)}\n`);
  return rerender(doc)[key];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--help'))
    console.log('Usage: node bench/checkpoint/results.mjs  (re-renders the tables of bench/checkpoint/results.md)');
  else rerender();
}
