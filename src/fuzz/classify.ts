import { isMlaDiffError } from '../errors';

/**
 * What one input did. `rejected`: a coded MlaDiffError naming the file (and, where the target asks, a field or line).
 * `uncoded`: an MlaDiffError that does not say where, or whose message says `undefined`/`[object Object]`. `crash`: any
 * other throw. `hang` (past the watchdog), `blow-up` (past the memory cap) and `data-loss` (an input changed by a run)
 * are decided by the campaign, outside the target; so is `leak` (CLI: a process, temp file, exchange folder or partial
 * output left behind).
 */
export type OutcomeClass = 'ok' | 'rejected' | 'uncoded' | 'crash' | 'hang' | 'blow-up' | 'data-loss' | 'leak';
export const OUTCOME_CLASSES: readonly OutcomeClass[] = ['ok', 'rejected', 'uncoded', 'crash', 'hang', 'blow-up', 'data-loss', 'leak'];
/** The classes the acceptance wants at 0. */
export const BAD_CLASSES: readonly OutcomeClass[] = ['uncoded', 'crash', 'hang', 'blow-up', 'data-loss', 'leak'];

export interface Outcome {
  class: OutcomeClass;
  /** The error code of a rejection (or of an uncoded one). */
  code?: string;
  /** A bad outcome's signature: one line that groups inputs failing the same way (numbers and paths elided). */
  signature?: string;
}

/** How strict a target is about where an error points. */
export interface Naming {
  /** The error must name a field or a line (the scenario loader, the trace import). */
  fieldOrLine?: boolean;
}

const normalize = (s: string): string =>
  s
    .replace(/(\/[\w.+-]+)+/g, 'P')
    .replace(/-?\d+(\.\d+)?(e[+-]?\d+)?/gi, 'N')
    .slice(0, 160);

/** The first stack frame inside the project (not node_modules, not node:internal): where a crash comes from. */
function frame(e: Error): string {
  const lines = (e.stack ?? '').split('\n').slice(1);
  const own = lines.find((l) => /(src|dist)\/(?!fuzz\/)/.test(l) && !l.includes('node_modules')) ?? lines[0] ?? '';
  const m = /([\w-]+\/[\w.-]+\.[jt]s):\d+/.exec(own);
  return m ? ` at ${m[1]}` : '';
}

export function classifyThrown(e: unknown, naming: Naming = {}): Outcome {
  if (e === undefined) return { class: 'ok' };
  if (isMlaDiffError(e)) {
    const { file, field, line } = e.where;
    const text = `${e.message} ${e.hint ?? ''}`;
    if (!file) return { class: 'uncoded', code: e.code, signature: `${e.code}: no where.file: ${normalize(e.message)}` };
    if (naming.fieldOrLine && !field && line === undefined)
      return { class: 'uncoded', code: e.code, signature: `${e.code}: no field or line: ${normalize(e.message)}` };
    // a value the input itself holds, quoted ("undefined"), is the file's word, not the tool's
    if (/(?<!")\bundefined\b(?!")|\[object Object\]/.test(text))
      return { class: 'uncoded', code: e.code, signature: `${e.code}: says undefined: ${normalize(e.message)}` };
    return { class: 'rejected', code: e.code };
  }
  if (e instanceof Error) return { class: 'crash', signature: `${e.name}: ${normalize(e.message)}${frame(e)}` };
  return { class: 'crash', signature: `non-Error thrown: ${normalize(JSON.stringify(e) ?? typeof e)}` };
}

/** Runs one target call and classifies it; an async target is awaited. */
export async function classifyCall(call: () => unknown, naming: Naming = {}): Promise<Outcome> {
  try {
    await call();
    return { class: 'ok' };
  } catch (e) {
    return classifyThrown(e ?? new Error('null thrown'), naming);
  }
}
