#!/usr/bin/env python3
"""Writes the engine golden vectors and the decode corpus inputs as seed files of the
lazy_vs_validate fuzz target (fuzz/corpus/lazy_vs_validate/<sha1>). Run from anywhere."""
import hashlib
import pathlib

root = pathlib.Path(__file__).resolve().parent.parent
out = root / "fuzz" / "corpus" / "lazy_vs_validate"
out.mkdir(parents=True, exist_ok=True)
seeds = []
for engine in ("godot4", "godot3"):
    for line in (root / "tests" / "data" / engine / "encode.tsv").read_text().splitlines():
        if line.startswith("#") or not line:
            continue
        seeds.append(bytes.fromhex(line.split("\t")[2]))
for line in (root / "tests" / "data" / "decode_inputs.tsv").read_text().splitlines():
    if line.startswith("#") or not line:
        continue
    seeds.append(bytes.fromhex(line.split("\t", 1)[1].strip() if "\t" in line else ""))
seeds.append((root / "examples" / "game_state.bin").read_bytes())
n = 0
for s in seeds:
    p = out / hashlib.sha1(s).hexdigest()
    if not p.exists():
        p.write_bytes(s)
        n += 1
print(f"{n} new seed files in {out} ({len(seeds)} seeds)")
