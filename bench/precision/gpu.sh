#!/usr/bin/env bash
# Issue 7 on the device machine (H200), everything in one call (30 device-minutes a session):
#  1. exact rounding on webgpu: test/e2e/checks/rounding-check.mjs (bit for bit against the oracle; throughput)
#  2. mla-diff's bf16 rel(mha, mqa) against PyTorch's bf16 rel(torch-mha, torch-mqa) on GLM-5 at 64 heads,
#     same weights and inputs: scenarios/gpu/external-torch-bf16-{mha,mqa}-64.yaml (dtype: bfloat16, so one
#     run holds mla-diff's bf16 paths and PyTorch's), torch-pair.py, trace-pair.mjs --torch (ratio per stage)
#  3. the precision scenarios on webgpu against their declared outcomes
# Writes under $OUT (or ./out).
#   npm run build && bash scripts/device/bundle.sh
#   device run, carry [".device"]:  source .device/prologue.sh && bash bench/precision/gpu.sh
set -uo pipefail
# the CLI: the bin of the mla-diff package this runs in (package.json "bin")
MLA_DIFF=$(node -p "const p = require.resolve('mla-diff/package.json'); require('path').join(require('path').dirname(p), require(p).bin['mla-diff'])")
out=${OUT:-out}; mkdir -p "$out"
kept() { node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); console.log(r.cases[0].trace.external.dir)' "$1"; }
main() {
  echo "## machine"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; node --version
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))'
  echo "## 1. node test/e2e/checks/rounding-check.mjs --device webgpu"
  node test/e2e/checks/rounding-check.mjs --device webgpu --out "$out/rounding"; echo "exit $?"
  echo "## 2. PyTorch bf16 against mla-diff bf16"
  for p in mha mqa; do
    echo "## mla-diff run scenarios/gpu/external-torch-bf16-$p-64.yaml --device webgpu --format json --keep-external"
    /usr/bin/time -f "wall %e s, max RSS %M KiB" node "$MLA_DIFF" run "scenarios/gpu/external-torch-bf16-$p-64.yaml" --device webgpu --format json --out "$out/torch-bf16-$p.json" --keep-external
    echo "exit $? (0: the PyTorch path agrees with mla-diff's bf16 paths within their floors)"
  done
  python3 bench/precision/torch-pair.py "$(kept "$out/torch-bf16-mha.json")" "$(kept "$out/torch-bf16-mqa.json")" --json "$out/torch-bf16-pair.json"
  for p in mha mqa; do
    echo "## mla-diff bf16 rel(mha, mqa) in the $p run, over PyTorch's bf16 pair"
    node bench/precision/trace-pair.mjs "$out/torch-bf16-$p.json" --pair mha,mqa --torch "$out/torch-bf16-pair.json" --out "$out/ratio-bf16-$p-run.json"
  done
  for p in mha mqa; do rm -rf "$(kept "$out/torch-bf16-$p.json")"; done
  echo "## 3. precision scenarios on webgpu"
  for f in capital-of-france-bf16 fp8-cache-decode fault-fp16-absorbed-overflow fault-bf16-k-scale-bf16-cache fault-lse-bf16-merge long-context-bf16; do
    echo "## mla-diff run scenarios/$f.yaml --device webgpu"
    /usr/bin/time -f "wall %e s" node "$MLA_DIFF" run "scenarios/$f.yaml" --device webgpu --format json --out "$out/$f.json" >/dev/null
    echo "exit $?"
    node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); for (const c of r.cases) { const f = c.comparison.firstDivergence; console.log(`${c.trace.name}: ${c.comparison.verdict}${f ? ` at ${f.stage} (${f.culprit})` : ""}; expectation ${c.expectation ? (c.expectation.met ? "met" : "NOT met") : "none"}; worst mha↔mqa ${c.comparison.worstEngine ? c.comparison.worstEngine.relErr.toExponential(2) + " at " + c.comparison.worstEngine.stage : "—"}`); }' "$out/$f.json"
  done
}
main 2>&1 | tee "$out/log.txt"
