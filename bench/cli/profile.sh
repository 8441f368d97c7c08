#!/usr/bin/env bash
# Where the time of a long CLI run goes (issue 24, point 3): GLM-5, 64 heads, an 8192-token prefill on webgpu, both paths,
# no reference (scenarios/gpu/glm5-8192-64.yaml). Run on the GPU machine from the bundle, one device call:
#   npm run build && bash scripts/device/bundle.sh
#   device: source .device/prologue.sh && bash bench/cli/profile.sh      (carry [".device"])
# Writes under $OUT (default out/cli-profile): run-N.json (the reports: their seconds), run-N.log (stderr, --verbose),
# wall.txt (each run's wall milliseconds, and `--version`'s: Node's start), cpu-N.cpuprofile (V8's sampling profile of
# each run; the first compiles the shaders cold, the second finds them in the driver's cache; node bench/cli/summarize.mjs
# FILE prints self time by file and by function). SCENARIO= and DEVICE= run another scenario or device the same way.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-out/cli-profile}
mkdir -p "$out"
s=${SCENARIO:-scenarios/gpu/glm5-8192-64.yaml}
# each stderr line prefixed with the milliseconds since the run's start (bash 5's EPOCHREALTIME)
stamp() { local l; while IFS= read -r l; do printf '%8d %s\n' $(( (${EPOCHREALTIME/./} - $1 / 1000) / 1000 )) "$l"; done; }
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
t0=$(date +%s%N); node dist/surface/cli/main.js --version > /dev/null
echo "version $(ms "$t0") ms" > "$out/wall.txt"
for i in 1 2; do
  prof=(--cpu-prof --cpu-prof-dir "$out" --cpu-prof-name "cpu-$i.cpuprofile" --cpu-prof-interval 500)
  t0=$(date +%s%N)
  node "${prof[@]}" dist/surface/cli/main.js run "$s" --device "${DEVICE:-webgpu}" --format json --out "$out/run-$i.json" --force \
    --verbose 2> >(stamp "$t0" > "$out/run-$i.log") || echo "run $i: exit $?" >> "$out/wall.txt"
  echo "run-$i $(ms "$t0") ms" >> "$out/wall.txt"
done
sleep 1
cat "$out/wall.txt"
