#!/usr/bin/env bash
# Issue 8 tuning pass on the device machine (H200), one call: every WGSL kernel checked on the H200
# (flash, stats, gemm), the tile sweeps of the flash and GEMM kernels, the per-program profile of one
# layer, and the layer through both paths (probes off/on) beside PyTorch eager fp32.
#   npm run build && bash ../shared/device/bundle.sh && mkdir -p .device/anchors && cp ../shared/anchors/mla_torch.py .device/anchors/
#   device run, carry [".device"]:  source .device/prologue.sh && bash bench/gpu/tune.sh
set -uo pipefail
out=${OUT:-out}; mkdir -p "$out"
step() { echo "## $*"; timeout "${LIMIT:-120}" "$@"; echo "exit $?"; }
{
  echo "## machine"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; node --version
  step node test/e2e/checks/flash-check.mjs --device webgpu --out "$out" --time 1
  step node test/e2e/checks/stats-check.mjs --device webgpu --out "$out" --time 1
  step node test/e2e/checks/gemm-check.mjs --device webgpu --out "$out"
  LIMIT=150 step node bench/kernels/gemm-bench.mjs --device webgpu --sweep --tokens 512,2048,8192 --out "$out"
  LIMIT=150 step node bench/kernels/flash-tiles.mjs --device webgpu --fast 1 --reps 3 --out "$out/tiles.json"
  step node bench/gpu/profile.mjs --device webgpu --tokens 2048,8192 --out "$out/profile.json"
  LIMIT=150 step node bench/gpu/attention.mjs --device webgpu --tokens 512,2048,8192 --chunk 8192 --attention fused --probes both --out "$out/layer.json"
  [[ -f .device/anchors/mla_torch.py ]] && LIMIT=90 step env PYTHONUNBUFFERED=1 python3 .device/anchors/mla_torch.py > "$out/torch.log"
  cat "$out/torch.log"
  node bench/gpu/summary.mjs --layer "$out/layer.json" --torch "$out/torch.log" --out "$out/summary.json"
} 2>&1 | tee "$out/log.txt"
