#!/usr/bin/env bash
# Issue 21 acceptance on the GPU machine: transformers' own MLA attention (examples/backends/hf_mla.py, DeepseekV3Attention
# in eager fp32, TF32 off, its own fp32 RoPE) through the external protocol, judged against the float64 reference:
# GLM-5 at 64 heads T = 512 and 2048, a serving schedule, DeepSeek-V3 YaRN at positions 4093+ and 131060+ (TP 0 of 16),
# and the planted twin (--fault scale-latent). Our paths run on webgpu.
# The float64 reference multiplies through the host BLAS (cblas_dgemm): the GPU machine has none, so `pack` carries
# Debian's OpenBLAS 0.3.21 (pthread build, with libgfortran and libquadmath: 5 MB xz) in .device/openblas.tar.xz.
# Here, once per code change:  npm run build && bash scripts/device/bundle.sh && bash bench/external/hf-gpu.sh pack
# On the device (carry [".device"], timeout_s 600):  source .device/prologue.sh && bash bench/external/hf-gpu.sh
# Then here: node bench/external/hf-summary.mjs <files_at>   (bench/external/hf-results.{json,md})
set -uo pipefail
cd "$(git rev-parse --show-toplevel 2>/dev/null || pwd)"
if [[ ${1:-run} == pack ]]; then
  set -e
  lib=/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblasp-r0.3.21.so
  tmp=$(mktemp -d)
  cp "$lib" "$tmp/libopenblas.so.0"
  cp -L $(ldd "$lib" | awk '/gfortran|quadmath/{print $3}') "$tmp/"
  tar -C "$tmp" -cf - . | xz -T0 -9 > .device/openblas.tar.xz
  ls -la .device/openblas.tar.xz
  exit 0
fi
if [[ -f .device/openblas.tar.xz ]]; then
  mkdir -p /tmp/openblas && tar -C /tmp/openblas -xJf .device/openblas.tar.xz
  export LD_LIBRARY_PATH=/tmp/openblas:${LD_LIBRARY_PATH:-}
  export MLA_DIFF_BLAS=/tmp/openblas/libopenblas.so.0
fi
out=${OUT:-/tmp/hf-out}
mkdir -p "$out/runs"
deadline=$(( $(date +%s) + ${DEADLINE:-560} ))
python3 -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__, torch.cuda.get_device_name(0))" \
  > "$out/versions.txt" 2>&1
nproc >> "$out/versions.txt"
# The eps transformers gives the latent norms of DeepseekV3Attention, for a config whose rms_norm_eps is 1e-5 (GLM-5's):
python3 -c "
from transformers import DeepseekV3Config
from transformers.models.deepseek_v3.modeling_deepseek_v3 import DeepseekV3Attention
a = DeepseekV3Attention(DeepseekV3Config(hidden_size=64, num_attention_heads=2, q_lora_rank=32, kv_lora_rank=16,
    qk_nope_head_dim=8, qk_rope_head_dim=8, v_head_dim=8, rms_norm_eps=1e-5), layer_idx=0)
print('DeepseekV3Attention with rms_norm_eps 1e-5: q_a_layernorm eps', a.q_a_layernorm.variance_epsilon,
      'kv_a_layernorm eps', a.kv_a_layernorm.variance_epsilon)" >> "$out/versions.txt" 2>&1
for s in ${SCENARIOS:-external-hf-glm5-512 fault-external-hf-glm5-512-scale-latent external-hf-deepseek-v3-yarn-4k \
    external-hf-deepseek-v3-yarn-128k external-hf-glm5-schedule fault-external-hf-glm5-norm-eps \
    external-hf-glm5-2048}; do
  left=$(( deadline - $(date +%s) ))
  (( left < 30 )) && { echo "$s: skipped (deadline)" >> "$out/summary.txt"; continue; }
  start=$(date +%s%N)
  timeout "$left" node dist/surface/cli/main.js run "scenarios/gpu/$s.yaml" --device webgpu --format json \
    > "$out/runs/$s.json" 2> "$out/runs/$s.log"
  rc=$?
  echo "$s: exit $rc, $(( ($(date +%s%N) - start) / 1000000 )) ms" >> "$out/summary.txt"
done
# The float64 reference alone at length on this machine's cores (bench/reference/one.mjs: GLM-5, 64 heads, one prefill).
for t in ${REF_TS:-}; do
  left=$(( deadline - $(date +%s) ))
  (( left < 30 )) && { echo "reference T=$t: skipped (deadline)" >> "$out/summary.txt"; continue; }
  timeout "$left" node bench/reference/one.mjs --t "$t" ${REF_FLAGS:-} > "$out/runs/reference-$t.jsonl" 2> "$out/runs/reference-$t.log"
  echo "reference T=$t: exit $?" >> "$out/summary.txt"
done
tar -C "$out" -cJf "$out/results.tar.xz" runs versions.txt summary.txt && rm -rf "$out/runs"
cat "$out/summary.txt"
