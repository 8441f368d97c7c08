#!/usr/bin/env bash
# Long schedules through the CLI on the GPU machine (issue 24, point 2): each scenario run once by
# `mla-diff run --device webgpu --format json --verbose`; per run its exit code, wall time, the process's
# peak RSS, the GPU's memory in use at most (nvidia-smi every 200 ms, the driver's and Dawn's own
# included) and the report's case memory (trace.memory). Everything lands in $OUT (default out/bench-long).
# Usage (device, carry [".device"]): source .device/prologue.sh && bash bench/long/run.sh [scenario.yaml ...]
# Extra options for every run: MLA_DIFF_ARGS='--reference on'.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-out/bench-long}
mkdir -p "$out"
list=("$@")
[[ ${#list[@]} -gt 0 ]] || list=(scenarios/gpu/glm5-64-32768.yaml scenarios/gpu/fault-glm5-64-32768-lse-base-2.yaml
  scenarios/gpu/glm5-64-131072.yaml scenarios/gpu/glm5-64-131072-mha-mqa.yaml)
read -ra extra <<< "${MLA_DIFF_ARGS:-}"
for f in "${list[@]}"; do
  name=$(basename "$f" .yaml)${MLA_DIFF_TAG:+-$MLA_DIFF_TAG}
  smi=
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 200 > "$out/$name.gpu-mib.txt" 2>/dev/null &
    smi=$!
  fi
  python3 - "$out/$name" node dist/surface/cli/main.js run "$f" --device webgpu --format json --verbose \
    --out "$out/$name.json" --force "${extra[@]}" <<'PY'
import resource, subprocess, sys, time
base, cmd = sys.argv[1], sys.argv[2:]
t0 = time.time()
with open(base + '.stderr', 'w') as err, open(base + '.stdout', 'w') as out:
    p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE, text=True)
    for line in p.stderr:  # each stderr line stamped with seconds since the start
        err.write(f'{time.time() - t0:8.2f} {line}')
    rc = p.wait()
wall = time.time() - t0
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20
with open(base + '.wall.txt', 'w') as w:
    w.write(f'command {" ".join(cmd)}\nrc {rc}\nwall_s {wall:.2f}\nmax_rss_gib {rss:.2f}\n')
PY
  [[ -n $smi ]] && { kill "$smi"; wait "$smi" 2>/dev/null; }
  node bench/long/summarize.mjs "$out/$name" | tee "$out/$name.summary.txt"
done
