#!/usr/bin/env bash
# Issue 8, fifth round, call 9 (final): stats read-backs started with each step (TensorRecorder.settle); the layer beside PyTorch; T = 32768; CLI scenarios.
set -uo pipefail
out=$OUT/z; mkdir -p "$out"
step() { echo "## $*"; timeout "${LIMIT:-120}" "$@"; echo "exit $?"; }
{
  echo "## machine"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nproc; node --version
  LIMIT=200 step node bench/gpu/attention.mjs --device webgpu --tokens 512,2048,8192 --chunk 8192 --attention fused --probes both --out "$out/layer.json"
  echo "## python3 .device/anchors/mla_torch.py"; timeout 90 env PYTHONUNBUFFERED=1 python3 .device/anchors/mla_torch.py | tee "$out/torch.log"; echo "exit $?"
  LIMIT=100 step node bench/gpu/attention.mjs --device webgpu --tokens 32768 --chunk 8192 --attention fused --probes both --out "$out/layer-32768.json"
  node bench/gpu/summary.mjs --layer "$out/layer.json,$out/layer-32768.json" --torch "$out/torch.log" --out "$out/summary.json"
  step /usr/bin/time -f "wall %e s" node dist/surface/cli/main.js run scenarios/capital-of-france.yaml --device webgpu --format json --out "$out/capital-of-france.json"
  LIMIT=100 step /usr/bin/time -f "wall %e s" node dist/surface/cli/main.js run scenarios/gpu/glm5-long-32768.yaml --device webgpu --format json --out "$out/glm5-long-32768.json"
} 2>&1 | tee "$out/log.txt"
cd $OUT && tar czf z.tgz z
