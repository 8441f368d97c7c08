#!/usr/bin/env python3
"""A PyTorch external backend for mla-diff (protocol v1, docs/external-backends.md).

Computes one MLA layer over mla-diff's schedule the way vLLM does, in PyTorch, and hands back every
stage it has:

  --path mha   reconstructed heads (forward_mha): kv_b_proj up-projects the cached latent into
               per-head k_nope and v; one causal softmax over every key of the request
  --path mqa   latent-absorbed (forward_mqa): W_UK_T folded into the query, attention over the
               576-wide latent cache, W_UV applied after (_v_up_proj)

  --fault w-uv-wrong-axis   a planted bug: W_UV rebuilt with a reshape where vLLM transposes
               (Wt[..., P:].reshape(N, L, V) instead of .transpose(0, 1)): same shape, wrong values

  --dtype float32      (default) every op in fp32, TF32 off
  --dtype bfloat16|float16   the engine's precision, op by op as vLLM runs it: weights, embeddings and
               the RoPE tables cast to the dtype; every linear / bmm native in the dtype (cuBLAS: fp32
               accumulate, dtype out, torch's default reduced-precision split-K left as vLLM leaves it);
               RMSNorm as vLLM's (normalized in fp32, cast, times the weight in the dtype); RoPE in the
               dtype; the latent cache in the dtype. Attention as the kernels do it: scores q·kᵀ
               accumulated in fp32 (products of dtype values are exact in fp32), softmax in fp32,
               the unnormalized P cast to the dtype before P·V (accumulated in fp32), divided by the
               fp32 row sum, output cast to the dtype. Simplification: one key block (the row max is
               the final one, not FlashAttention's running max; Triton's 4 KV splits merged in fp32
               are one split here), one pass over the cached context (vLLM merges chunks by LSE).
  --lse-dtype          the dtype the reported lse is stored in: FlashAttention (mha) keeps it fp32,
               Triton MLA (mqa) writes it in q's dtype. Default: float32 for mha and for --dtype
               float32, the --dtype for mqa. Only the reported stage: nothing downstream reads it.
  Stages are written as float32 whatever the dtype (exact upcast of the dtype's values).

Run by mla-diff with MLA_DIFF_REQUEST / MLA_DIFF_OUT set; reads request.json, weights.safetensors and
inputs.safetensors, writes out/stages.safetensors and out/response.json. Needs only torch (numpy
is used when present to write tensors faster).
"""
import argparse
import json
import os
import struct
import time

import torch

DTYPES = {"F32": torch.float32, "F64": torch.float64, "BF16": torch.bfloat16, "F16": torch.float16, "I32": torch.int32, "I64": torch.int64}


def read_safetensors(path, device):
    """name -> tensor, from the safetensors layout: u64 header size, JSON header, raw little-endian data."""
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8 : 8 + n])
    base = 8 + n
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        a, b = info["data_offsets"]
        raw = bytearray(blob[base + a : base + b])
        t = torch.frombuffer(raw, dtype=DTYPES[info["dtype"]]) if b > a else torch.empty(0, dtype=DTYPES[info["dtype"]])
        out[name] = t.reshape(info["shape"]).to(device)
    return out


def tensor_bytes(t):
    t = t.detach().to("cpu", torch.float32).contiguous()
    try:
        return t.numpy().tobytes()
    except (RuntimeError, ImportError):  # torch built without numpy
        return bytes(t.view(torch.uint8).tolist())


def write_safetensors(path, tensors):
    header, chunks, offset = {}, [], 0
    for name, t in tensors.items():
        data = tensor_bytes(t)
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    head = json.dumps(header, separators=(",", ":")).encode()
    head += b" " * (-len(head) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(head)))
        f.write(head)
        for c in chunks:
            f.write(c)


def rms_norm(x, w, eps):
    """fp32: x·rsqrt(mean x² + eps)·w. Other dtypes as vLLM's RMSNorm: normalized in fp32, cast to x's dtype, times w in it."""
    if x.dtype == torch.float32:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w
    xf = x.float()  # [T,K] fp32
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype) * w


def softmax_pv(masked, values, spec, dtype):
    """Softmax over keys and P·values the way FlashAttention / Triton MLA do it in a low dtype.

    masked [N,T,S] fp32 scaled scores (−inf after the causal mask); values [S,N,V] per head or [S,L]
    shared, in dtype; spec the einsum of P [N,T,S] with values into [N,T,X]. Returns the fp32
    probabilities [N,T,S], lse [N,T] (fp32, natural log) and the output [N,T,X] in dtype.
    """
    m = masked.amax(-1, keepdim=True)  # [N,T,1] row max
    p = torch.exp(masked - m)  # [N,T,S] fp32, unnormalized
    row_sum = p.sum(-1, keepdim=True)  # [N,T,1] fp32
    acc = torch.einsum(spec, p.to(dtype).float(), values.float())  # [N,T,X]: P cast to dtype, products exact, fp32 sums
    lse = (m + torch.log(row_sum)).squeeze(-1)  # [N,T]
    return p / row_sum, lse, (acc / row_sum).to(dtype)


def rope(x, cos, sin, style):
    """x [T, ..., R]; cos/sin [T, R/2] (mscale folded in). gptj pairs (2i, 2i+1), neox (i, i + R/2)."""
    shape = [x.shape[0]] + [1] * (x.dim() - 2) + [cos.shape[-1]]
    c, s = cos.reshape(shape), sin.reshape(shape)
    if style == "gptj":
        x1, x2 = x[..., 0::2], x[..., 1::2]
        return torch.stack([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1).flatten(-2)
    h = x.shape[-1] // 2
    x1, x2 = x[..., :h], x[..., h:]
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--path", choices=["mha", "mqa"], default="mha")
    ap.add_argument("--fault", choices=["w-uv-wrong-axis"], default=None)
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--dtype", choices=["float32", "bfloat16", "float16"], default="float32")
    ap.add_argument("--lse-dtype", choices=["float32", "bfloat16", "float16"], default=None)
    args = ap.parse_args()
    dtype = getattr(torch, args.dtype)
    low = dtype != torch.float32  # the engine's precision: attention as the kernels do it
    lse_dtype = getattr(torch, args.lse_dtype or (args.dtype if args.path == "mqa" else "float32"))
    torch.backends.cuda.matmul.allow_tf32 = False  # fp32 means fp32: no TF32 tensor-core rounding
    torch.backends.cudnn.allow_tf32 = False

    t0 = time.perf_counter()
    req_path = os.environ["MLA_DIFF_REQUEST"]
    out_dir = os.environ["MLA_DIFF_OUT"]
    here = os.path.dirname(req_path)
    req = json.load(open(req_path))
    assert req["format"] == "mla-diff/external-request" and req["version"] == 1, "unsupported request"
    dev = torch.device(args.device)
    c = req["config"]
    N, P, R, V, L = c["num_attention_heads"], c["qk_nope_head_dim"], c["qk_rope_head_dim"], c["v_head_dim"], c["kv_lora_rank"]
    D, eps, scale, style = P + R, c["rms_norm_eps"], req["softmax_scale"], req["rope"]["style"]
    w = {k: t.to(dtype) for k, t in read_safetensors(os.path.join(here, req["weights"]), dev).items()}  # float32 on disk
    inputs = read_safetensors(os.path.join(here, req["inputs"]), dev)
    wanted = set(req["stages"])

    # process_weights_after_loading: W_UK_T [N,P,L], W_UV [N,L,V]
    Wt = w["kv_b_proj.weight"].T.reshape(L, N, P + V)  # [L,N,P+V]
    W_UK_T = Wt[..., :P].permute(1, 2, 0).contiguous()  # [N,P,L]
    W_UV = Wt[..., P:].reshape(N, L, V) if args.fault == "w-uv-wrong-axis" else Wt[..., P:].transpose(0, 1).contiguous()  # [N,L,V]

    caches = {}  # request -> [S, L+R] latent rows (kv_c_normed | k_pe), contiguous by cache index
    stages = {}
    for piece in req["pieces"]:
        key = f"{piece['step']}/{piece['request']}"
        put = lambda stage, x: stages.__setitem__(f"{key}/{stage}", x) if stage in wanted else None
        emb = inputs[f"{key}/embeddings"].to(dtype)  # [T,H]
        cos, sin = inputs[f"{key}/rope_cos"].to(dtype), inputs[f"{key}/rope_sin"].to(dtype)  # [T,R/2]
        T, start = emb.shape[0], piece["start"]

        hidden_in = rms_norm(emb, w["input_layernorm.weight"], eps)  # [T,H]
        q_c = rms_norm(hidden_in @ w["q_a_proj.weight"].T, w["q_a_layernorm.weight"], eps)  # [T,Lq]
        q = (q_c @ w["q_b_proj.weight"].T).reshape(T, N, D)  # [T,N,D]
        q_nope = q[..., :P]  # [T,N,P]
        q_pe = rope(q[..., P:], cos, sin, style)  # [T,N,R]
        kv_lora = hidden_in @ w["kv_a_proj_with_mqa.weight"].T  # [T,L+R]
        kv_c_normed = rms_norm(kv_lora[:, :L], w["kv_a_layernorm.weight"], eps)  # [T,L]
        k_pe = rope(kv_lora[:, L:], cos, sin, style)  # [T,R]
        prev = caches.get(piece["request"], torch.empty(0, L + R, device=dev, dtype=dtype))
        assert prev.shape[0] == start, f"{key}: cache holds {prev.shape[0]} rows, piece starts at {start}"
        cache = caches[piece["request"]] = torch.cat([prev, torch.cat([kv_c_normed, k_pe], -1)])  # [S,L+R]
        if piece["kind"] == "cached":
            continue
        for name, x in [("hidden_in", hidden_in), ("q_c", q_c), ("q_nope", q_nope), ("q_pe", q_pe),
                        ("kv_c_normed", kv_c_normed), ("k_pe", k_pe), ("kv_cache", cache)]:
            put(name, x)

        S = start + T
        lat, pe = cache[:, :L], cache[:, L:]  # [S,L], [S,R]
        mask = torch.arange(S, device=dev)[None, :] > (start + torch.arange(T, device=dev))[:, None]  # [T,S]: key after query
        if args.path == "mha":
            kv_nope = (lat @ w["kv_b_proj.weight"].T).reshape(S, N, P + V)  # [S,N,P+V]
            k_nope = kv_nope[..., :P]  # [S,N,P]
            v = torch.einsum("sl,hlv->shv", lat, W_UV) if args.fault else kv_nope[..., P:]  # [S,N,V]
            k = torch.cat([k_nope, pe[:, None, :].expand(S, N, R)], -1)  # [S,N,D]
            logits = scale * torch.einsum("thd,shd->hts", torch.cat([q_nope, q_pe], -1).float(), k.float())  # [N,T,S] fp32
            put("kv_nope", kv_nope[start:])
            put("k_nope", k_nope[start:])
            put("v", v[start:])
            put("k", k[start:])
        else:
            ql_nope = torch.bmm(q_nope.transpose(0, 1), W_UK_T).transpose(0, 1)  # [T,N,L]
            mqa_q = torch.cat([ql_nope, q_pe], -1)  # [T,N,L+R]
            logits = scale * torch.einsum("thc,sc->hts", mqa_q.float(), cache.float())  # [N,T,S] fp32
            put("W_UK_T", W_UK_T)
            put("W_UV", W_UV)
            put("ql_nope", ql_nope)
            put("mqa_q", mqa_q)
        masked = logits.masked_fill(mask[None], float("-inf"))  # [N,T,S]
        if not low:
            lse = torch.logsumexp(masked, -1)  # [N,T], natural log
            probs = torch.exp(masked - lse[..., None])  # [N,T,S]
        if args.path == "mha":
            if low:
                probs, lse, out_htv = softmax_pv(masked, v, "hts,shv->htv", dtype)  # [N,T,S], [N,T], [N,T,V]
                attn_out_heads = out_htv.transpose(0, 1)  # [T,N,V] dtype
            else:
                attn_out_heads = torch.einsum("hts,shv->thv", probs, v)  # [T,N,V]
            put("lse", lse.to(lse_dtype))  # FlashAttention layout [N,T]
        else:
            if low:
                probs, lse, out_htl = softmax_pv(masked, lat, "hts,sl->htl", dtype)  # [N,T,S], [N,T], [N,T,L]
                attn_out_latent = out_htl.transpose(0, 1)  # [T,N,L] dtype (Triton's o)
            else:
                attn_out_latent = torch.einsum("hts,sl->thl", probs, lat)  # [T,N,L]
            attn_out_heads = torch.bmm(attn_out_latent.transpose(0, 1), W_UV).transpose(0, 1)  # [T,N,V]
            put("attn_out_latent", attn_out_latent)
            put("lse", lse.T.to(lse_dtype))  # Triton MLA layout [T,N], declared in response.json
        put("logits", logits)
        put("attn_probs", probs)
        attn_out = attn_out_heads.reshape(T, N * V)  # [T,N·V]
        put("attn_out_heads", attn_out)  # written flattened: layout "t (h v)"
        put("attn_out", attn_out)
        put("o_proj_out", attn_out @ w["o_proj.weight"].T)  # [T,H]

    if dev.type == "cuda":
        torch.cuda.synchronize()
    seconds = time.perf_counter() - t0
    os.makedirs(out_dir, exist_ok=True)
    write_safetensors(os.path.join(out_dir, "stages.safetensors"), stages)
    name = f"torch-{args.path}" + (f"+{args.fault}" if args.fault else "")
    layouts = {"attn_out_heads": "t (h v)", **({"lse": "t h"} if args.path == "mqa" else {})}
    device = f"{dev} {torch.cuda.get_device_name(dev)}" if dev.type == "cuda" else "cpu"
    response = {"format": "mla-diff/external-response", "version": 1, "name": name, "precision": args.dtype,
                "device": f"{device}, torch {torch.__version__}", "layouts": layouts,
                "scalars": {f"{p['step']}/{p['request']}": {"softmax_scale": scale} for p in req["pieces"] if p["kind"] != "cached"},
                "seconds": seconds}
    with open(os.path.join(out_dir, "response.json"), "w") as f:
        json.dump(response, f, indent=1)


if __name__ == "__main__":
    main()
