#!/usr/bin/env bash
# `gdvariant capture` against `tshark -r` on the same large captures of real Godot traffic, side by
# side in one run (issue #29, point 6), for two captures built from the committed ones
# (cli/benches/capture_gen.py replicates them, every copy's flows on addresses of their own):
#   game:     tests/data/captures/godot4_game.pcap, game-like Godot 4.6 ENet traffic (small
#             unreliable state RPCs every frame, reliable inputs, snapshots back; recorded from
#             cli/benches/capture_game4.gd with `bash cli/benches/capture.sh --record`);
#   sessions: every other committed capture (WebSocket and ENet sessions of Godot 4.6 and 3.2.3,
#             a put_var stream), whose 70 000-, 5000- and 3000-byte PackedByteArrays make most
#             of the output (every byte printed as a number).
# For each: builds FILE (at least SIZE MB, default 100) once, then ROUNDS times (default 3)
# `gdvariant capture FILE > /dev/null` (every message of every flow in engine text) and
# `tshark -r FILE > /dev/null` (its one-line summary of every packet), wall time (as a user sees
# it), CPU time (user + system, every thread) and peak RSS from /usr/bin/time -v; prints a table
# and the ratios of the medians. gdvariant formats on every core (--threads, default one more
# than the cores); tshark -r uses one.
# Usage: bash cli/benches/capture.sh [SIZE_MB] [ROUNDS]
#        bash cli/benches/capture.sh --record   (records godot4_game.pcap again: root, tcpdump, Godot 4)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
size_mb=${1:-100}
rounds=${2:-3}
target=${CARGO_TARGET_DIR:-$root/target}
file=${CAPTURE_BENCH_FILE:-$target/capture-bench.pcap}
command -v tshark >/dev/null || { echo "capture.sh: tshark not installed (apt-get install tshark)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "capture.sh: /usr/bin/time not installed (apt-get install time)" >&2; exit 1; }
if [ "${1:-}" = --record ]; then
    command -v tcpdump >/dev/null || { echo "capture.sh: tcpdump not installed" >&2; exit 1; }
    dir=$(mktemp -d)
    chmod 755 "$dir"
    cp "$root/cli/benches/capture_game4.gd" "$dir/"
    port=$((40000 + RANDOM % 20000))
    echo "$port" >"$dir/capture_port.txt"
    tcpdump -i lo -U -w "$dir/game.pcap" "udp port $port" 2>"$dir/tcpdump.log" &
    tpid=$!
    for _ in $(seq 50); do grep -q listening "$dir/tcpdump.log" && break; sleep 0.1; done
    "$root/tests/godot/godot4" "$dir" capture_game4.gd >"$dir/stdout.log" 2>&1 || true
    sleep 0.5
    kill -INT "$tpid"; wait "$tpid" || true
    grep -q CAPTURE-DONE "$dir/stdout.log" || { cat "$dir/stdout.log" >&2; echo "capture_game4.gd failed (kept $dir)" >&2; exit 1; }
    cp "$dir/game.pcap" "$root/tests/data/captures/godot4_game.pcap"
    echo "wrote tests/data/captures/godot4_game.pcap ($(grep captured "$dir/tcpdump.log"))"
    rm -rf "$dir"
    exit 0
fi
(cd "$root" && cargo build --quiet --release -p gdvariant-cli)
bin=$target/release/gdvariant
mkdir -p "$(dirname "$file")"
sessions=()
for f in "$root"/tests/data/captures/*.pcap; do
    [ "$(basename "$f")" = godot4_game.pcap ] || sessions+=("$f")
done

# measure CMD... -> prints "wall_seconds cpu_seconds max_rss_kb"
measure() {
    local log t0 t1
    log=$(mktemp)
    # Wall time from the shell's microsecond clock around /usr/bin/time (whose own elapsed time
    # has 10 ms steps, 4 % of a 0.25 s run); CPU time and peak RSS from /usr/bin/time.
    t0=$EPOCHREALTIME
    /usr/bin/time -v "$@" >/dev/null 2>"$log" || true
    t1=$EPOCHREALTIME
    local rss user sys
    rss=$(grep 'Maximum resident set size' "$log" | awk '{print $NF}')
    user=$(grep 'User time (seconds)' "$log" | awk '{print $NF}')
    sys=$(grep 'System time (seconds)' "$log" | awk '{print $NF}')
    rm -f "$log"
    awk -v t0="$t0" -v t1="$t1" -v rss="$rss" -v cpu="$(echo "$user + $sys" | bc -l)" \
        'BEGIN { printf "%.3f %.3f %d\n", t1 - t0, cpu, rss }'
}
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

# bench NAME FILE SOURCES...
bench() {
    local name=$1 file=$2
    shift 2
    if [ ! -f "$file" ] || [ "$(stat -c %s "$file")" -lt $((size_mb * 1000000)) ]; then
        python3 "$root/cli/benches/capture_gen.py" "$file" $((size_mb * 1000000)) "$@"
    fi
    local bytes lines packets g=() t=() gc=() tc=() gr=() r gs gcpu grss ts tcpu trss
    bytes=$(stat -c %s "$file")
    lines=$("$bin" capture "$file" | wc -l)
    packets=$(tshark -r "$file" 2>/dev/null | wc -l)
    echo
    echo "== $name: $file, $bytes bytes, $packets packets; gdvariant capture prints $lines lines"
    printf '%-7s %-20s %10s %10s %14s\n' round command "wall s" "CPU s" "peak RSS MiB"
    for r in $(seq "$rounds"); do
        read -r gs gcpu grss < <(measure "$bin" capture "$file")
        read -r ts tcpu trss < <(measure tshark -r "$file")
        printf '%-7s %-20s %10s %10s %14.1f\n' "$r" "gdvariant capture" "$gs" "$gcpu" "$(echo "$grss / 1024" | bc -l)"
        printf '%-7s %-20s %10s %10s %14.1f\n' "$r" "tshark -r" "$ts" "$tcpu" "$(echo "$trss / 1024" | bc -l)"
        g+=("$gs") t+=("$ts") gc+=("$gcpu") tc+=("$tcpu") gr+=("$grss")
    done
    local gm tm gcm tcm
    gm=$(median "${g[@]}") tm=$(median "${t[@]}") gcm=$(median "${gc[@]}") tcm=$(median "${tc[@]}")
    echo "$name: median gdvariant capture $gm s wall, $gcm s CPU ($(echo "$bytes / $gm / 1000000" | bc -l | xargs printf '%.0f') MB/s, peak RSS $(echo "$(median "${gr[@]}") / 1024" | bc -l | xargs printf '%.1f') MiB); tshark -r $tm s wall, $tcm s CPU: ratio $(echo "$tm / $gm" | bc -l | xargs printf '%.1f')x wall, $(echo "$tcm / $gcm" | bc -l | xargs printf '%.1f')x CPU"
}

echo "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); $(tshark --version | head -n 1)"
bench game "${file%.pcap}-game.pcap" "$root/tests/data/captures/godot4_game.pcap"
bench sessions "${file%.pcap}-sessions.pcap" "${sessions[@]}"
