#!/usr/bin/env bash
# Records Godot's multiplayer over ENet on loopback with tcpdump into tests/data/captures/
# (godot4_enet.pcap, godot3_enet.pcap), with the installed engines (tests/godot/install.sh) and
# tcpdump (root, or CAP_NET_RAW). `capture_enet.sh 4` or `capture_enet.sh 3` for one engine;
# `capture_enet.sh 36` records capture_enet3.gd with Godot 3.6 (tests/godot/godot36), whose ENet
# compresses with the range coder by default, into godot36_enet.pcap (the live capture test's
# scratch copy only: it is not committed). `capture_enet.sh rep4` records capture_rep4.gd with Godot 4
# (a MultiplayerSpawner and a MultiplayerSynchronizer: SPAWN, SYNC, DELTA, DESPAWN) into
# godot4_replication.pcap.
#
# Each engine runs capture_enet<N>.gd once: one process holding an ENet server and two clients
# that exchange a short scripted session over 127.0.0.1:PORT, then a server and a client that
# compress with ENet's range coder on PORT + 1 (see the script's header); tcpdump records
# `udp portrange PORT-PORT+1` on lo (link type EN10MB, zero MACs). The script's stdout (the peer ids
# and what each side sent and got) is printed. multiplayer/tests/multiplayer/enet.rs reads the
# committed captures; a new recording has new random peer ids, which the test reads from the
# traffic itself.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$here/../data/captures
mkdir -p "$out"
command -v tcpdump >/dev/null || { echo "capture_enet.sh: tcpdump not installed" >&2; exit 1; }
for n in ${1:-4 3}; do
    dir=$(mktemp -d)
    chmod 755 "$dir"                 # tcpdump drops privileges to its own user to write the file
    gd=capture_enet$n.gd engine=$n name=godot${n}_enet
    if [ "$n" = 36 ]; then gd=capture_enet3.gd; fi
    if [ "$n" = rep4 ]; then gd=capture_rep4.gd engine=4 name=godot4_replication; fi
    cp "$here/$gd" "$dir/"
    port=$((40000 + RANDOM % 20000))     # the script also uses port + 1
    echo "$port" > "$dir/capture_port.txt"
    tcpdump -i lo -U --immediate-mode -B 16384 -w "$dir/capture.pcap" "udp portrange $port-$((port + 1))" 2>"$dir/tcpdump.log" &
    tpid=$!
    for _ in $(seq 50); do grep -q listening "$dir/tcpdump.log" && break; sleep 0.1; done
    "$here/godot$engine" "$dir" "$gd" >"$dir/stdout.log" 2>&1 || true
    sleep 0.5                        # the last datagrams reach the file
    kill -INT "$tpid"; wait "$tpid" || true
    cat "$dir/stdout.log"
    if ! grep -q CAPTURE-DONE "$dir/stdout.log"; then
        echo "$gd (Godot $n) did not finish (scratch dir kept: $dir)" >&2
        exit 1
    fi
    cp "$dir/capture.pcap" "$out/$name.pcap"
    echo "wrote $out/$name.pcap ($(stat -c %s "$out/$name.pcap") bytes; $(grep captured "$dir/tcpdump.log"))"
    rm -rf "$dir"
done
