#!/usr/bin/env python3
"""Writes the seed files of the `mp_server` fuzz target (fuzz/corpus/mp_server/<sha1>): the
clients' packets of the recorded sessions (tests/data/multiplayer/godot4.tsv, godot3.tsv) in the
target's script (a mode byte, then ops: 0x?0 connect, 0x?2 a packet [len][channel/mode][target]
bytes, 0x?A time, 0x0B tick, 0x0C-0x0F the application's calls, kick and authentication), whole and
in runs of 8 packets, for each flavor with relaying on and off and with authentication. Run from
anywhere; then minimise with `cargo +nightly fuzz cmin -O mp_server`."""
from seeds import root, write

PEERS = [2, 3, 77, 1_000_000, 2**31 - 1]
MODE = {0: 1, 1: 2, 2: 0}  # recorded mode (0 unreliable, 1 ordered, 2 reliable) -> the target's


def packets(name):
    """(from, channel, mode, bytes) of each packet a client sent."""
    rows = []
    for line in (root / "tests" / "data" / "multiplayer" / name).read_text().splitlines():
        f = line.split("\t")
        if f[0] != "pkt" or int(f[3]) == 1:
            continue
        channel = int(f[5]) if f[5] != "-" else 0
        mode = int(f[6]) if f[6] != "-" else 2
        rows.append((int(f[3]), channel, mode, bytes.fromhex(f[7])))
    return rows


def script(mode, rows, auth):
    s = bytearray([mode])
    peers = sorted({r[0] for r in rows})
    index = {p: PEERS.index(p) if p in PEERS else i % len(PEERS) for i, p in enumerate(peers)}
    for p in peers:
        s.append(index[p] << 4)  # connect
        if auth:
            s.append(index[p] << 4 | 0x0F)  # complete_auth, send_auth
    for i, (frm, channel, m, b) in enumerate(rows):
        if len(b) > 255:
            continue
        s += bytes([index[frm] << 4 | 2, len(b), channel << 4 | MODE[m], 0]) + b
        if i % 6 == 5:
            s += bytes([0x1A, 0x0B])  # 40 ms later, tick
    s += bytes([0x0C, 0x0D, 0x1E, 0x01])  # the application's calls, a kick, a disconnect
    return bytes(s)


seeds = []
for name, flavor in (("godot4.tsv", 0), ("godot3.tsv", 1)):
    rows = packets(name)
    runs = [rows] + [rows[at:at + 8] for at in range(0, len(rows), 8)]
    for run in runs:
        seeds.append(script(flavor, run, False))
        seeds.append(script(flavor | 2, run, False))
        seeds.append(script(flavor | 4, run, True))

write("mp_server", seeds)
