#!/usr/bin/env bash
# GPU benchmark, run on the device machine (see README "GPU"): mla-diff on webgpu against PyTorch
# eager fp32 on the same GPU in the same session. Writes everything under $OUT (or ./out).
#   bash ../shared/device/bundle.sh && mkdir -p .device/anchors && cp ../shared/anchors/*.py .device/anchors/
#   device run, carry [".device"]:  source .device/prologue.sh && bash bench/gpu/run.sh
set -uo pipefail
out=${OUT:-out}; mkdir -p "$out"
{
  echo "## machine"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nproc; node --version
  echo "## forward timing, probes off/on, fused attention (bench/gpu/attention.mjs; issue 8: bench/gpu/issue8.sh adds T = 32768)"
  node bench/gpu/attention.mjs --device webgpu --tokens 512,2048,8192 --chunk 4096 --attention fused --probes both --out "$out/forward-webgpu.json"
  echo "## mla-diff run scenarios/capital-of-france.yaml --device webgpu"
  /usr/bin/time -f "wall %e s" node dist/cli/main.js run scenarios/capital-of-france.yaml --device webgpu --format json --out "$out/capital-of-france.json"; echo "exit $?"
  echo "## mla-diff run scenarios/gpu/glm5-long-2048.yaml --device webgpu"
  /usr/bin/time -f "wall %e s" node dist/cli/main.js run scenarios/gpu/glm5-long-2048.yaml --device webgpu --format json --out "$out/glm5-long-2048.json"; echo "exit $?"
  echo "## every CI scenario on the GPU, against its declared outcome"
  node scripts/check-scenarios.mjs scenarios/*.yaml -- --device webgpu
  echo "## PyTorch eager anchor (../shared/anchors/mla_torch.py)"
  [[ -f .device/anchors/mla_torch.py ]] && PYTHONUNBUFFERED=1 python3 .device/anchors/mla_torch.py
} 2>&1 | tee "$out/log.txt"
