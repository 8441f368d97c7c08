import { MlaDiffError } from '../../errors';
import type { MlaConfig } from '../../core/model/config';
import type { StageDef, StageName } from '../../trace/stages';
import { isStageName, STAGES } from '../../trace/stages';
import type { ShapePiece } from './shapes';

/** A piece of the schedule as the importer sees it. */
export interface ImportPiece extends ShapePiece {
  step: number;
  request: string;
  kind: 'prefill' | 'decode' | 'cached';
}

/** What a record is checked against: the case's sliced config, its schedule, the KV split count. */
export interface ImportContext {
  config: MlaConfig;
  pieces: readonly ImportPiece[];
  kvSplits: number;
  /** The file named in errors (stages.safetensors, the dump). */
  file: string;
  /** Scenario layouts, then the backend's own (the latter win). */
  layouts: Record<string, string>;
  /** Backend names → stage names (whole tensor name or its stage part). */
  names: Record<string, string>;
  /** Stages the backend declares it wrote after the causal mask (response.json `masked`: only logits). */
  masked?: readonly StageName[];
}

/** Where a record goes: its piece, its stage, its chunk. */
export type At = { piece: ImportPiece; stage: StageName; chunk?: number };

export const bad = (ctx: ImportContext, field: string, message: string, hint?: string) =>
  new MlaDiffError('external-bad-output', message, { file: ctx.file, field }, hint);

/** What a value from a third party's file is, for a message (never `undefined` as a bare word). */
export const typeOf = (x: unknown): string =>
  x === null ? 'null' : Array.isArray(x) ? 'an array' : typeof x === 'string' ? `"${x.slice(0, 40)}"` : `a ${typeof x}`;

/** A piece as a backend named it, the parts it left out said so. */
const pieceOf = (step?: number, request?: string) => {
  const s = step === undefined || Number.isNaN(step) ? '(none)' : String(step);
  return `step ${s} request ${request === undefined ? '(none)' : JSON.stringify(request.slice(0, 80))}`;
};

export const attending = (ctx: ImportContext) => ctx.pieces.filter((p) => p.kind !== 'cached');
const naming = (ctx: ImportContext) => {
  const one = attending(ctx);
  return (
    `names are {step}/{request}/{stage}[/{chunk}]${one.length === 1 ? ' or a bare stage name' : ''}; ` +
    `pieces: ${one.map((p) => `${p.step}/${p.request}`).join(', ')}`
  );
};

/**
 * A backend's name through the scenario's `names:` map. The name is the backend's data: only the map's
 * own string entries count, so `constructor` or `__proto__` read as themselves (an unknown stage), never
 * as Object.prototype's members.
 */
export function mappedName(names: Readonly<Record<string, unknown>>, raw: string): string {
  const v = Object.hasOwn(names, raw) ? names[raw] : undefined;
  return typeof v === 'string' ? v : raw;
}

/** Resolves a record's place in the schedule; every failure is external-bad-output naming it. */
export function locate(ctx: ImportContext, field: string, stageName: string, step?: number, request?: string, chunk?: number): At {
  if (typeof stageName !== 'string' || !stageName)
    throw bad(ctx, field, `a stage name must be a non-empty string, got ${typeOf(stageName)}`);
  const stage = mappedName(ctx.names, stageName);
  if (!isStageName(stage))
    throw bad(ctx, field, `unknown stage "${stageName}"`, `stages: mla-diff stages; map other names with names: {${stageName}: <stage>}`);
  const one = attending(ctx);
  if (step === undefined && request === undefined && one.length !== 1)
    throw bad(ctx, field, `a bare stage name needs a schedule of exactly one attending piece (it has ${one.length})`, naming(ctx));
  const piece = step === undefined && request === undefined ? one[0] : one.find((p) => p.step === step && p.request === request);
  if (!piece && ctx.pieces.some((p) => p.step === step && p.request === request))
    throw bad(
      ctx,
      field,
      `${pieceOf(step, request)} is a piece of kind cached (a prefix-cache hit): write nothing for it`,
      `its latent rows are in kv_cache of the request's next attending piece; ${naming(ctx)}`,
    );
  if (!piece) throw bad(ctx, field, `${pieceOf(step, request)} is not an attending piece of the schedule`, naming(ctx));
  const chunked = (STAGES[stage] as StageDef).chunked === true;
  if (chunked !== (chunk !== undefined))
    throw bad(
      ctx,
      field,
      chunked
        ? `${stage} is recorded per context chunk: name it ${piece.step}/${piece.request}/${stage}/{chunk}`
        : `${stage} has no chunks`,
    );
  if (chunk !== undefined && !(Number.isInteger(chunk) && chunk >= 0 && chunk < piece.chunks.length))
    throw bad(ctx, field, `chunk ${chunk} of ${piece.step}/${piece.request}: the piece has ${piece.chunks.length} context chunk(s)`);
  return { piece, stage, ...(chunk === undefined ? {} : { chunk }) };
}

/** `{step}/{request}/{stage}[/{chunk}]` or a bare stage name, after the whole-name map. */
export function parseName(ctx: ImportContext, raw: string): At {
  if (typeof raw !== 'string' || !raw) throw bad(ctx, String(raw), `a tensor name must be a non-empty string, got ${typeOf(raw)}`);
  const name = mappedName(ctx.names, raw);
  const parts = name.split('/');
  if (parts.length === 1) return locate(ctx, raw, parts[0]!);
  if (parts.length !== 3 && parts.length !== 4) throw bad(ctx, raw, `cannot read tensor name "${raw}"`, naming(ctx));
  const num = (s: string) => (/^\d+$/.test(s) ? Number(s) : NaN);
  return locate(ctx, raw, parts[2]!, num(parts[0]!), parts[1]!, parts[3] === undefined ? undefined : num(parts[3]));
}

/** The record's place as trace data. */
export const where = (a: At) => ({
  step: a.piece.step,
  request: a.piece.request,
  stage: a.stage,
  ...(a.chunk === undefined ? {} : { chunk: a.chunk }),
});
