/** What the external-backend e2e suites share: the CLI on wasm, the Node example backend, tiny scenarios, the run JSON they read. */
import { join } from 'node:path';
import { mla as cli, ROOT, suiteDir, tinyScenario } from './cli-helpers';

export const NODE_MLA = join(ROOT, 'examples', 'backends', 'node-mla.mjs');

export const mla = (args: string[]) => cli([...args, '--device', 'wasm']);

export interface Run {
  verdict: string;
  cases: {
    trace: {
      external?: { name: string; statsOnly: number; dir?: string };
      diffs: { a: string; b: string; stage: string; relErr: number | null; normOnly?: boolean }[];
      paths: Record<string, { stages: { step: number; request: string; stage: string; masked?: boolean }[] }>;
    };
    comparison: { firstDivergence: { stage: string; culprit: string; step: number; request: string } | null };
    replay?: unknown;
  }[];
}

/** A suite's temp dir (`tmp(name)`: a path in it) and `scenario`: one prefill of 5 tiny tokens, reference on, plus `extra` YAML. */
export function externalSuite(): { tmp: (name: string) => string; scenario: (name: string, extra: string) => string } {
  const dir = suiteDir();
  return { tmp: dir.file, scenario: (name, extra) => dir.write(`${name}.yaml`, tinyScenario(name, `reference: on\n${extra}`)) };
}

export const external = (command: string, more = '') => `external:\n  command: ${JSON.stringify(command)}\n  timeout_s: 30\n${more}`;

export async function runJson(args: string[]): Promise<{ code: number | undefined; run: Run; stderr: string }> {
  const r = await mla(['run', ...args, '--format', 'json']);
  return { code: r.exitCode, run: JSON.parse(r.stdout) as Run, stderr: r.stderr };
}
