#!/usr/bin/env python3
"""Hugging Face transformers' own MLA attention as an mla-diff external backend (protocol v1, docs/external-backends.md).

An independent implementation: the layer is transformers' DeepseekV3Attention module built from the request's config,
its weights loaded from weights.safetensors, run in eager attention in fp32
(TF32 off), with transformers' own rotary embedding: it computes its RoPE tables itself, in fp32 (position · inv_freq,
YaRN's blend), and does not read mla-diff's rope_cos / rope_sin. input_layernorm (outside the attention module) is
transformers' RMSNorm of the same model.

The schedule: each attending piece runs the module over every token of its request so far (the cached ones included)
with a causal mask, and keeps the piece's own rows: what an incremental KV cache computes, without one. Stages come
from forward hooks on the module's projections and norms (q_c_raw, q_c, q_full_prerope, kv_lora, kv_c_normed,
kv_nope, attn_out, o_proj_out), from the module's rotary helper (q_pe, k_pe) and from eager attention's weights
(attn_probs).

  --hf-norm-eps          keep the eps transformers' DeepseekV3Attention gives q_a_layernorm and kv_a_layernorm (its
                         RMSNorm default, 1e-6, whatever config.rms_norm_eps says) instead of the config's: right for
                         DeepSeek-V3 (1e-6), 4.6e-6 off at q_c and kv_c_normed for GLM-5 (1e-5), which mla-diff reports
                         (docs/findings/transformers-mla-norm-eps.md)
  --fault scale-latent   a planted bug: the softmax scale of the 576-wide latent, (kv_lora_rank + qk_rope_head_dim)^-0.5,
                         where qk_head_dim^-0.5 (× YaRN's mscale²) is due

Needs torch and transformers (5.x). Shares torch_mla.py's safetensors reader and writer.
"""
import argparse
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_mla import read_safetensors, write_safetensors  # noqa: E402

LINEARS = ["q_a_proj", "q_a_layernorm", "q_b_proj", "kv_a_proj_with_mqa", "kv_a_layernorm", "kv_b_proj", "o_proj"]


def hf_config(c):
    """A transformers config of the request's (sliced) MLA config, eager attention, rope in rope_parameters (5.x)."""
    from transformers import DeepseekV3Config as Config
    rope = {"rope_type": "default", "rope_theta": c["rope_theta"]}
    y = c.get("rope_scaling")
    if y:
        rope = {"rope_type": "yarn", "rope_theta": c["rope_theta"], "factor": y["factor"],
                "original_max_position_embeddings": y["original_max_position_embeddings"], "beta_fast": y["beta_fast"],
                "beta_slow": y["beta_slow"], "mscale": y["mscale"], "mscale_all_dim": y["mscale_all_dim"]}
    kw = dict(hidden_size=c["hidden_size"], num_attention_heads=c["num_attention_heads"], num_key_value_heads=c["num_attention_heads"],
              q_lora_rank=c["q_lora_rank"], kv_lora_rank=c["kv_lora_rank"], qk_nope_head_dim=c["qk_nope_head_dim"],
              qk_rope_head_dim=c["qk_rope_head_dim"], v_head_dim=c["v_head_dim"], rms_norm_eps=c["rms_norm_eps"],
              rope_interleave=bool(c["rope_interleave"]), attention_bias=False, attention_dropout=0.0,
              max_position_embeddings=max(c.get("max_position_embeddings", 0) or 0, 1 << 18), rope_parameters=rope)
    cfg = Config(**kw)
    if getattr(cfg, "rope_parameters", None) is None:  # transformers 4.x: rope_theta and rope_scaling
        cfg.rope_theta = c["rope_theta"]
        cfg.rope_scaling = None if not y else {**rope, "type": "yarn"}
    cfg._attn_implementation = "eager"
    return cfg


def build(cfg, dev):
    from transformers.models.deepseek_v3 import modeling_deepseek_v3 as m

    attn = m.DeepseekV3Attention(cfg, layer_idx=0)
    rotary = m.DeepseekV3RotaryEmbedding(cfg)
    norm = m.DeepseekV3RMSNorm(cfg.hidden_size, eps=cfg.rms_norm_eps)
    return m, attn.to(dev).eval(), rotary.to(dev), norm.to(dev).eval()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fault", choices=["scale-latent"], default=None)
    ap.add_argument("--hf-norm-eps", action="store_true")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    dev = torch.device(args.device)
    req_dir, out_dir = os.environ["MLA_DIFF_DIR"], os.environ["MLA_DIFF_OUT"]
    with open(os.environ["MLA_DIFF_REQUEST"]) as f:
        req = json.load(f)
    c = req["config"]
    N, P, R, V, L = (c[k] for k in ["num_attention_heads", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim", "kv_lora_rank"])
    w = read_safetensors(os.path.join(req_dir, req["weights"]), dev)
    inputs = read_safetensors(os.path.join(req_dir, req["inputs"]), dev)
    t0 = time.perf_counter()
    cfg = hf_config(c)
    m, attn, rotary, norm = build(cfg, dev)
    with torch.no_grad():
        for name in LINEARS:
            getattr(attn, name).weight.copy_(w[f"{name}.weight"])
        norm.weight.copy_(w["input_layernorm.weight"])
    if not args.hf_norm_eps:  # the latent norms with the model's eps (DeepseekV3Attention builds them with the default)
        for n in ["q_a_layernorm", "kv_a_layernorm"]:
            getattr(attn, n).variance_epsilon = c["rms_norm_eps"]
    if args.fault == "scale-latent":
        attn.scaling = (L + R) ** -0.5

    taps = {}
    hooks = [getattr(attn, n).register_forward_hook(lambda _m, i, o, n=n: taps.__setitem__(n, (i[0], o))) for n in LINEARS]
    rotate_name = "apply_rotary_pos_emb_interleave" if c["rope_interleave"] else "apply_rotary_pos_emb"
    original = getattr(m, rotate_name)

    def rotate(q, k, cos, sin, *a, **kw):
        q_pe, k_pe = original(q, k, cos, sin, *a, **kw)
        taps["rope"] = (q_pe, k_pe)
        return q_pe, k_pe

    setattr(m, rotate_name, rotate)
    stages, history = {}, {}
    try:
        for p in req["pieces"]:
            key = f"{p['step']}/{p['request']}"
            emb, pos = history.get(p["request"], (None, None))
            new_emb, new_pos = inputs[f"{key}/embeddings"].float(), inputs[f"{key}/positions"].long()
            emb = new_emb if emb is None else torch.cat([emb, new_emb])  # [S,H]: the request's tokens so far
            pos = new_pos if pos is None else torch.cat([pos, new_pos])  # [S]
            history[p["request"]] = (emb, pos)
            if p["kind"] == "cached":
                continue  # nothing attends: its rows are recomputed with the next piece of the request
            S, T = emb.shape[0], p["count"]
            with torch.no_grad():
                hidden_in = norm(emb[None])  # [1,S,H]
                cos, sin = rotary(hidden_in, pos[None])
                causal = torch.full((S, S), torch.finfo(torch.float32).min, device=dev).triu(1)[None, None]  # [1,1,S,S]
                out, probs = attn(hidden_in, position_embeddings=(cos, sin), attention_mask=causal)
            rows = slice(S - T, S)  # the piece's own tokens

            def put(stage, x):
                stages[f"{key}/{stage}"] = x.detach().float().contiguous()

            def tok(x):  # a hook's [1, …, S, width] as [S, width] (transformers keeps singleton axes in places)
                return x.reshape(-1, x.shape[-1])

            put("hidden_in", tok(hidden_in)[rows])
            put("q_c_raw", tok(taps["q_a_proj"][1])[rows])
            put("q_c", tok(taps["q_a_layernorm"][1])[rows])
            put("q_full_prerope", tok(taps["q_b_proj"][1])[rows])  # [T, N·(P+R)]: "t (h e)"
            put("kv_lora", tok(taps["kv_a_proj_with_mqa"][1])[rows])
            put("kv_c_normed", tok(taps["kv_a_layernorm"][1])[rows])
            put("kv_nope", tok(taps["kv_b_proj"][1])[rows])  # [T, N·(P+V)]: "t (h pv)"
            q_pe, k_pe = taps["rope"]  # [1,N,S,R], [1,1,S,R]
            if c["rope_interleave"]:  # transformers de-interleaves before rotating: pair i at (i, i+R/2), ours at (2i, 2i+1)
                q_pe, k_pe = (x.unflatten(-1, (2, R // 2)).transpose(-1, -2).flatten(-2) for x in (q_pe, k_pe))
            put("q_pe", q_pe[0, :, rows].transpose(0, 1))  # [T,N,R]
            put("k_pe", k_pe.reshape(-1, S, R)[0, rows])  # [T,R]
            put("attn_probs", probs[0, :, rows])  # [N,T,S]
            put("attn_out", tok(taps["o_proj"][0])[rows])  # [T,N·V]
            put("o_proj_out", tok(out)[rows])
    finally:
        setattr(m, rotate_name, original)
        for h in hooks:
            h.remove()
    if dev.type == "cuda":
        torch.cuda.synchronize()
    seconds = time.perf_counter() - t0
    os.makedirs(out_dir, exist_ok=True)
    write_safetensors(os.path.join(out_dir, "stages.safetensors"), stages)
    import transformers

    device = f"{dev} {torch.cuda.get_device_name(dev)}" if dev.type == "cuda" else "cpu"
    response = {"format": "mla-diff/external-response", "version": 1,
                "name": "hf-deepseek-v3" + ("+hf-norm-eps" if args.hf_norm_eps else "") + (f"+{args.fault}" if args.fault else ""), "precision": "float32",
                "device": f"{device}, torch {torch.__version__}, transformers {transformers.__version__} DeepseekV3Attention",
                "layouts": {"q_full_prerope": "t (h e)", "kv_nope": "t (h pv)"},
                "scalars": {f"{p['step']}/{p['request']}": {"softmax_scale": float(attn.scaling)}
                            for p in req["pieces"] if p["kind"] != "cached"},
                "seconds": seconds}
    with open(os.path.join(out_dir, "response.json"), "w") as f:
        json.dump(response, f, indent=1)


if __name__ == "__main__":
    main()
