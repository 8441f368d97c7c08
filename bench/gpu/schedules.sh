#!/usr/bin/env bash
# Issue 3 on the device machine: the serving-schedule scenarios on webgpu. Writes under $OUT (or ./out).
#   npm run build && bash ../shared/device/bundle.sh
#   device run, carry [".device"]:  source .device/prologue.sh && bash bench/gpu/schedules.sh
set -uo pipefail
# the CLI: the bin of the mla-diff package this runs in (package.json "bin")
MLA_DIFF=$(node -p "const p = require.resolve('mla-diff/package.json'); require('path').join(require('path').dirname(p), require(p).bin['mla-diff'])")
out=${OUT:-out}; mkdir -p "$out"
run() { # name, scenario file
  echo "## mla-diff run $2 --device webgpu"
  /usr/bin/time -f "wall %e s, max RSS %M KiB" node "$MLA_DIFF" run "$2" --device webgpu --format json --out "$out/$1.json"
  echo "exit $?"
}
{
  echo "## machine"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nproc; node --version
  run chunked-prefill-64 scenarios/gpu/chunked-prefill-64.yaml
  run fault-chunked-prefill-64-lse-base-2 scenarios/gpu/fault-chunked-prefill-64-lse-base-2.yaml
  nvidia-smi --query-gpu=memory.used --format=csv,noheader
  echo "## every CI scenario on the GPU against its declared outcome (8 at a time; the float64 reference runs on the CPU)"
  ls scenarios/*.yaml | xargs -P 8 -I{} node scripts/check-scenarios.mjs {} -- --device webgpu | grep -v 'scenarios met'
} 2>&1 | tee "$out/log.txt"
