import type { ErrorCode } from '../../../errors';

/**
 * Exit codes: 0 every case passes under the one rule (src/harness/compare/outcome.ts), 1 a case fails, 2 bad input or usage,
 * 3 runtime or device failure, or an internal error; a run stopped by a signal exits as the shell says a process killed by it
 * did, 128 + its number: 130 SIGINT (Ctrl-C), 143 SIGTERM (a CI runner's cancel), 129 SIGHUP (signalExit; the guard).
 */
export const EXIT = { agree: 0, diverge: 1, badInput: 2, internal: 3, sigint: 130, sigterm: 143 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

const { badInput: INPUT, internal: RUNTIME } = EXIT;

/**
 * The exit code of each error, as data: a Record over the closed ErrorCode union, so a new code
 * does not compile until it is classed here. 2: what mla-diff was given is wrong and must change
 * (arguments, scenario, files, checkpoints, an engine dump or a backend's response that is
 * malformed, a --device that is not on this machine). 3: the input is fine but something that ran
 * failed: the device cannot hold a tensor of the scenario, an external backend crashed or ran past
 * its timeout. README "Exit codes" and docs/github-actions.md show this table.
 */
export const EXIT_FOR: Readonly<Record<ErrorCode, ExitCode>> = {
  usage: INPUT,
  'file-not-found': INPUT,
  'file-unreadable': INPUT,
  'yaml-syntax': INPUT,
  'unknown-key': INPUT,
  'invalid-type': INPUT,
  'invalid-value': INPUT,
  'invalid-config': INPUT,
  'unknown-preset': INPUT,
  'unknown-stage': INPUT,
  'unknown-fault': INPUT,
  'output-exists': INPUT,
  'output-is-input': INPUT,
  'output-invalid': INPUT,
  /** The OS refused a write (ENOSPC, EACCES, EROFS): the input is fine, the machine could not store the result. */
  'write-failed': RUNTIME,
  'limit-exceeded': INPUT,
  'checkpoint-invalid': INPUT,
  'checkpoint-truncated': INPUT,
  'unsupported-dtype': INPUT,
  'tensor-missing': INPUT,
  'tensor-shape': INPUT,
  'tokenizer-invalid': INPUT,
  'nan-weights': INPUT,
  'reference-too-large': INPUT,
  /** The --device asked for is not on this machine (no GPU, no driver, package missing): choose another. */
  'device-unavailable': INPUT,
  /** A tensor of this scenario exceeds the device's storage-binding limit. */
  'device-limit': RUNTIME,
  /** The backend's command exited non-zero or was killed at its timeout_s. */
  'external-failed': RUNTIME,
  'external-timeout': RUNTIME,
  /** The llama.cpp engine is not installed, or not the verified release: install it (npm install @node-llama-cpp/linux-x64). */
  'engine-unavailable': INPUT,
  'engine-version': INPUT,
  'engine-abi': INPUT,
  /** llama.cpp itself failed or timed out on a model it loaded. */
  'engine-failed': RUNTIME,
  'engine-timeout': RUNTIME,
  /** What a backend returned (or an engine dump holds) is malformed: data mla-diff was given. */
  'external-bad-response': INPUT,
  'external-bad-output': INPUT,
  'external-key-count': INPUT,
  'external-layout': INPUT,
  /** A saved report that is not JSON or not a run report of this version (mla-diff report). */
  'report-invalid': INPUT,
  'report-version': INPUT,
  /** An inline tolerance looser than the scenario's ratchet file, without --allow-looser. */
  'tolerance-looser': INPUT,
  /** --write-tolerances on a run no tolerance can pass (it diverges): the request cannot be met. */
  'ratchet-impossible': INPUT,
  /** Shard reports from other matrices, a point twice, or points missing: files mla-diff was given. */
  'sweep-mismatch': INPUT,
  'sweep-incomplete': INPUT,
  /**
   * Something the run depends on was stopped by a signal from outside it (a sweep worker killed): no report of it.
   * A signal to mla-diff itself exits 130 / 143 (EXIT.sigint, EXIT.sigterm), not through an error.
   */
  interrupted: RUNTIME,
};
