#!/usr/bin/env bash
# Records the packet captures of tests/data/captures/ again with the installed engines
# (tests/godot/install.sh) and tcpdump (run as root: it captures on the loopback interface):
#   godot4_ws.pcap      Godot 4 WebSocketMultiplayerPeer: a server and two clients (capture_ws4.gd)
#   godot3_ws.pcap      Godot 3.2 WebSocketServer / WebSocketClient: a server and two clients (capture_ws3.gd)
#   godot4_putvar.pcap  Godot 4 StreamPeerTCP.put_var to a TCPServer answering with put_var (capture_ws4.gd)
# Usage: tests/godot/capture_ws.sh [ws4 ws3 putvar]   (default: all three)
# Each session runs in a scratch dir, one engine process per role, on a random loopback port; tcpdump records
# `tcp port PORT` on `lo`. Read by multiplayer/tests/multiplayer/websocket.rs. Ids and TCP ports differ from run
# to run: the test takes them from the capture itself.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$here/../data/captures
mkdir -p "$out"
command -v tcpdump >/dev/null || { echo "capture_ws.sh: tcpdump not installed (apt-get install tcpdump)" >&2; exit 1; }

# session NAME ENGINE SCRIPT ROLE...   (a ROLE is role[:name]; the last one runs in the foreground)
session() {
    local name=$1 engine=$2 script=$3; shift 3
    local dir port tcpd pids=() r role who n=0
    dir=$(mktemp -d)
    cp "$here/$script" "$dir/"
    port=$((20000 + RANDOM % 20000))
    tcpdump -i lo -U --immediate-mode -B 16384 -s 0 -w "$dir/$name.pcap" "tcp port $port" 2>"$dir/tcpdump.log" &
    tcpd=$!
    for _ in $(seq 50); do grep -q listening "$dir/tcpdump.log" 2>/dev/null && break; sleep 0.1; done
    for r in "$@"; do
        n=$((n + 1)); role=${r%%:*}; who=${r#*:}; [ "$who" = "$r" ] && who=
        WS_ROLE=$role WS_NAME=$who WS_PORT=$port timeout 60 "$here/godot$engine" "$dir" "$script" \
            >"$dir/$n-$role$who.log" 2>&1 &
        pids+=($!)
        sleep 1.5
    done
    local failed=0
    for p in "${pids[@]}"; do wait "$p" || failed=1; done
    sleep 0.5
    kill -INT "$tcpd"; wait "$tcpd" || true
    if [ $failed = 1 ] || grep -q '^FAIL' "$dir"/*-*.log || [ "$(grep -l '^DONE' "$dir"/*-*.log | wc -l)" != $# ]; then
        echo "capture_ws.sh: session $name failed (scratch dir kept: $dir)" >&2
        tail -n 20 "$dir"/*-*.log >&2
        exit 1
    fi
    cp "$dir/$name.pcap" "$out/$name.pcap"
    echo "wrote $out/$name.pcap ($(stat -c %s "$out/$name.pcap") bytes, port $port)"
    grep -h '^ID\|^PEER\|^GOT' "$dir"/*-*.log | sed 's/^/    /' | head -n 40
    rm -rf "$dir"
}

for s in ${@:-ws4 ws3 putvar}; do
    case $s in
        ws4) session godot4_ws 4 capture_ws4.gd server client:A client:B ;;
        ws3) session godot3_ws 3 capture_ws3.gd server client:A client:B ;;
        putvar) session godot4_putvar 4 capture_ws4.gd tcp_server tcp_client ;;
        *) echo "capture_ws.sh: unknown session $s (ws4, ws3, putvar)" >&2; exit 64 ;;
    esac
done
