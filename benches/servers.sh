#!/usr/bin/env bash
# Load comparison: the example server (examples/server/, one tokio thread) against the same work done by
# Godot 4 in GDScript (benches/servers/godot_server.gd), both driven by examples/loadgen.rs over loopback with
# the engine-written packets of the repository (the 212-byte input packet every other request, the Godot 4
# golden values in between), every reply checked byte for byte.
#
#   bash benches/servers.sh            # 10 s per measurement, then the 60 s memory run (about 2 minutes)
#   SECONDS_EACH=5 LONG=20 bash benches/servers.sh
#
# Each server is pinned to CPU 0 and the load generator to CPU 1 (taskset), so "per core" is one core.
# Measured:
#   1. saturation: CONNECTIONS connections with WINDOW requests in flight each: replies/s, and replies per
#      second of the server's own CPU time (from /proc) = packets/s per core. The generator can be the
#      bottleneck for the Rust server (it then idles): the per-core figure does not depend on that.
#   2. latency at a fixed offered load = the Godot server's saturation throughput (open loop, evenly spread):
#      p50 / p99 / p99.9 for both servers.
#   3. memory: the Rust server for LONG seconds at that load, with misbehaving clients (garbage, an oversize
#      prefix, malformed values, a stall mid-frame, a client that never reads): RSS sampled every second,
#      every bad client dropped (with the reason in the server's log), no reply lost or reordered.
# Prints a Markdown table (paste it into docs/servers.md with the machine line).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
SECONDS_EACH=${SECONDS_EACH:-10}
LONG=${LONG:-60}
CONNECTIONS=${CONNECTIONS:-8}
WINDOW=${WINDOW:-32}
WARMUP=${WARMUP:-2}
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

pin() { if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then taskset -c "$1" "${@:2}"; else "${@:2}"; fi; }

cargo build --release --features tokio --example server --example loadgen >&2
bin=target/release/examples
tests/godot/godot4 --version >/dev/null 2>&1 || { echo "Godot 4 is not installed (tests/godot/install.sh)" >&2; exit 1; }

# start_rust -> sets ADDR and PID
start_rust() {
    pin 0 "$bin/server" --tcp 127.0.0.1:0 --threads 1 --frame-timeout 2 >"$work/rust.out" 2>"$work/rust.err" &
    pids+=("$!")
    for _ in $(seq 100); do grep -q listening "$work/rust.out" && break; sleep 0.05; done
    ADDR=$(sed -n 's/^listening tcp=\([^ ]*\).*/\1/p' "$work/rust.out")
    PID=$(sed -n 's/^listening .* pid=\([0-9]*\).*/\1/p' "$work/rust.out")
}
stop_rust() { kill -TERM "$PID"; while kill -0 "$PID" 2>/dev/null; do sleep 0.05; done; }
# start_godot SECONDS -> sets ADDR and PID
start_godot() {
    cp benches/servers/godot_server.gd "$work/"
    PORT=0 SECONDS_LIMIT=$1 pin 0 tests/godot/godot4 "$work" godot_server.gd >"$work/godot.out" 2>"$work/godot.err" &
    pids+=("$!"); GWRAP=$!
    for _ in $(seq 200); do grep -q listening "$work/godot.out" && break; sleep 0.05; done
    ADDR=$(sed -n 's/^listening tcp=\([^ ]*\) .*/\1/p' "$work/godot.out")
    PID=$(sed -n 's/^listening .* pid=\([0-9]*\).*/\1/p' "$work/godot.out")
}
stop_godot() { kill -TERM "$PID" 2>/dev/null || true; wait "$GWRAP" 2>/dev/null || true; }
load() { pin 1 "$bin/loadgen" --addr "$ADDR" --server-pid "$PID" --connections "$CONNECTIONS" --warmup "$WARMUP" "$@"; }
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }

echo "== saturation: Godot 4 GDScript server" >&2
start_godot $((SECONDS_EACH + WARMUP + 10)); g_sat=$(load --window "$WINDOW" --seconds "$SECONDS_EACH" | tail -n1); stop_godot; echo "$g_sat" >&2
echo "== saturation: gdvariant example server" >&2
start_rust; r_sat=$(load --window "$WINDOW" --seconds "$SECONDS_EACH" | tail -n1); stop_rust; echo "$r_sat" >&2

rate=$(field rate "$g_sat")
echo "== latency at $rate/s: Godot 4" >&2
start_godot $((SECONDS_EACH + WARMUP + 10)); g_lat=$(load --rate "$rate" --seconds "$SECONDS_EACH" | tail -n1); stop_godot; echo "$g_lat" >&2
echo "== latency at $rate/s: gdvariant" >&2
start_rust; r_lat=$(load --rate "$rate" --seconds "$SECONDS_EACH" | tail -n1); stop_rust; echo "$r_lat" >&2

echo "== $LONG s at $rate/s with misbehaving clients: gdvariant" >&2
start_rust
long_out=$(load --rate "$rate" --seconds "$LONG" --bad-clients || true)
stop_rust
echo "$long_out" >&2
r_long=$(tail -n1 <<<"$long_out")
drops=$(grep -c 'dropped:' "$work/rust.err" || true)

per_core_ratio=$(awk -v a="$(field per_core "$r_sat")" -v b="$(field per_core "$g_sat")" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "-" }')
echo
echo "Machine: $(lscpu | sed -n 's/^Model name: *//p' | head -n1), $(nproc) CPUs, Linux $(uname -r); $(rustc --version | cut -d' ' -f1-2); Godot $(tests/godot/godot4 --version | tail -n1); load average before the run: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| measurement | Godot 4 (GDScript) | gdvariant example server |"
echo "|---|---:|---:|"
echo "| saturation, $CONNECTIONS connections × $WINDOW in flight: replies/s | $(field rate "$g_sat") | $(field rate "$r_sat") |"
echo "| replies per second of server CPU (packets/s per core) | $(field per_core "$g_sat") | $(field per_core "$r_sat") ($per_core_ratio×) |"
echo "| at $rate requests/s (Godot's saturation): p50 / p99 / p99.9 latency | $(field p50_us "$g_lat") / $(field p99_us "$g_lat") / $(field p999_us "$g_lat") µs | $(field p50_us "$r_lat") / $(field p99_us "$r_lat") / $(field p999_us "$r_lat") µs |"
echo "| replies lost, reordered or wrong (all runs) | $(( $(field errors "$g_sat") + $(field errors "$g_lat") )) | $(( $(field errors "$r_sat") + $(field errors "$r_lat") + $(field errors "$r_long") )) |"
echo "| $LONG s at $rate/s with 5 misbehaving clients: RSS first / last / max (KiB) | - | $(field rss_first_kib "$r_long") / $(field rss_last_kib "$r_long") / $(field rss_max_kib "$r_long") |"
echo "| misbehaving clients dropped (logged reasons) | - | $(grep -c '^BAD .* dropped after' <<<"$long_out" || true) of 5 ($drops) |"
