import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { reportsTarget, tokenizerTarget, traceTarget } from './targets-data';
import { ggufTarget, loaderTarget, safetensorsTarget } from './targets-readers';
import type { Target, TargetName } from './target';

const MAKERS: Record<TargetName, (dir: string) => Target> = {
  loader: loaderTarget,
  gguf: ggufTarget,
  safetensors: safetensorsTarget,
  tokenizer: tokenizerTarget,
  trace: traceTarget,
  reports: reportsTarget,
};

/** The targets of one process, each built on first use in its own folder under `dir` (its corpus read then). */
export function targetSet(dir: string): (name: TargetName) => Target {
  const made = new Map<TargetName, Target>();
  return (name) => {
    let t = made.get(name);
    if (!t) {
      const d = join(dir, name);
      mkdirSync(d, { recursive: true });
      t = MAKERS[name](d);
      made.set(name, t);
    }
    return t;
  };
}
