#!/usr/bin/env bash
# The side-by-side benchmark: the engine's own bytes_to_var / var_to_bytes (timed in GDScript,
# benches/engine/time_engine.gd) and gdvariant's operations (criterion, benches/vs_engine.rs) on
# the same engine-written packets (benches/data/), in one run on this machine; prints a Markdown
# table of ratios "engine time / gdvariant time" (higher is better for gdvariant), with the
# machine and the absolute times beside them.
#
# Usage: bash benches/vs_engine.sh        (install the engine first: bash tests/godot/install.sh)
#        VS_ENGINE_ROUNDS=5 bash benches/vs_engine.sh
# Needs Godot 4 (through tests/godot/godot4) and python3. Without the engine it says so and exits
# 2 without timing anything: a ratio needs both sides measured in the same run.
# Both sides run on one CPU (taskset, when available), one after the other, in rounds (3 unless
# VS_ENGINE_ROUNDS says otherwise): each round times the engine, then gdvariant, and gives each
# row a ratio; the table shows the round with the median ratio (the lower middle one for an even
# count), and the range over the rounds.
# (A shared machine has bursts of noise that last a whole measurement, and they hit either side:
# one round can be off by far more than the difference it is meant to show.)
# Rows: the ROWS table in the Python part below maps a criterion id to the engine function it is
# compared with; ids that the benches do not produce (yet) are skipped.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
cd "$REPO"

if ! tests/godot/godot4 --version >/dev/null 2>&1; then
    echo "vs_engine: Godot 4 is not installed (bash tests/godot/install.sh): no ratios without the engine" >&2
    exit 2
fi
pin=()
if command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -gt 1 ]; then pin=(taskset -c 1); fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/gdvariant-vs-engine.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
cp "$HERE/engine/time_engine.gd" "$scratch/"

rounds=${VS_ENGINE_ROUNDS:-3}
case "$rounds" in ''|*[!0-9]*|0) echo "vs_engine: VS_ENGINE_ROUNDS must be a positive number" >&2; exit 2;; esac
benches=(--bench vs_engine)
if grep -q '^name = "serde"' Cargo.toml && [ -f benches/serde.rs ]; then
    benches+=(--bench serde --features serde)
fi
for round in $(seq "$rounds"); do
    echo "vs_engine: round $round of $rounds: timing the engine (Godot $(tests/godot/godot4 --version 2>/dev/null | tail -n1))..." >&2
    "${pin[@]}" tests/godot/godot4 "$scratch" time_engine.gd -- "$REPO/benches/data" > "$scratch/engine.log" 2>&1 || true
    if ! grep -q '^time_engine: done' "$scratch/engine.log"; then
        echo "vs_engine: the engine timing failed:" >&2
        tail -n 20 "$scratch/engine.log" >&2
        exit 1
    fi
    grep -P '^engine\t' "$scratch/engine.log" > "$scratch/engine.$round.tsv"

    echo "vs_engine: round $round of $rounds: timing gdvariant (cargo bench ${benches[*]})..." >&2
    "${pin[@]}" cargo bench -q "${benches[@]}" -- --noplot >&2
    # Each round's estimates, kept apart (criterion's directory holds the last run only).
    mkdir -p "$scratch/criterion.$round"
    cp -r "${CARGO_TARGET_DIR:-$REPO/target}/criterion/." "$scratch/criterion.$round/"
done

python3 - "$scratch" "$rounds" "$(tests/godot/godot4 --version 2>/dev/null | tail -n1)" <<'PY'
import json, os, platform, subprocess, sys

scratch, rounds, version = sys.argv[1], int(sys.argv[2]), sys.argv[3]
engine = []
for r in range(1, rounds + 1):
    times = {}
    for line in open(os.path.join(scratch, f"engine.{r}.tsv")):
        _, packet, function, ns = line.rstrip("\n").split("\t")
        times[(packet, function)] = float(ns)
    engine.append(times)

# (row label, criterion id, engine packet, engine function)
ROWS = [
    ("1.8 MB game-state packet: `validate` vs `bytes_to_var`", "vs_engine_game_state/validate", "game_state", "bytes_to_var"),
    ("same: `to_owned` vs `bytes_to_var`", "vs_engine_game_state/to_owned", "game_state", "bytes_to_var"),
    ("same: `encode` of the owned tree vs `var_to_bytes`", "vs_engine_game_state/encode", "game_state", "var_to_bytes"),
    ("same: serde `from_slice` into borrowed structs vs `bytes_to_var`", "serde_game_state/from_slice", "game_state", "bytes_to_var"),
    ("212-byte input packet: `validate` + three `get`s vs `bytes_to_var`", "vs_engine_input_packet/validate_get3", "input_packet", "bytes_to_var"),
    ("same: `validate` + `get_many` of the three keys vs `bytes_to_var`", "vs_engine_input_packet/validate_get_many", "input_packet", "bytes_to_var"),
    ("same: `validate_get_many` of the three keys (one pass) vs `bytes_to_var`", "vs_engine_input_packet/validate_get_many_one_pass", "input_packet", "bytes_to_var"),
    ("same: `to_owned` vs `bytes_to_var`", "vs_engine_input_packet/to_owned", "input_packet", "bytes_to_var"),
    ("same: `encode` vs `var_to_bytes`", "vs_engine_input_packet/encode", "input_packet", "var_to_bytes"),
    ("same: serde `from_slice` into a struct vs `bytes_to_var`", "serde_input_packet/from_slice", "input_packet", "bytes_to_var"),
    ("same: serde `from_slice` into a struct of three of its fields vs `bytes_to_var`", "serde_input_packet/from_slice_three_fields", "input_packet", "bytes_to_var"),
    ("same: serde `to_vec` vs `var_to_bytes`", "serde_input_packet/to_vec", "input_packet", "var_to_bytes"),
]

def fmt(ns):
    if ns >= 1e6:
        return "%.2f ms" % (ns / 1e6)
    if ns >= 1e3:
        return "%.2f µs" % (ns / 1e3)
    return "%.0f ns" % ns

def cpu():
    try:
        for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"

rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.strip()
print(f"Machine: {cpu()}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}; {rustc}; Godot {version}")
print()
print(f"{rounds} round(s); each row shows the round with its median ratio, and the range over the rounds.")
print()
print("| workload | engine | gdvariant | engine / gdvariant | range |")
print("|---|---:|---:|---:|---:|")
for label, cid, packet, function in ROWS:
    runs = []
    for r in range(1, rounds + 1):
        path = os.path.join(scratch, f"criterion.{r}", *cid.split("/"), "new", "estimates.json")
        if not os.path.exists(path) or (packet, function) not in engine[r - 1]:
            continue
        ours = json.load(open(path))["median"]["point_estimate"]
        theirs = engine[r - 1][(packet, function)]
        runs.append((theirs / ours, theirs, ours))
    if not runs:
        continue
    runs.sort()
    ratio, theirs, ours = runs[(len(runs) - 1) // 2]
    spread = f"{runs[0][0]:.1f}–{runs[-1][0]:.1f}×" if len(runs) > 1 else "—"
    print(f"| {label} | {fmt(theirs)} | {fmt(ours)} | {ratio:.1f}× | {spread} |")
PY
