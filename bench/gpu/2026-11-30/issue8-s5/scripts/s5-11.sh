#!/usr/bin/env bash
# Issue 8, fifth round, call 11: the layer with the per-path rows timed as the CLI runs one path (stepPaths: the recorder's read-back with the step's), beside PyTorch.
set -uo pipefail
out=$OUT/w; mkdir -p "$out"
step() { echo "## $*"; timeout "${LIMIT:-120}" "$@"; echo "exit $?"; }
{
  echo "## machine"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nproc; node --version
  LIMIT=150 step node bench/gpu/attention.mjs --device webgpu --tokens 512,2048,8192 --chunk 8192 --attention fused --probes both --out "$out/layer.json"
  echo "## python3 .device/anchors/mla_torch.py"; timeout 60 env PYTHONUNBUFFERED=1 python3 .device/anchors/mla_torch.py | tee "$out/torch.log"; echo "exit $?"
  node bench/gpu/summary.mjs --layer "$out/layer.json" --torch "$out/torch.log" --out "$out/summary.json"
} 2>&1 | tee "$out/log.txt"
