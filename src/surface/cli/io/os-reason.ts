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
