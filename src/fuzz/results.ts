import type { Summary } from './tally';
import { BAD_CLASSES } from './classify';

/** bench/fuzz/results.md: one row a target, then every bad signature with its first inputs. */
export function renderResults(s: Summary): string {
  const rows = Object.entries(s.targets).map(([name, t]) => {
    const codes = Object.entries(t.rejected)
      .sort((a, b) => b[1] - a[1])
      .map(([c, k]) => `${c} ${k}`)
      .join(', ');
    const c = t.classes;
    const cells = [name, t.inputs, c.ok, c.rejected, codes || '–', c.crash, c.hang, c['blow-up'], c['data-loss'], c.leak, c.uncoded];
    return `| ${[...cells, t.seconds.toFixed(0), t.slowestMs.toFixed(0)].join(' | ')} |`;
  });
  const bad = Object.entries(s.targets).flatMap(([name, t]) =>
    Object.entries(t.signatures).map(
      ([sig, x]) =>
        `- **${name}** ${x.count}× ${sig.replace(/\|/g, '\\|')}\n` +
        x.examples.map((e) => `  - \`node dist/fuzz/repro.js ${name} ${s.seed} ${e.index}\`: ${e.describe}`).join('\n'),
    ),
  );
  const m = s.machine;
  return [
    '# Fuzz campaign: hostile input',
    '',
    `Command: \`${s.command}\` (seed ${s.seed}), ${s.date}, ${s.seconds} s.`,
    `Machine: ${m.cores} × ${m.cpus}, ${m.memGiB} GiB, Node ${m.node}, ${m.platform};` +
      ` tmpfs for full-disk cases: ${m.tmpfs ? 'yes' : 'no (skipped)'}.`,
    `Limits: a hang is an input past ${s.limits.hangS} s (a CLI run past ${s.limits.cliHangS} s),` +
      ` a blow-up past ${s.limits.blowupMiB} MiB RSS.`,
    '',
    '| target | inputs | ok | rejected | rejected per code | crash | hang | blow-up | data-loss | leak | uncoded | busy s | slowest ms |',
    '| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
    `Total: ${s.totals.inputs} inputs, ${s.totals.bad} bad (${BAD_CLASSES.join(', ')}).`,
    '',
    ...(bad.length ? ['## Bad outcomes', '', ...bad, ''] : ['No bad outcomes.', '']),
    ...LEGEND,
  ].join('\n');
}

/** What the columns mean, under the table. */
const LEGEND = [
  '## Reading the table',
  '',
  '- **ok**: the input was accepted and the call returned (a CLI run exited 0 or 1 with its report).',
  '- **rejected**: one coded error (`mla-diff: error [code]`) naming the file and the field or line; an error without',
  '  them, or whose text says `undefined` or `[object Object]`, counts as **uncoded** instead.',
  '- **crash**: any other exception, or a CLI run that exited outside 0–3 / 130 / 143 or printed an internal error;',
  '  **hang**: past the limit above; **blow-up**: past the RSS limit; **data-loss**: an input of the run changed;',
  '  **leak**: a process left running, a temp file or exchange directory left, or a report written by an interrupted run.',
  '- **killed by SIGINT/SIGTERM (default action)**: the signal came while Node was still loading mla-diff (the first',
  '  half second), before its handlers were set: nothing had started, the shell sees 130/143, and the leak and',
  '  data-loss checks ran on it as on every case.',
  '',
];
