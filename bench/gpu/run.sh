#!/usr/bin/env bash
# `npm run bench:gpu`, on the device machine (README "GPU"): one GLM-5 layer (64 heads) through both
# paths at T = 512, 2048, 8192 (one piece, per path and both pipelined as the CLI runs them; where a step's time goes, bench/gpu/phases.mjs;
# GPU time per program, profile.mjs) and 32768 (prefilled in 4 chunks of 8192: one piece of
# 32768 would need a 2 GiB q, over the binding limit), probes off and on, beside PyTorch eager fp32
# (../shared/anchors/mla_torch.py) on the same GPU in the same call, with the ratio; the WGSL kernels
# checked on the GPU first; three scenarios through the CLI (the last 32768 tokens, keys in parts). Writes everything under $OUT (or ./out).
#   npm run build && bash scripts/device/bundle.sh && mkdir -p .device/anchors && cp ../shared/anchors/*.py .device/anchors/
#   device run, carry [".device"]:  source .device/prologue.sh && bash bench/gpu/run.sh
# PART=kernels or PART=layer runs half (the kernel checks and benches; the rest) where one device
# call's 10 minutes do not hold both; unset, both.
set -uo pipefail
# the CLI: the bin of the mla-diff package this runs in (package.json "bin")
MLA_DIFF=$(node -p "const p = require.resolve('mla-diff/package.json'); require('path').join(require('path').dirname(p), require(p).bin['mla-diff'])")
out=${OUT:-out}; mkdir -p "$out"
step() { echo "## $*"; timeout "${LIMIT:-120}" "$@"; echo "exit $?"; }
part=${PART:-all}
{
  echo "## machine"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nproc; node --version
  if [[ $part != layer ]]; then
  step node test/e2e/checks/flash-check.mjs --device webgpu --out "$out" --time 1
  step node test/e2e/checks/gemm-check.mjs --device webgpu --out "$out"
  step node test/e2e/checks/stats-check.mjs --device webgpu --out "$out" --time 1
  step node test/e2e/checks/norm-rope-check.mjs --device webgpu --out "$out"
  step node test/e2e/checks/lse-bounds-check.mjs --device webgpu --out "$out"
  step node test/e2e/checks/upload-check.mjs --device webgpu --out "$out"
  step node bench/kernels/gemm-bench.mjs --device webgpu --tokens 1,64,512,2048 --reps 9 --split --out "$out"
  step node bench/gpu/profile.mjs --device webgpu --tokens 512,8192 --probes on --out "$out/profile-on.json"
  fi
  if [[ $part != kernels ]]; then
  LIMIT=240 step node bench/gpu/attention.mjs --device webgpu --tokens 512,2048,8192 --chunk 8192 --attention fused --probes both --out "$out/layer.json"
  LIMIT=150 step node bench/gpu/phases.mjs --device webgpu --tokens 512,2048,8192 --out "$out/phases.json"
  LIMIT=240 step node bench/gpu/attention.mjs --device webgpu --tokens 32768 --chunk 8192 --attention fused --probes both --out "$out/layer-32768.json"
  if [[ -f .device/anchors/mla_torch.py ]]; then
    echo "## python3 .device/anchors/mla_torch.py"; timeout 90 env PYTHONUNBUFFERED=1 python3 .device/anchors/mla_torch.py | tee "$out/torch.log"; echo "exit $?"
  fi
  echo "## node bench/gpu/summary.mjs"
  node bench/gpu/summary.mjs --layer "$out/layer.json,$out/layer-32768.json" --torch "$out/torch.log" --out "$out/summary.json"
  step /usr/bin/time -f "wall %e s" node "$MLA_DIFF" run scenarios/capital-of-france.yaml --device webgpu --format json --out "$out/capital-of-france.json"
  step /usr/bin/time -f "wall %e s" node "$MLA_DIFF" run scenarios/gpu/glm5-long-2048.yaml --device webgpu --format json --out "$out/glm5-long-2048.json"
  LIMIT=300 step /usr/bin/time -f "wall %e s" node "$MLA_DIFF" run scenarios/gpu/glm5-long-32768.yaml --device webgpu --format json --out "$out/glm5-long-32768.json"
  # The same at all 64 heads keeps ~90 GB of stage values on the GPU: it must stop with device-limit (exit 3), not judge garbage.
  sed 's/name: glm5-long-32768/name: glm5-long-32768-64/; s/count: 16 }/count: 64 }/; s/name: heads-0-15/name: all-heads/' scenarios/gpu/glm5-long-32768.yaml > "$out/glm5-long-32768-64.yaml"
  echo "## mla-diff run glm5-long-32768-64.yaml (expect device-limit, exit 3)"
  timeout 300 node "$MLA_DIFF" run "$out/glm5-long-32768-64.yaml" --device webgpu 2>&1 | grep -v '^ - \|^validation\|^\[Invalid\|vkAllocate\|CheckVkOOM\|^out of memory' | tail -4; echo "exit ${PIPESTATUS[0]}"
  fi
} 2>&1 | tee "$out/log-$part.txt"
