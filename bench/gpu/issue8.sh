#!/usr/bin/env bash
# Issue 8 on the device machine (H200), one call: the fused WGSL attention checked against the
# unfused ops on the H200, then one GLM-5 layer (64 heads) through both paths at long prompts with
# fused attention (probes off and on) and unfused where it fits, and PyTorch eager fp32 on the same GPU.
#   npm run build && bash ../shared/device/bundle.sh && mkdir -p .device/anchors && cp ../shared/anchors/mla_torch.py .device/anchors/
#   device run, carry [".device"]:  source .device/prologue.sh && bash bench/gpu/issue8.sh
set -uo pipefail
out=${OUT:-out}; mkdir -p "$out"
{
  echo "## machine"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; node --version
  echo "## node bench/kernels/flash-check.mjs --device webgpu"
  timeout 120 node bench/kernels/flash-check.mjs --device webgpu --out "$out/flash-check" --time 1; echo "exit $?"
  echo "## node bench/gpu/attention.mjs --device webgpu --tokens 512,2048,8192 --chunk 4096 --attention fused --probes both"
  timeout 180 node bench/gpu/attention.mjs --device webgpu --tokens 512,2048,8192 --chunk 4096 --attention fused --probes both --out "$out/fused.json"; echo "exit $?"
  echo "## node bench/gpu/attention.mjs --device webgpu --tokens 512,2048 --chunk 4096 --attention unfused --probes off"
  timeout 60 node bench/gpu/attention.mjs --device webgpu --tokens 512,2048 --chunk 4096 --attention unfused --probes off --out "$out/unfused.json"; echo "exit $?"
  echo "## PyTorch eager anchor (../shared/anchors/mla_torch.py)"
  [[ -f .device/anchors/mla_torch.py ]] && timeout 90 env PYTHONUNBUFFERED=1 python3 .device/anchors/mla_torch.py; echo "exit $?"
  echo "## node bench/gpu/attention.mjs --device webgpu --tokens 32768 --chunk 4096 --attention fused --probes off"
  timeout 110 node bench/gpu/attention.mjs --device webgpu --tokens 32768 --chunk 4096 --attention fused --probes off --out "$out/fused-32768.json"; echo "exit $?"
} 2>&1 | tee "$out/log.txt"
