#!/usr/bin/env python3
"""Per-stage agreement between two runs of an external backend, read from their kept exchange directories.

    python3 bench/precision/torch-pair.py DIR_A DIR_B [--json FILE]

DIR_A, DIR_B: exchange directories that `mla-diff run --keep-external` kept (the run JSON names them in
cases[].trace.external.dir): each holds request.json, weights.safetensors, inputs.safetensors and
out/{stages.safetensors,response.json}. For every record both wrote (tensor name
"{step}/{request}/{stage}[/{chunk}]"), the relative L2 difference ‖a − b‖ / max(‖a‖, ‖b‖) in float64
over positions finite in both (inf if an infinity of one is not the same infinity in the other), as
mla-diff's PairDiff.relErr. B is brought to A's layout first: each side's layout is its response.json
`layouts` entry, else the canonical one from request.json (torch-mqa writes lse "t h", torch-mha "h t").

The pair is only meaningful over the same weights and inputs: the tool refuses directories whose
weights.safetensors or inputs.safetensors differ byte for byte.

Prints one line per stage (worst record) and writes, with --json, {a, b, stages: {stage: {worst, at}},
records: {name: rel}} (a non-finite rel as "inf" / "nan"). Needs python3 and torch (reads with examples/backends/torch_mla.py's reader).
"""
import argparse
import hashlib
import json
import math
import os
import re
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "backends"))
from torch_mla import read_safetensors  # noqa: E402  (one reader of the format, not two)


def digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 24), b""):
            h.update(block)
    return h.hexdigest()


def groups(layout):
    """ "t (h v)" -> [["t"], ["h", "v"]] """
    return [g.strip("()").split() for g in re.findall(r"\([^)]*\)|\S+", layout)]


def to_layout(x, src, dst):
    """x laid out as src -> laid out as dst (the same axes, maybe grouped or ordered otherwise)."""
    if src == dst:
        return x
    gs, gd = groups(src), groups(dst)
    sizes = {g[0]: n for g, n in zip(gs, x.shape) if len(g) == 1}
    for g, n in zip(gs, x.shape):  # a group with one axis of unknown size: the rest divides it
        unknown = [a for a in g if a not in sizes]
        if len(g) > 1 and len(unknown) == 1:
            sizes[unknown[0]] = n // math.prod(sizes[a] for a in g if a in sizes)
    atoms_s = [a for g in gs for a in g]
    atoms_d = [a for g in gd for a in g]
    if sorted(atoms_s) != sorted(atoms_d) or any(a not in sizes for a in atoms_s):
        raise SystemExit(f"cannot map layout '{src}' to '{dst}'")
    y = x.reshape([sizes[a] for a in atoms_s]).permute([atoms_s.index(a) for a in atoms_d])  # atoms in dst order
    return y.reshape([math.prod(sizes[a] for a in g) for g in gd])


def rel(a, b):
    """‖a − b‖ / max(‖a‖, ‖b‖) in float64 over positions finite in both; inf on an unmatched infinity."""
    a, b = a.double().flatten(), b.double().flatten()
    both = torch.isfinite(a) & torch.isfinite(b)
    nan = torch.isnan(a) | torch.isnan(b)
    if bool(((~both) & (~nan) & (a != b)).any()):
        return math.inf
    a, b = a[both], b[both]
    denom = max(a.norm().item(), b.norm().item())
    return (a - b).norm().item() / denom if denom > 0 else 0.0


def read_dir(d):
    req = json.load(open(os.path.join(d, "request.json")))
    resp = json.load(open(os.path.join(d, "out", "response.json")))
    stages = read_safetensors(os.path.join(d, "out", "stages.safetensors"), "cpu")
    layouts = {**req["layouts"], **resp.get("layouts", {})}
    return resp, stages, layouts


def stage_of(name):
    """ "{step}/{request}/{stage}[/{chunk}]" -> stage """
    parts = name.split("/")
    return parts[-2] if parts[-1].isdigit() else parts[-1]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--json", help="write the result here")
    args = ap.parse_args()
    for f in ["weights.safetensors", "inputs.safetensors"]:
        if digest(os.path.join(args.a, f)) != digest(os.path.join(args.b, f)):
            raise SystemExit(f"{f} differs between {args.a} and {args.b}: not the same weights and inputs")
    resp_a, A, lay_a = read_dir(args.a)
    resp_b, B, lay_b = read_dir(args.b)
    records, stages = {}, {}
    for name, x in A.items():  # in the order A wrote them: pipeline order
        if name not in B:
            continue
        st = stage_of(name)
        y = to_layout(B[name], lay_b.get(st, ""), lay_a.get(st, ""))
        r = records[name] = rel(x, y) if x.shape == y.shape else math.nan
        if st not in stages or not r <= stages[st]["worst"]:
            stages[st] = {"worst": r, "at": name}
    label = lambda resp: f"{resp.get('name')} ({resp.get('precision')}, {resp.get('device')})"
    print(f"a = {label(resp_a)}\nb = {label(resp_b)}\nrel(a, b) = ‖a − b‖ / max(‖a‖, ‖b‖), worst record per stage:")
    for st, v in stages.items():
        print(f"  {st:16s} {v['worst']:.3e}  ({v['at']})")
    if args.json:  # strict JSON: a non-finite rel (unmatched infinity, shape mismatch) as the string "inf" / "nan"
        num = lambda r: r if math.isfinite(r) else str(r)
        out = {"a": label(resp_a), "b": label(resp_b), "stages": {st: {**v, "worst": num(v["worst"])} for st, v in stages.items()},
               "records": {k: num(r) for k, r in records.items()}}
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
