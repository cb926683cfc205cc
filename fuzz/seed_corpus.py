#!/usr/bin/env python3
"""Writes the seed files of the fuzz targets (fuzz/corpus/<target>/<sha1>), from the engine
golden vectors (bytes and engine text), the decode corpus and the example packet. The JSON seeds
are the golden values printed by `gdvariant decode --format json` (built with cargo). Run from
anywhere; then minimise with `cargo +nightly fuzz cmin <target>`. The `capture` and `mp_server`
seeds are written by seed_capture.py and seed_mp_server.py."""
import struct
import subprocess

from seeds import root, write


values, texts, objects = [], [], []
for engine in ("godot4", "godot3"):
    for line in (root / "tests" / "data" / engine / "encode.tsv").read_text().splitlines():
        if line.startswith("#") or not line:
            continue
        f = line.split("\t")
        values.append(bytes.fromhex(f[2]))
        texts.append(bytes.fromhex(f[3]))
        objects.append(f[1] == "objects")
inputs = []
for line in (root / "tests" / "data" / "decode_inputs.tsv").read_text().splitlines():
    if line.startswith("#") or not line:
        continue
    inputs.append(bytes.fromhex(line.split("\t", 1)[1].strip() if "\t" in line else ""))
example = (root / "examples" / "game_state.bin").read_bytes()

write("lazy_vs_validate", values + inputs + [example])
write("print_round_trip", values + inputs)
write("owned_round_trip", values + inputs)
write("text_reader", texts + [
    b"{\"a\": 1, \"a\": [2], 3: {4: 5, 4: 6}}",
    b"Array[int]([1, 2])", b"Dictionary[String, Node]({\"a\": null})",
    b"Object(Node,\"script\":Resource(\"res://a.gd\"),\"x\":[1])\n",
    b"[Object(EncodedObjectAsID,\"object_id\":5,\"script\":null)\n, RID(-88), ^\"a/b:c\"]",
    b"PackedVector3Array(1, 2, 3, 4, 5, 6)", b"Vector2(nan, inf_neg)", b"\"\\u0000\\ud83d\\ude00\"",
])

# JSON: the golden values as the CLI prints them.
subprocess.run(["cargo", "build", "--quiet", "--release", "--features", "cli"], cwd=root, check=True)
cli = root / "target" / "release" / "gdvariant"
jsons = []
for v, obj in zip(values, objects):
    args = [str(cli), "decode", "--format", "json", "-"] + (["--allow-objects"] if obj else [])
    for dialect in ("4", "3"):
        r = subprocess.run(args + ["--dialect", dialect], input=v, capture_output=True)
        if r.returncode == 0:
            jsons.append(r.stdout)
jsons += [
    b"{\"$Dictionary\": [[1, 2], [1, 3]], \"$repeated\": true}",
    b"{\"$Array\": [{\"$Array\": [1], \"$type\": {\"class\": \"Node\"}}], \"$type\": \"Array\"}",
    b"{\"$Vector2\": [\"nan(0x7ff0000000000001)\", \"-nan\"], \"$f64\": true}",
    b"{\"$NodePath\": {\"names\": [\"\", \"a\"], \"subnames\": [], \"absolute\": false}}",
    b"{\"$Object\": {\"class\": \"Node\", \"properties\": [[\"script\", null], [\"a\", [1]]]}}",
]
write("json_reader", jsons)

# Framing: a flags byte, a max-size choice, a chunking seed, then frames of golden values.
frames = []
for i in range(0, len(values), 7):
    group = values[i:i + 7]
    for flags, endian in ((0, "<"), (4, ">")):
        stream = b"".join(struct.pack(endian + "I", len(v)) + v for v in group)
        frames.append(bytes([flags, 2]) + struct.pack("<I", i * 2654435761 % 2**32) + stream)
write("framing_chunks", frames)

# Writer operations: any bytes drive them; the golden values are as good as any.
write("writer_ops", values[:120])
