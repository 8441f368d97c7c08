/**
 * The fuzz campaign: `node dist/fuzz/campaign.js [--seed N] [--inputs N] [--cli N] [--targets a,b] [--jobs N] [--out DIR]`
 * (a flag given twice: the last wins, so bench/fuzz/run.sh takes overrides).
 * --inputs in-process inputs in all (default 10^5, shared by the targets as WEIGHTS says), --cli CLI runs (default 300). Writes
 * DIR/summary.json and DIR/results.md (default bench/fuzz) and prints one repro command per bad signature. Exit 1 when
 * any input crashed, hung, blew up, lost data, leaked or was rejected uncoded.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, freemem, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { makeCliBase } from './cli-base';
import { runCliCase, tmpfsWorks } from './cli-run';
import { ROOT } from './corpus';
import { runPool } from './pool';
import { renderResults } from './results';
import { badCount, emptyTally, record, type Summary, type TargetTally } from './tally';
import { TARGET_NAMES, type Owner, type TargetName } from './target';
import type { Chunk } from './worker';

/**
 * Each target's share of --inputs: by cost per input (a saved report takes ~0.2–0.6 s to validate, a GGUF header ~5 ms)
 * and by surface (the loader has the most fields; the campaign found most there).
 */
export const WEIGHTS: Record<TargetName, number> = {
  loader: 0.32,
  gguf: 0.22,
  safetensors: 0.16,
  tokenizer: 0.12,
  trace: 0.15,
  reports: 0.03,
};

export interface CampaignOptions {
  seed: number;
  inputs: number;
  cli: number;
  targets: TargetName[];
  jobs: number;
  out: string;
  hangMs: number;
  blowupBytes: number;
  chunk: number;
}

function options(argv: string[]): CampaignOptions {
  const arg = (name: string) => {
    const i = argv.lastIndexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const num = (name: string, d: number) => {
    const v = arg(name);
    const n = v === undefined ? d : Number(v);
    if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} takes a non-negative integer, got ${v}`);
    return n;
  };
  const targets = (arg('targets')?.split(',') ?? TARGET_NAMES) as TargetName[];
  for (const t of targets) if (!TARGET_NAMES.includes(t)) throw new Error(`--targets: ${t} is not one of ${TARGET_NAMES.join(', ')}`);
  return {
    seed: num('seed', 1),
    inputs: num('inputs', 100_000),
    cli: num('cli', 300),
    targets,
    jobs: num('jobs', Math.max(1, cpus().length)),
    out: arg('out') ?? join(ROOT, 'bench', 'fuzz'),
    hangMs: num('hang-ms', 15_000),
    blowupBytes: num('blowup-mb', 2048) * 2 ** 20,
    chunk: num('chunk', 250),
  };
}

async function main(): Promise<void> {
  const o = options(process.argv.slice(2));
  const work = mkdtempSync(join(tmpdir(), 'mla-diff-fuzz-'));
  const t0 = performance.now();
  const tallies: Partial<Record<Owner, TargetTally>> = {};
  const chunks: Chunk[] = [];
  for (const target of o.targets) {
    tallies[target] = emptyTally();
    const n = Math.ceil((o.inputs * WEIGHTS[target]) / o.targets.reduce((s, t) => s + WEIGHTS[t], 0));
    for (let from = 0; from < n; from += o.chunk) chunks.push({ target, seed: o.seed, from, to: Math.min(n, from + o.chunk) });
  }
  // interleaved, so that a campaign cut short has covered every target alike
  chunks.sort((a, b) => a.from - b.from);
  let n = 0;
  const progress = (what: string) => {
    if (++n % 2000 === 0) process.stderr.write(`fuzz: ${n} inputs, ${((performance.now() - t0) / 1000).toFixed(0)} s (${what})\n`);
  };
  await runPool(chunks, {
    jobs: o.jobs,
    dir: work,
    hangMs: o.hangMs,
    blowupBytes: o.blowupBytes,
    onResult: (c, index, outcome, describe, ms) => {
      record(tallies[c.target]!, outcome, index, describe, ms);
      progress(c.target);
    },
  });
  const tmpfs = o.cli > 0 && tmpfsWorks(work);
  if (o.cli > 0) {
    const cli = (tallies.cli = emptyTally());
    const base = makeCliBase(join(work, 'cli-base'));
    let next = 0;
    const lane = async () => {
      for (let i = next++; i < o.cli; i = next++) {
        const r = await runCliCase(base, join(work, 'cli'), o.seed, i, tmpfs);
        record(cli, r.outcome, r.index, r.describe, r.ms);
        if (i % 25 === 0) process.stderr.write(`fuzz: cli ${i}/${o.cli}\n`);
      }
    };
    await Promise.all(Array.from({ length: o.jobs }, lane));
  }
  const summary: Summary = {
    command: `node dist/fuzz/campaign.js ${process.argv.slice(2).join(' ')}`.trim(),
    seed: o.seed,
    date: new Date().toISOString(),
    machine: {
      cpus: cpus()[0]?.model ?? '?',
      cores: cpus().length,
      memGiB: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
      tmpfs,
    },
    seconds: Math.round((performance.now() - t0) / 1000),
    limits: { hangS: o.hangMs / 1000, cliHangS: 60, blowupMiB: o.blowupBytes / 2 ** 20 },
    targets: tallies,
    totals: {
      inputs: Object.values(tallies).reduce((s, t) => s + t.inputs, 0),
      bad: Object.values(tallies).reduce((s, t) => s + badCount(t), 0),
    },
  };
  void freemem;
  mkdirSync(o.out, { recursive: true });
  writeFileSync(join(o.out, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  writeFileSync(`${o.out}/results.md`, renderResults(summary));
  for (const [target, t] of Object.entries(tallies))
    for (const [sig, s] of Object.entries(t.signatures))
      process.stdout.write(
        `${target} ${s.count}× ${sig}\n  repro: node dist/fuzz/repro.js ${target} ${o.seed} ${s.examples[0]?.index}` +
          ` (${s.examples[0]?.describe})\n`,
      );
  process.stdout.write(
    `fuzz: ${summary.totals.inputs} inputs in ${summary.seconds} s, ${summary.totals.bad} bad; ${join(o.out, 'summary.json')}\n`,
  );
  rmSync(work, { recursive: true, force: true });
  process.exitCode = summary.totals.bad > 0 ? 1 : 0;
}

if (require.main === module)
  main().catch((e: unknown) => {
    process.stderr.write(`fuzz: ${(e as Error).stack ?? String(e)}\n`);
    process.exitCode = 2;
  });
