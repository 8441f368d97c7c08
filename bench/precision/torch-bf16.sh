#!/usr/bin/env bash
# Issue 7 on the device machine (H200), the PyTorch side: what bf16 does to the agreement of the two
# MLA paths in PyTorch, on GLM-5 at 64 heads over the weights and schedule mla-diff uses. Runs the
# PyTorch external backend (examples/backends/torch_mla.py) through mla-diff with --keep-external,
# path mha and path mqa, in bf16 and in fp32, then measures per stage with bench/precision/torch-pair.py:
#   torch-bf16-pair.json   rel(torch-mha, torch-mqa) in bf16: "what PyTorch bf16 shows"
#   torch-fp32-pair.json   the same in fp32 (TF32 off): the floor
#   torch-{mha,mqa}-bf16-vs-fp32.json   each path's bf16 error against its own fp32 run
#   ratio-fp32.json        mla-diff's fp32 rel(mha, mqa) (built-in paths, webgpu) over PyTorch's fp32 one
# Writes under $OUT (or ./out).
#   npm run build && bash scripts/device/bundle.sh
#   device run, carry [".device"]:  source .device/prologue.sh && bash bench/precision/torch-bf16.sh
set -uo pipefail
# the CLI: the bin of the mla-diff package this runs in (package.json "bin")
MLA_DIFF=$(node -p "const p = require.resolve('mla-diff/package.json'); require('path').join(require('path').dirname(p), require(p).bin['mla-diff'])")
out=${OUT:-out}; mkdir -p "$out"
run() { # name, scenario file, extra flags
  echo "## mla-diff run $2 --device webgpu ${*:3}"
  /usr/bin/time -f "wall %e s, max RSS %M KiB" node "$MLA_DIFF" run "$2" --device webgpu --format json --out "$out/$1.json" "${@:3}"
  echo "exit $?" # the bf16 runs diverge (exit 1) from the fp32 built-in paths and the float64 reference: expected
}
kept() { node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); console.log(r.cases[0].trace.external.dir)' "$1"; }
pair() { # name, run json a, run json b
  echo "## $1: torch-pair.py $(kept "$2") $(kept "$3")"
  python3 bench/precision/torch-pair.py "$(kept "$2")" "$(kept "$3")" --json "$out/$1.json"
}
main() {
  echo "## machine"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; node --version
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))'
  run torch-bf16-mha scenarios/gpu/external-torch-bf16-mha-64.yaml --keep-external
  run torch-bf16-mqa scenarios/gpu/external-torch-bf16-mqa-64.yaml --keep-external
  run torch-fp32-mha scenarios/gpu/external-torch-mha-64.yaml --keep-external
  run torch-fp32-mqa scenarios/gpu/external-torch-mqa-64.yaml --keep-external
  pair torch-bf16-pair "$out/torch-bf16-mha.json" "$out/torch-bf16-mqa.json"
  pair torch-fp32-pair "$out/torch-fp32-mha.json" "$out/torch-fp32-mqa.json"
  pair torch-mha-bf16-vs-fp32 "$out/torch-bf16-mha.json" "$out/torch-fp32-mha.json"
  pair torch-mqa-bf16-vs-fp32 "$out/torch-bf16-mqa.json" "$out/torch-fp32-mqa.json"
  echo "## mla-diff fp32 (its built-in paths in the fp32 run) against PyTorch fp32: the ratio the acceptance asks for, at fp32"
  node bench/precision/trace-pair.mjs "$out/torch-fp32-mha.json" --pair mha,mqa --torch "$out/torch-fp32-pair.json" --out "$out/ratio-fp32.json"
  # mla-diff's own bf16 run: the bf16 scenarios carry `dtype: bfloat16`, so their runs hold mla-diff's bf16
  # paths beside PyTorch's; bench/precision/gpu.sh measures that ratio (trace-pair.mjs --torch).
  [[ -n ${KEEP_EXCHANGE:-} ]] && return # KEEP_EXCHANGE=1 leaves the exchange directories (660 MB of weights each)
  for f in torch-bf16-mha torch-bf16-mqa torch-fp32-mha torch-fp32-mqa; do rm -rf "$(kept "$out/$f.json")"; done
}
main 2>&1 | tee "$out/log.txt"
