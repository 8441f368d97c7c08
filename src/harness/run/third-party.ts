import type { MlaConfig } from '../../core/model/config';
import { ropeAngleRms } from '../../core/model/rope';
import type { ExternalInfo } from '../../trace';

/**
 * A third party's info with the RoPE term of its noise floor: the largest, over the pieces that attend, of the RMS error
 * fp32-computed RoPE angles have at the piece's positions (src/core/model/rope.ts ropeAngleRms). Engines carry their own
 * (EngineInfo.ropeAngleError) and keep it.
 */
export function withRopeTerm(
  info: ExternalInfo,
  config: MlaConfig,
  pieces: readonly { kind: string; positions: readonly number[] }[],
): ExternalInfo {
  if (info.engine) return info;
  const ropeAngleError = Math.max(0, ...pieces.map((p) => ropeAngleRms(config, p.positions)));
  return { ...info, ropeAngleError };
}
