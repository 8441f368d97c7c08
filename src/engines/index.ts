/**
 * `mla-diff/engines`: the llama.cpp engine's building blocks for benches and checks (the run itself
 * goes through scenarios' `engines:`): its libraries, the child script, the runnable model writer,
 * llama.cpp's own quantizer and the one-layer extraction. Names only; the modules behind may move.
 */
import { join } from 'node:path';

export { ENGINE_PACKAGES, findLibDir, loadLlama } from './llamacpp/library';
export type { EngineBuild } from './llamacpp/library';
export { VERIFIED } from './llamacpp/abi';
export type { EngineJob, EngineResult, CapturedNode } from './llamacpp/job';
export { ENGINE_VOCAB, runnableExtras, writeEngineModel } from './llamacpp/model-gguf';
export type { EngineArch, EngineModelSpec } from './llamacpp/model-gguf';
export { LLAMA_FTYPES, quantizeManyWithLlama, quantizeWithLlama } from './llamacpp/quantize';
export type { LlamaFtype, QuantizeResult } from './llamacpp/quantize';
export { checkQuantized, LLAMA_BOUND_FACTOR } from './llamacpp/quantize-check';
export { extractLayer } from './llamacpp/extract';
export type { ExtractResult } from './llamacpp/extract';

/** The child process script: `node ENGINE_CHILD job.json` (src/engines/llamacpp/child.ts). */
export const ENGINE_CHILD: string = join(__dirname, 'llamacpp', 'child.js');
