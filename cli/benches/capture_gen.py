#!/usr/bin/env python3
"""Builds a large capture of real Godot traffic for cli/benches/capture.sh: the committed captures
(tests/data/captures/*.pcap, Ethernet, IPv4 on loopback) replicated until the file holds at least
SIZE bytes. Copy k rewrites both IPv4 addresses of every packet to 127.A.B.1 (A.B = k), with the
IPv4 header checksum recomputed, so that every copy's flows are flows of their own; TCP
sequence numbers and ports stay valid as they were. Timestamps move on by 10 s per copy, so the
records stay in capture order.

Usage: capture_gen.py OUT.pcap SIZE_BYTES CAPTURE.pcap...
"""
import struct
import sys


def records(path):
    data = open(path, "rb").read()
    magic = struct.unpack_from("<I", data)[0]
    assert magic == 0xA1B2C3D4, f"{path}: a little-endian microsecond pcap is expected"
    link = struct.unpack_from("<I", data, 20)[0]
    assert link == 1, f"{path}: Ethernet captures are expected"
    at = 24
    out = []
    while at + 16 <= len(data):
        sec, usec, cap, orig = struct.unpack_from("<IIII", data, at)
        out.append((sec, usec, orig, data[at + 16 : at + 16 + cap]))
        at += 16 + cap
    return out


def checksum(h):
    s = sum(struct.unpack(f"!{len(h) // 2}H", h))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def main():
    out_path, size = sys.argv[1], int(sys.argv[2])
    recs = []
    for p in sys.argv[3:]:
        recs.extend(records(p))
    recs.sort(key=lambda r: (r[0], r[1]))
    t0 = recs[0][0]
    with open(out_path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1))
        written, k = 24, 0
        while written < size:
            a, b = (k >> 8) & 255, k & 255
            ip = bytes([127, a, b, 1])
            for sec, usec, orig, frame in recs:
                frame = bytearray(frame)
                if len(frame) >= 34 and frame[12:14] == b"\x08\x00":
                    ihl = (frame[14] & 15) * 4
                    frame[26:30] = ip
                    frame[30:34] = ip
                    frame[24:26] = b"\0\0"
                    frame[24:26] = struct.pack("!H", checksum(bytes(frame[14 : 14 + ihl])))
                f.write(struct.pack("<IIII", sec - t0 + 1_700_000_000 + 10 * k, usec, len(frame), orig))
                f.write(frame)
                written += 16 + len(frame)
            k += 1
    print(f"wrote {out_path}: {written} bytes, {k} copies of {len(recs)} packets")


main()
