#!/usr/bin/env bash
# Issue 8, fifth round, call 2: the new NARROW flash default (64×128, 8×4) checked and timed in the layer.
set -uo pipefail
out=$OUT/v; mkdir -p "$out"
step() { echo "## $*"; timeout "${LIMIT:-120}" "$@"; echo "exit $?"; }
{
  echo "## machine"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nproc; node --version
  step node bench/kernels/flash-check.mjs --device webgpu --out "$out" --time 1
  step node bench/gpu/profile.mjs --device webgpu --tokens 512,8192 --probes on --out "$out/profile-on.json"
  LIMIT=240 step node bench/gpu/attention.mjs --device webgpu --tokens 512,2048,8192 --chunk 8192 --attention fused --probes both --out "$out/layer.json"
  echo "## python3 .device/anchors/mla_torch.py"; timeout 90 env PYTHONUNBUFFERED=1 python3 .device/anchors/mla_torch.py | tee "$out/torch.log"; echo "exit $?"
  node bench/gpu/summary.mjs --layer "$out/layer.json" --torch "$out/torch.log" --out "$out/summary.json"
} 2>&1 | tee "$out/log.txt"
