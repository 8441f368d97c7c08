// Opens an HTML report in headless Chromium (Debian's chromium package, driven by puppeteer-core),
// measures what rendered and takes a screenshot. It prints one JSON object:
//   {svgs: [{marks, drawn, width, height}], screenshot: {file, bytes, width, height, colours, inkFraction}}
// `marks`: SVG mark elements vega drew (class mark-*) with a path/rect/shape inside; `drawn`: those
// with a non-zero bounding box in the page; `colours`/`inkFraction`: distinct colours and the share
// of non-white pixels of the screenshot, read back through a canvas (a blank page has 1 and 0).
// Usage: node scripts/screenshot-report.mjs [--html report.html] [--png docs/img/html-report.png]
// Without --html it renders the saved fault run fixtures/fault-mqa-scale-576.tp0.report.json
// through the built CLI (the package's bin) into a temporary file. CHROMIUM overrides /usr/bin/chromium.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import puppeteer from 'puppeteer-core';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
// the CLI: the bin of the mla-diff package (package.json "bin")
const CLI = join(dirname(require.resolve('mla-diff/package.json')), require('mla-diff/package.json').bin['mla-diff']);
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? fallback : process.argv[i + 1];
};
const png = resolve(arg('--png', join(ROOT, 'docs/img/html-report.png')));
const tmp = mkdtempSync(join(tmpdir(), 'mla-html-'));
let html = arg('--html', null);
if (!html) {
  html = join(tmp, 'report.html');
  const r = spawnSync(process.execPath, [CLI, 'report', join(ROOT, 'fixtures/fault-mqa-scale-576.tp0.report.json'), '--html', html], {
    encoding: 'utf8',
  });
  if (r.status !== 1 && r.status !== 0) throw new Error(`mla-diff report failed (exit ${r.status}): ${r.stderr}`);
}

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--headless=new', '--disable-gpu', '--disable-dev-shm-usage'],
});
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1200, height: 900 });
  // The page is self-contained: any request other than the file itself is a bug.
  const external = [];
  await page.setRequestInterception(true);
  page.on('request', (q) => {
    if (q.url().startsWith('file:') || q.url().startsWith('data:')) q.continue();
    else {
      external.push(q.url());
      q.abort();
    }
  });
  await page.goto(pathToFileURL(resolve(html)).href, { waitUntil: 'load' });
  const svgs = await page.evaluate(() =>
    [...document.querySelectorAll('body svg')].map((svg) => {
      const marks = [...svg.querySelectorAll('[class*="mark-"] path, [class*="mark-"] rect, [class*="mark-"] line')].filter(
        (el) => !el.closest('.role-axis, .role-legend, .role-title, .background'),
      );
      const box = svg.getBoundingClientRect();
      return {
        marks: marks.length,
        drawn: marks.filter((el) => {
          const b = el.getBoundingClientRect();
          return b.width > 0 || b.height > 0;
        }).length,
        width: box.width,
        height: box.height,
      };
    }),
  );
  // The README's image: the first case down to the end of its last plot (at most 1800 px; the
  // viewport when the page has no plot).
  const bottom = await page.evaluate(() =>
    Math.max(0, ...[...document.querySelectorAll('section:first-of-type figure')].map((f) => f.getBoundingClientRect().bottom)),
  );
  const height = bottom > 0 ? Math.min(1800, Math.ceil(bottom) + 16) : 900;
  await page.screenshot({ path: png, type: 'png', clip: { x: 0, y: 0, width: 1200, height }, captureBeyondViewport: true });
  const data = readFileSync(png).toString('base64');
  const shot = await page.evaluate(async (src) => {
    const img = new Image();
    img.src = src;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = img.width;
    canvas.height = img.height;
    const ctx = canvas.getContext('2d');
    ctx.drawImage(img, 0, 0);
    const px = ctx.getImageData(0, 0, img.width, img.height).data;
    const colours = new Set();
    let ink = 0;
    for (let i = 0; i < px.length; i += 4) {
      colours.add((px[i] << 16) | (px[i + 1] << 8) | px[i + 2]);
      if (px[i] < 250 || px[i + 1] < 250 || px[i + 2] < 250) ink++;
    }
    return { width: img.width, height: img.height, colours: colours.size, inkFraction: ink / (px.length / 4) };
  }, `data:image/png;base64,${data}`);
  console.log(JSON.stringify({ html, external, svgs, screenshot: { file: png, bytes: statSync(png).size, ...shot } }));
} finally {
  await browser.close();
  rmSync(tmp, { recursive: true, force: true });
}
