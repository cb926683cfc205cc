#!/usr/bin/env bash
# Load on the crate's multiplayer server (multiplayer/examples/echo_server.rs) and on a headless
# Godot 4 server running the same script (tests/godot/mpserver_server4.gd), with the bounded load
# generator multiplayer/examples/mp_loadgen/, over WebSocket and ENet, on loopback. The servers
# run pinned to core 0, the load generator to core 1 (where there are two cores).
#
# Usage: bash benches/mp_server.sh [SECONDS [TRANSPORTS [ROUNDS [PEER_COUNTS]]]]
#        (defaults: 5 s measured per run, "ws enet", 1 round, "100 1000"; MP_SERVER_RT=1: see below)
# Prints a table: per server, transport and peer count, the saturation (closed loop, window 1 and
# 8 per peer: echoes/s, echoes per server CPU-second, p50/p99/p99.9, the server's and the load
# generator's CPU share), the crate's server at the Godot server's saturation rate (open loop),
# and server memory per connected peer (idle). Every run waits for all peers to connect (or
# until none more got ready for 10 s: the Godot ENet server takes about a minute for 1000 peers,
# see mp_loadgen's docs), then 1 s of warm-up outside the measurement; lost or reordered echoes
# are counted.
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-5}
TRANSPORTS=${2:-ws enet}
ROUNDS=${3:-1}
COUNTS=${4:-100 1000}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}
cargo build -q --release -p gdvariant-multiplayer --features server-ws,server-enet --example echo_server --example mp_loadgen
BIN=$CARGO_TARGET_DIR/release/examples
PIN_S="taskset -c 0"; PIN_L="taskset -c 1"
[ "$(nproc)" -ge 2 ] || { PIN_S=""; PIN_L=""; }
# MP_SERVER_RT=1: server and generator under SCHED_FIFO (root), so that on a machine busy with
# other work they get their core when they wake (otherwise the tails measure the scheduler);
# the generator not in the open-loop rows, where it spins (see load below).
if [ "${MP_SERVER_RT:-0}" = 1 ]; then PIN_S="chrt -f 20 $PIN_S"; PIN_L="chrt -f 20 $PIN_L"; fi
TMP=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$TMP"; }
trap cleanup EXIT

free_port() { python3 -c 'import socket,sys; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM if sys.argv[1]=="enet" else socket.SOCK_STREAM); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' "$1"; }

# start_rust TRANSPORT -> sets SPID, SPORT
start_rust() {
    local t=$1
    SPORT=$(free_port "$t")
    $PIN_S "$BIN/echo_server" "--$t" "127.0.0.1:$SPORT" > "$TMP/rust.log" 2>&1 &
    SPID=$!; PIDS+=("$SPID")
    for _ in $(seq 200); do grep -qs listening "$TMP/rust.log" && break; sleep 0.05; done
}

# start_godot TRANSPORT -> sets SPID (the engine process), SPORT, GWRAP
start_godot() {
    local t=$1
    SPORT=$(free_port "$t")
    mkdir -p "$TMP/godot"; rm -f "$TMP/godot/stop"
    cp tests/godot/mpserver_server4.gd "$TMP/godot/"
    printf 'transport=%s\nport=%s\nseconds=600\n' "$t" "$SPORT" > "$TMP/godot/mpserver_server.cfg"
    $PIN_S tests/godot/godot4 "$TMP/godot" mpserver_server4.gd > "$TMP/godot.log" 2>&1 &
    GWRAP=$!; PIDS+=("$GWRAP")
    # The engine takes seconds to start on a loaded machine.
    for _ in $(seq 600); do grep -q SERVER-READY "$TMP/godot.log" && break; sleep 0.1; done
    SPID=$(pgrep -P "$GWRAP" | head -1 || true)
    [ -n "$SPID" ] || SPID=$GWRAP
}

stop_server() { kill "$SPID" 2>/dev/null || true; if [ -n "${GWRAP:-}" ]; then kill "$GWRAP" 2>/dev/null || true; fi; GWRAP=""; sleep 0.3; }

# load TRANSPORT PEERS WINDOW [RATE] -> prints the RESULT line
load() {
    local t=$1 n=$2 w=$3 r=${4:-}
    local extra=()
    local pin=$PIN_L
    # Open loop: the generator spins on its core (mp_loadgen's clock), which under SCHED_FIFO the
    # kernel's real-time throttling would stop for 50 ms a second: normal scheduling there.
    [ -n "$r" ] && { extra=(--rate "$r"); pin=${PIN_L#chrt -f 20 }; }
    $pin "$BIN/mp_loadgen" "--$t" "127.0.0.1:$SPORT" --peers "$n" --window "$w" --seconds "$SECS" --pid "$SPID" "${extra[@]}" | grep RESULT
}

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }

FMT='%-7s %-5s %-5s %-9s %-11s %-9s %-12s %-7s %-7s %-7s %-5s %-5s %-9s %-8s %-8s\n'
printf "$FMT" server trans peers conn window echoes/s echoes/cpu-s p50_us p99_us p999_us srv% gen% lost/reo rss_kib kib/peer
row() {
    local who=$1 t=$2 n=$3 w=$4 res=$5 pct
    pct() { awk -v x="${1:-0}" 'BEGIN { printf "%.0f", x * 100 }'; }
    printf "$FMT" "$who" "$t" "$n" "$(field connected "$res")" "$w" \
        "$(field echoes_per_s "$res")" "$(field echoes_per_cpu_s "$res")" "$(field p50_us "$res")" \
        "$(field p99_us "$res")" "$(field p999_us "$res")" "$(pct "$(field server_cpu "$res")")" \
        "$(pct "$(field gen_cpu "$res")")" "$(field lost "$res")/$(field reordered "$res")" \
        "$(field server_rss_kib "$res")" "$(field kib_per_peer "$res")"
}

for round in $(seq "$ROUNDS"); do
    [ "$ROUNDS" = 1 ] || echo "round $round: $(uptime | sed 's/.*load/load/')"
    for t in $TRANSPORTS; do
        declare -A GODOT_SAT=()
        for n in $COUNTS; do
            for w in 1 8; do
                start_godot "$t"; res=$(load "$t" "$n" "$w" || true); stop_server
                row godot "$t" "$n" "$w" "$res"
                GODOT_SAT[$n.$w]=$(field echoes_per_s "$res")
                start_rust "$t"; res=$(load "$t" "$n" "$w" || true); stop_server
                row rust "$t" "$n" "$w" "$res"
            done
            # The crate's server at the Godot server's saturation rate (the higher of its two
            # closed-loop rates: at 1000 WebSocket peers window 1 can beat window 8), open loop.
            sat=$(( ${GODOT_SAT[$n.1]:-0} > ${GODOT_SAT[$n.8]:-0} ? ${GODOT_SAT[$n.1]:-0} : ${GODOT_SAT[$n.8]:-0} ))
            if [ "${sat:-0}" != "0" ] && [ -n "$sat" ]; then
                start_rust "$t"; res=$(load "$t" "$n" 64 "$sat" || true); stop_server
                row rust@g "$t" "$n" "r=$sat" "$res"
            fi
        done
        # Memory per connected peer, the peers idle (10 calls a second in all).
        for n in $COUNTS; do
            start_godot "$t"; res=$(load "$t" "$n" 1 10 || true); stop_server
            row godot "$t" "$n" idle "$res"
            start_rust "$t"; res=$(load "$t" "$n" 1 10 || true); stop_server
            row rust "$t" "$n" idle "$res"
        done
    done
done
echo "conn: peers connected (and ready) when the calls started; echoes/cpu-s: echoes per CPU-second of"
echo "the server process; srv%/gen%: CPU of the server / the load generator over the measured time"
echo "(100 = one core); lost/reo: echoes lost / reordered; rust@g: the crate's server at the Godot"
echo "server's saturation rate (its higher closed-loop rate), open loop; idle: memory, 1 s after every peer connected."
