// The mutant scenarios, written from the mutant table (examples/backends/mutants/mutants.mjs): one per
// mutant and a clean one, over a schedule where context and decode bugs show: `chat` prefills 9 tokens in
// chunks of 5 (the second chunk attends to 5 cached tokens), then decodes 2 through KV splits; `hit`
// finds 4 tokens in the prefix cache and prefills 3 after them.
//
//   node bench/mutants/scenarios.mjs            # rewrites scenarios/mutants/*.yaml (tiny preset)
//   node bench/mutants/scenarios.mjs --check    # exit 1 when one of them is missing or differs
//
// score.mjs --dims glm-5 writes the same set at GLM-5 dims into a temp dir through glm5Scenario().
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MUTANTS, MUTANT_NAMES } from '../../examples/backends/mutants/mutants.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BACKEND = join(ROOT, 'examples', 'backends', 'mutants', 'mla-mutant.mjs');
export const SCENARIO_DIR = join(ROOT, 'scenarios', 'mutants');

/** Where each mutant's `piece` first shows in this schedule. */
export const PIECES = { first: { step: 0, request: 'chat' }, context: { step: 1, request: 'chat' }, decode: { step: 2, request: 'chat' } };

const SCHEDULE = {
  tiny: { schedule: '{ block_size: 4, context_chunk: 5, kv_splits: 3 }', prefill: 9, chunk: 5, cached: 4, turn: 3, model: 'preset: tiny' },
  // GLM-5 attention geometry on a head slice (tensor-parallel rank 0 of 64 / heads): a shorter schedule of the same shape
  'glm-5': {
    schedule: '{ block_size: 16, context_chunk: 16, kv_splits: 4 }',
    prefill: 24,
    chunk: 16,
    cached: 8,
    turn: 4,
    model: 'preset: glm-5',
  },
};

/** The YAML of one scenario: `mutant` null for the clean one; `command` the backend as the scenario's directory sees it. */
export function scenarioYaml(mutant, { dims = 'tiny', command, tp = null }) {
  const s = SCHEDULE[dims];
  const m = mutant && MUTANTS[mutant];
  const name = `mutant-${mutant ?? 'clean'}${dims === 'tiny' ? '' : `-${dims}`}`;
  const where = m && PIECES[m.piece];
  const lines = [
    m
      ? `# A third-party MLA layer with a bug outside mla-diff's fault catalogue (mla-mutant.mjs --mutant ${mutant}):`
      : '# The mutant backend unmutated (mla-mutant.mjs): an independent latent-absorbed MLA layer in float64 JavaScript;',
    m ? `# ${m.summary}.` : '# it agrees with mha, mqa, cold and the float64 reference at every stage it writes.',
    m ? `# Real-world shape: ${m.story}. Expected: first divergence ${m.enters}, culprit external.` : '# Expected: agree.',
    '# Written by bench/mutants/scenarios.mjs from examples/backends/mutants/mutants.mjs: edit those, then rerun it.',
    'version: 1',
    `name: ${name}`,
    `description: ${dims} dims; ${m ? `mutant ${mutant} through the external protocol is caught at ${m.enters}.` : 'it agrees.'}`,
    'model:',
    `  ${s.model}`,
    'weights:',
    '  synthetic: { seed: 7 }',
    'reference: on',
    `schedule: ${s.schedule}`,
    ...(tp ? ['cases:', `  - { name: tp0-of-${tp}, tp: { size: ${tp}, rank: 0 } }`] : []),
    'requests:',
    '  - name: chat',
    `    steps: [{ prefill: ${s.prefill}, chunk: ${s.chunk} }, { decode: 2 }]`,
    '  - name: hit',
    '    start_step: 1',
    `    steps: [{ cached: ${s.cached} }, { prefill: ${s.turn} }]`,
    'external:',
    `  command: ${command}${mutant ? ` --mutant ${mutant}` : ''}`,
    `  name: ${mutant ? `mutant-${mutant}` : 'mla-mutant'}`,
    `  timeout_s: ${dims === 'tiny' ? 60 : 600}`,
    'expect:',
    ...(m
      ? [
          '  outcome: diverge',
          `  first_divergence: ${m.enters}`,
          '  culprit: external',
          `  step: ${where.step}`,
          `  request: ${where.request}`,
        ]
      : ['  outcome: agree']),
  ];
  return `${lines.join('\n')}\n`;
}

/** Writes the set into `dir`: clean.yaml and NAME.yaml per mutant; returns their paths. */
export function writeScenarios(dir, options) {
  mkdirSync(dir, { recursive: true });
  return [null, ...MUTANT_NAMES].map((mutant) => {
    const file = join(dir, `${mutant ?? 'clean'}.yaml`);
    writeFileSync(file, scenarioYaml(mutant, options));
    return file;
  });
}

const TINY = { command: `node ${relative(SCENARIO_DIR, BACKEND)}` };

/** The committed tiny scenarios, in order (clean first), and those not what this script writes (missing or edited). */
export function tinyScenarios() {
  const all = [null, ...MUTANT_NAMES].map((m) => ({ file: join(SCENARIO_DIR, `${m ?? 'clean'}.yaml`), text: scenarioYaml(m, TINY) }));
  const stale = all.filter(({ file, text }) => !existsSync(file) || readFileSync(file, 'utf8') !== text).map(({ file }) => file);
  return { files: all.map(({ file }) => file), stale };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--check')) {
    const { stale } = tinyScenarios();
    for (const f of stale) console.error(`${relative(ROOT, f)}: not what bench/mutants/scenarios.mjs writes`);
    process.exit(stale.length ? 1 : 0);
  }
  const files = writeScenarios(SCENARIO_DIR, TINY);
  console.log(`wrote ${files.length} scenarios into ${relative(ROOT, SCENARIO_DIR)}/`);
}
