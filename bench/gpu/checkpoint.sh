#!/usr/bin/env bash
# Issue 4 on the device machine: checkpoints on webgpu. Writes GLM-5-sized GGUF files (Q8_0, Q4_K;
# one layer, the full token_embd) with our writer, loads layer 0 (time, peak RSS, bytes read), runs
# both paths of that layer on the H200 against the synthetic weights it was quantized from (all 64
# heads and TP rank 0 of 8), the planted loader fault at that size, and the CI checkpoint scenarios.
#   npm run build && bash scripts/device/bundle.sh
#   device run, carry [".device"]:  source .device/prologue.sh && bash bench/gpu/checkpoint.sh
set -uo pipefail
# the CLI: the bin of the mla-diff package this runs in (package.json "bin")
MLA_DIFF=$(node -p "const p = require.resolve('mla-diff/package.json'); require('path').join(require('path').dirname(p), require(p).bin['mla-diff'])")
out=${OUT:-out}; mkdir -p "$out"
tmp=$(mktemp -d)
scenario() { # file, type, extra weights keys
  cat > "$1" <<YAML
name: glm5-$2-gguf
description: Layer 0 of a GLM-5-sized $2 GGUF written by mla-diff, against the synthetic weights it was quantized from.
model: {}
weights: { gguf: $tmp/glm5-$2.gguf, layer: 0$3 }
compare_weights: { synthetic: { seed: 0 } }
prompt: { text: The capital of France is, ids: [1820, 6864, 315, 9822, 374] }
reference: on
cases: [{ name: all-heads }, { name: tp0-of-8, tp: { size: 8, rank: 0 } }]
YAML
}
run() { # name, scenario
  echo "## mla-diff run $2 --device webgpu"
  /usr/bin/time -f "wall %e s, max RSS %M KiB" node "$MLA_DIFF" run "$2" --device webgpu --format json --out "$out/$1.json"
  echo "exit $?"
}
{
  echo "## machine"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nproc; node --version
  node scripts/write-fixtures.mjs fixtures/checkpoints >/dev/null
  echo "## CI checkpoint scenarios on webgpu"
  for f in scenarios/checkpoint-*.yaml scenarios/fault-gguf-*.yaml; do node scripts/check-scenarios.mjs "$f" -- --device webgpu | head -1; done
  for type in Q8_0 Q4_K; do
    echo "## write GLM-5 $type"; node bench/checkpoint/write-glm5.mjs "$tmp/glm5-$type.gguf" "$type" 1; ls -l "$tmp/glm5-$type.gguf"
    echo "## load layer 0"; node bench/checkpoint/load-one.mjs "$tmp/glm5-$type.gguf" 0 | tee "$out/load-$type.json"
    if node "$MLA_DIFF" inspect --help >/dev/null 2>&1; then echo "## inspect"; /usr/bin/time -f "inspect wall %e s" node "$MLA_DIFF" inspect "$tmp/glm5-$type.gguf" > "$out/inspect-$type.txt"; fi
    scenario "$tmp/$type.yaml" "$type" ""
    run "glm5-$type" "$tmp/$type.yaml"
    scenario "$tmp/$type-fault.yaml" "$type" ", loader_fault: k-b-wrong-axis"
    run "glm5-$type-k-b-wrong-axis" "$tmp/$type-fault.yaml"
    rm -f "$tmp/glm5-$type.gguf"
  done
} 2>&1 | tee "$out/log.txt"
