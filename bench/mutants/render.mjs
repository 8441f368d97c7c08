// results.md from results.json (bench/mutants/score.mjs): per dims, the totals and one row per mutant.
import { MUTANTS } from '../../examples/backends/mutants/mutants.mjs';

const yn = (b) => (b === true ? 'yes' : b === false ? '**no**' : '–');
const where = (f) => (f ? `${f.stage}${f.chunk !== null ? `[${f.chunk}]` : ''} @ ${f.step}/${f.request}` : 'none');

function section(e) {
  const t = e.totals;
  const lines = [
    `## ${e.dims}${e.dims === 'tiny' ? ' preset' : ` dims, ${e.heads.count} of ${e.heads.total} heads`}`,
    '',
    `\`${e.command}\` at ${e.commit}, ${e.created.slice(0, 10)}, ${e.host}: ${e.seconds.toFixed(0)} s for ${t.mutants} mutants + clean.`,
    '',
    `Detected ${t.detected}/${t.mutants}, localized ${t.localized}/${t.mutants}, attributed ${t.attributed}/${t.mutants}, ` +
      `origin introduced ${t.origin}/${t.mutants}, ≥ 1 likely cause ${t.diagnosed}/${t.mutants}, ` +
      `right cause first ${t.right}/${t.rightPossible}, among the likely causes ${t.rightAny}/${t.rightPossible} ` +
      '(of the mutants a cause of CAUSES names); ' +
      `clean run: ${t.cleanFalsePositive ? '**false positive**' : 'agrees'}${t.errors ? `; **${t.errors} runs failed**` : ''}.`,
    '',
    '| mutant | enters | first divergence (culprit) | rel err | det | loc | att | origin | likely causes | right | s |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of e.rows) {
    if (r.error) {
      lines.push(`| ${r.mutant ?? 'clean'} | | **${r.error}** | | | | | | | | ${r.seconds.toFixed(1)} |`);
      continue;
    }
    const first = r.first ? `${where(r.first)} (${r.first.culprit}${r.first.verdict === 'nan-introduced' ? ', NaN' : ''})` : 'agree';
    const rel = r.relErr === null ? '' : r.relErr.toPrecision(2);
    if (!r.mutant) {
      const verdict = r.detected ? '**false positive**' : 'agree';
      lines.push(`| clean | – | ${first} | ${rel} | ${verdict} | | | | ${r.causes.join('; ')} | | ${r.seconds.toFixed(1)} |`);
      continue;
    }
    const right = r.right === null ? '– (no cause of CAUSES names it)' : r.right ? 'yes' : r.rightAny ? 'not first' : '**no**';
    lines.push(
      `| ${r.mutant} | ${r.enters} | ${first} | ${rel} | ${yn(r.detected)} | ${yn(r.localized)} | ${yn(r.attributed)} | ` +
        `${r.origin ?? '–'} | ${r.causes.join('; ') || '–'} | ${right} | ${r.seconds.toFixed(1)} |`,
    );
  }
  return lines.join('\n');
}

export function renderMarkdown(all) {
  const head = [
    '# mla-diff against our own mutant set',
    '',
    'Independent third-party MLA layers (examples/backends/mutants/mla-mutant.mjs: latent-absorbed math, plain JavaScript),',
    "each with one bug none of mla-diff's planted faults models (examples/backends/mutants/mutants.mjs), run through the",
    'external protocol and scored from the run report: **det** diverges, **loc** first divergence at the stage and piece the',
    'bug enters, **att** culprit external, **origin** what mla-diff says of that record (introduced is right), **likely causes**',
    'the diagnosis, **right** its first cause is one that names the bug. Regenerate: `npm run build`, then the commands below.',
    '',
    '| mutant | the bug |',
    '|---|---|',
    ...Object.entries(MUTANTS).map(([n, m]) => `| ${n} | ${m.summary} (${m.story}) |`),
  ];
  const order = Object.keys(all.runs).sort((a, b) => (a === 'tiny' ? -1 : b === 'tiny' ? 1 : a.localeCompare(b)));
  return `${[head.join('\n'), ...order.map((d) => section(all.runs[d]))].join('\n\n')}\n`;
}
