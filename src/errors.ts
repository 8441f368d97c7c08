/**
 * Errors are data: a code from a closed set, where it happened (file, line, field) and a hint.
 * Rendering (colour, layout) belongs to the CLI; tests assert `code`, never the prose.
 */
export type ErrorCode =
  | 'usage'
  | 'file-not-found'
  | 'file-unreadable'
  | 'yaml-syntax'
  | 'unknown-key'
  | 'invalid-type'
  | 'invalid-value'
  | 'invalid-config'
  | 'unknown-preset'
  | 'unknown-stage'
  | 'unknown-fault'
  | 'device-unavailable'
  | 'device-limit'
  | 'output-exists'
  /** An output path (--out, --html, --markdown, --junit, …) that resolves to an input of the run: refused even with --force. */
  | 'output-is-input'
  /** An output path that cannot be a report: empty, a directory, a device or FIFO, or under a file. */
  | 'output-invalid'
  /** Writing an output (or the exchange directory) failed in the OS: a full disk (ENOSPC), no permission (EACCES), a read-only mount. */
  | 'write-failed'
  /** A size a file or scenario states (a length, count, dim, vocab id, string or array length) exceeds what the run can hold. */
  | 'limit-exceeded'
  | 'nan-weights'
  | 'reference-too-large'
  /** Not a GGUF/safetensors file, or its header is inconsistent (bad magic, bad JSON, offsets out of order). */
  | 'checkpoint-invalid'
  /** The file ends before a header field or a tensor's bytes. */
  | 'checkpoint-truncated'
  /** A tensor type (ggml quant type, safetensors dtype) this tool cannot dequantize. */
  | 'unsupported-dtype'
  /** A tensor the layer needs is not in the checkpoint. */
  | 'tensor-missing'
  /** A tensor's shape does not match the config. */
  | 'tensor-shape'
  | 'tokenizer-invalid'
  /** An external backend's command exited non-zero (its exit code and stderr tail in the message). */
  | 'external-failed'
  /** An external backend ran past its timeout_s and was killed. */
  | 'external-timeout'
  /** response.json (or an engine dump) is missing, not JSON, or of the wrong format/version. */
  | 'external-bad-response'
  /** A returned tensor or statistic names an unknown stage, step or request, or has the wrong shape or layout. */
  | 'external-bad-output'
  /** A per-piece stage with the request's S = start + T keys where the piece's T tokens are due, or T where S are. */
  | 'external-key-count'
  /**
   * A returned tensor that fits its stage's shape but holds two equal-sized axes swapped (LSE [T, N] read as [N, T] when
   * T = N): its values agree with the other paths once swapped; the fix is a `layouts:` entry.
   */
  | 'external-layout'
  /** The llama.cpp engine is not installed here (its npm package, or MLA_DIFF_LLAMA_CPP_DIR), or a library does not load. */
  | 'engine-unavailable'
  /** The installed llama.cpp is another release than the one its binding was verified for. */
  | 'engine-version'
  /** The llama.cpp binary's struct layouts or defaults differ from the verified ABI. */
  | 'engine-abi'
  /** llama.cpp failed (a load error, a failed decode, an abort in GGML_ASSERT) or its child process died. */
  | 'engine-failed'
  /** llama.cpp ran past its timeout_s and was killed. */
  | 'engine-timeout'
  /** A saved run (report, compare, rejudge, --golden) is not JSON or not an mla-diff run report. */
  | 'report-invalid'
  /** A saved run report of another version than this tool reads. */
  | 'report-version'
  /** A scenario's inline tolerance is looser than its tolerances file (the ratchet) without --allow-looser. */
  | 'tolerance-looser'
  /** No tolerance passes a stage of the run (NaN, shape mismatch, invariant broken): nothing to ratchet. */
  | 'ratchet-impossible'
  /** Sweep reports that cannot be merged: other matrices (hashes differ), points twice, or a file that is no sweep report. */
  | 'sweep-mismatch'
  /** Merged shards leave points of the matrix out (merge --allow-missing accepts it). */
  | 'sweep-incomplete'
  /** SIGINT or SIGTERM stopped the run before it finished: nothing was written. */
  | 'interrupted';

export interface ErrorLocation {
  file?: string;
  line?: number;
  column?: number;
  /** Dotted path of the offending field, e.g. `cases[1].tp.size`. */
  field?: string;
}

export class MlaDiffError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly where: ErrorLocation = {},
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'MlaDiffError';
  }

  /** `file:line: field: message` — the one line the CLI prints. */
  headline(): string {
    const { file, line, column, field } = this.where;
    const at = file ? `${file}${line ? `:${line}${column ? `:${column}` : ''}` : ''}: ` : '';
    return `${at}${field ? `${field}: ` : ''}${this.message}`;
  }
}

export function isMlaDiffError(e: unknown): e is MlaDiffError {
  return e instanceof MlaDiffError;
}

/** Dotted field path as users write it in YAML: `cases[1].tp.size`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('');
}

/**
 * The OS's reason for a failed file operation, as a user reads it: "no space left on device (ENOSPC)".
 * Node's messages read "ENOSPC: no space left on device, write '/x'"; the path is named elsewhere.
 */
export function osReason(e: unknown): string {
  const err = e as NodeJS.ErrnoException | null;
  const message = typeof err?.message === 'string' ? err.message : String(e);
  const code = typeof err?.code === 'string' ? err.code : undefined;
  const m = /^[A-Z][A-Z0-9_]*: ([^,]+)/.exec(message);
  const text = (m?.[1] ?? message).trim() || 'unknown error';
  return code && !text.includes(`(${code})`) ? `${text} (${code})` : text;
}
