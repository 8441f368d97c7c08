#!/usr/bin/env bash
# Issue 5 on the device machine (H200): the PyTorch external backend at 64 heads (fp32, CUDA) through
# the protocol, its broken twin, noise floors of GLM-5 on webgpu, the selftest on webgpu, and every
# CI scenario against its declared outcome. Writes under $OUT (or ./out).
#   npm run build && bash ../shared/device/bundle.sh
#   device run, carry [".device"]:  source .device/prologue.sh && bash bench/gpu/issue5.sh paths
#   then (a device command runs at most 10 minutes):            ... && bash bench/gpu/issue5.sh checks
set -uo pipefail
# the CLI: the bin of the mla-diff package this runs in (package.json "bin")
MLA_DIFF=$(node -p "const p = require.resolve('mla-diff/package.json'); require('path').join(require('path').dirname(p), require(p).bin['mla-diff'])")
out=${OUT:-out}; mkdir -p "$out"
part=${1:-paths}
run() { # name, scenario file, extra flags
  echo "## mla-diff run $2 --device webgpu ${*:3}"
  /usr/bin/time -f "wall %e s, max RSS %M KiB" node "$MLA_DIFF" run "$2" --device webgpu --format json --out "$out/$1.json" "${@:3}"
  echo "exit $?"
  node bench/render.mjs "$out/$1.json" > "$out/$1.txt" && grep -E '^(PASS|FAIL)|first divergence|likely cause|external' "$out/$1.txt" | head -8
}
paths() {
  echo "## machine"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nproc; node --version
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))'
  run external-torch-mha-64 scenarios/gpu/external-torch-mha-64.yaml
  run external-torch-mqa-64 scenarios/gpu/external-torch-mqa-64.yaml
  run fault-external-torch-w-uv-64 scenarios/gpu/fault-external-torch-w-uv-64.yaml
  echo "## noise floors of GLM-5 at 64 heads on webgpu, judged at {floor: 8}"
  run glm5-noise-floor-64 scenarios/gpu/glm5-noise-floor-64.yaml
  echo "## stage replay at 64 heads: a planted fault, replayed (introduced / inherited)"
  run fault-mqa-scale-576-replay scenarios/fault-mqa-scale-576.yaml --replay on
}
checks() {
  node scripts/write-fixtures.mjs fixtures/checkpoints >/dev/null # the checkpoint scenarios read them
  echo "## selftest on webgpu (quick plan, default and {floor: 8} tolerances)"
  /usr/bin/time -f "wall %e s" node "$MLA_DIFF" selftest --device webgpu --format json > "$out/selftest-webgpu.json"; echo "exit $?"
  echo "## every CI scenario on the GPU against its declared outcome (8 at a time; the float64 reference runs on the CPU)"
  ls scenarios/*.yaml | xargs -P 8 -I{} node scripts/check-scenarios.mjs {} -- --device webgpu | grep -v 'scenarios met'
}
"$part" 2>&1 | tee "$out/log-$part.txt"
