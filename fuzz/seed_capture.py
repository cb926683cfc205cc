#!/usr/bin/env python3
"""Writes the seed files of the `capture` fuzz target (fuzz/corpus/capture/<sha1>) from the
committed captures in tests/data/captures (classic pcap, Ethernet): each small capture whole, the
first 1, 2, 4 ... 64 records of each, a run of records from the middle (flows seen without their
start), a cut inside a record, the same records in pcapng (both byte orders) and, behind the
target's one-byte link choice, re-framed for each other link type it reads (raw IP, BSD null and
loopback, Linux cooked v1 and v2). Run from anywhere; then minimise with
`cargo +nightly fuzz cmin -O capture`."""
import struct

from seeds import root, write

MAX = 16 << 10  # no seed longer than this: long inputs slow every execution


def records(data):
    """(ts_sec, ts_usec, frame) of a little-endian classic pcap."""
    assert data[:4] == b"\xd4\xc3\xb2\xa1", "little-endian microsecond pcap expected"
    at, rs = 24, []
    while at + 16 <= len(data):
        sec, usec, incl, _orig = struct.unpack_from("<IIII", data, at)
        rs.append((sec, usec, data[at + 16:at + 16 + incl]))
        at += 16 + incl
    return rs


def pcap(rs, link=1):
    h = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, link)
    return h + b"".join(struct.pack("<IIII", s, u, len(f), len(f)) + f for s, u, f in rs)


def pcapng(rs, endian):
    def block(kind, body):
        body += b"\0" * (-len(body) % 4)
        n = 12 + len(body)
        return struct.pack(endian + "II", kind, n) + body + struct.pack(endian + "I", n)

    shb = block(0x0A0D0D0A, struct.pack(endian + "IHHq", 0x1A2B3C4D, 1, 0, -1))
    idb = block(1, struct.pack(endian + "HHI", 1, 0, 65535))
    epbs = b""
    for s, u, f in rs:
        t = s * 1_000_000 + u
        epbs += block(6, struct.pack(endian + "IIIII", 0, t >> 32, t & 0xFFFFFFFF, len(f), len(f)) + f)
    return shb + idb + epbs


def relink(frame, index):
    """The Ethernet frame re-framed for the target's link choice `index` (1: raw IP, 2: null,
    3: loop, 4: Linux cooked v1, 5: v2); None for a frame that is not IPv4 or IPv6."""
    ethertype = frame[12:14]
    ip = frame[14:]
    family = {b"\x08\x00": 2, b"\x86\xdd": 10}.get(ethertype)
    if family is None:
        return None
    if index == 1:
        return ip
    if index == 2:
        return struct.pack("<I", 2 if family == 2 else 24) + ip
    if index == 3:
        return struct.pack(">I", 2 if family == 2 else 24) + ip
    if index == 4:
        return struct.pack(">HHH8s", 0, 772, 6, b"\0" * 8) + ethertype + ip
    return ethertype + b"\0\0" + struct.pack(">IHBB8s", 1, 772, 0, 6, b"\0" * 8) + ip


def raw(rs, index):
    """The target's own framing: one byte choosing the link, then records with no file header."""
    body = b""
    for s, u, f in rs:
        g = relink(f, index)
        if g is not None:
            body += struct.pack("<IIII", s, u, len(g), len(g)) + g
    return bytes([index]) + body


seeds = []
for path in sorted((root / "tests" / "data" / "captures").glob("*.pcap")):
    data = path.read_bytes()
    rs = records(data)
    if len(data) <= MAX:
        seeds.append(data)
    for k in (1, 2, 4, 8, 16, 32, 64):
        seeds.append(pcap(rs[:k]))
    mid = len(rs) // 2
    seeds.append(pcap(rs[mid:mid + 24]))
    whole = pcap(rs[:32])
    seeds.append(whole[: len(whole) - 7])
    for endian in ("<", ">"):
        seeds.append(pcapng(rs[:16], endian))
    for index in range(1, 6):
        seeds.append(raw(rs[:16], index))

write("capture", [s[:MAX] for s in seeds])
