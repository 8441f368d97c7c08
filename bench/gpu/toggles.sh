#!/usr/bin/env bash
# Dawn's robustness toggles on the H200: the GEMM projections and one layer at T = 2048, 8192
# (probes off) with Dawn's defaults, then with disable_robustness and disable_workgroup_init
# (MLA_DIFF_DAWN_FLAGS); and a V8 CPU profile of the T = 512 layer (the host side of a step).
#   device run, carry [".device"]:  source .device/prologue.sh && bash bench/gpu/toggles.sh
set -uo pipefail
out=${OUT:-out}; mkdir -p "$out"
{
  for flags in "" "enable-dawn-features=disable_robustness,disable_workgroup_init"; do
    echo "## MLA_DIFF_DAWN_FLAGS='$flags'"
    export MLA_DIFF_DAWN_FLAGS="$flags"
    timeout 90 node bench/kernels/gemm-bench.mjs --device webgpu --tokens 8192 --reps 5; echo "exit $?"
    timeout 120 node bench/gpu/attention.mjs --device webgpu --tokens 2048,8192 --chunk 8192 --attention fused --probes off; echo "exit $?"
  done
  unset MLA_DIFF_DAWN_FLAGS
  echo "## node --cpu-prof bench/gpu/profile.mjs --tokens 512"
  timeout 90 node --cpu-prof --cpu-prof-dir "$out/cpuprof" bench/gpu/profile.mjs --device webgpu --tokens 512; echo "exit $?"
  tar -C "$out" -czf "$out/cpuprof.tgz" cpuprof && rm -rf "$out/cpuprof"
} 2>&1 | tee "$out/log.txt"
