#!/usr/bin/env bash
# What the host BLAS buys on wasm (README quick start): the main job and a 512-token GLM-5 layer, each with the
# host BLAS (MLA_DIFF_BLAS unset: OpenBLAS found) and without (MLA_DIFF_BLAS=off: tfjs's XNNPACK), alternating.
# Usage: npm run build && bash bench/blas/run.sh [ROUNDS]   (default 3; the 512-token rounds take minutes each)
# Prints one line per run: which, blas|off, wall seconds of the whole process.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-3}
cli=dist/surface/cli/main.js
long=$(mktemp -d)/glm5-512.yaml && trap 'rm -rf "$(dirname "$long")"' EXIT
# capital-of-france's layer at 512 tokens, one case, no float64 reference: the products dominate
cat >"$long" <<'YAML'
version: 1
name: glm5-512-blas
model: { preset: glm-5 }
weights: { synthetic: { seed: 0 } }
prompt: { length: 512 }
reference: off
cases:
  - name: all-heads
YAML
time_run() { # $1 label, $2 blas|off, rest: the command
  local label=$1 mode=$2; shift 2
  local t0 t1
  t0=$(date +%s.%N)
  if [[ $mode == off ]]; then MLA_DIFF_BLAS=off "$@" >/dev/null; else "$@" >/dev/null; fi
  t1=$(date +%s.%N)
  printf '%s\t%s\t%.2f\n' "$label" "$mode" "$(echo "$t1 - $t0" | bc)"
}
for ((i = 0; i < rounds; i++)); do
  for mode in blas off; do time_run main-job "$mode" node "$cli" run scenarios/capital-of-france.yaml --quiet; done
done
for ((i = 0; i < rounds; i++)); do
  for mode in blas off; do time_run glm5-512 "$mode" node "$cli" run "$long" --quiet; done
done
