#!/usr/bin/env bash
# Regenerate the golden data from real headless Godot engines (see tests/godot/README.md):
#   tests/data/decode_inputs.tsv          (from make_decode_inputs.py, engine-independent)
#   tests/data/godot4/encode.tsv, decode.tsv, conversions.tsv, examples/game_state.bin
#                                                                      (Godot 4, gen4.gd / decode4.gd / conversions4.gd)
#   tests/data/godot3/encode.tsv, decode.tsv                            (Godot 3, gen3.gd / decode3.gd)
# Usage: bash tests/godot/regen.sh [4] [3]     (default: both engines)
# Install the engines first with tests/godot/install.sh. An engine that is not installed is skipped with a
# warning and its files are left as they are. Exit status: 0 if every requested engine ran, 1 otherwise.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
DATA=$REPO/tests/data
engines=("$@")
[ ${#engines[@]} -eq 0 ] && engines=(4 3)
status=0

mkdir -p "$DATA/godot4" "$DATA/godot3" "$REPO/examples"
if command -v python3 >/dev/null 2>&1; then
    python3 "$HERE/make_decode_inputs.py" "$DATA/decode_inputs.tsv" || exit 1
else
    echo "WARNING: python3 not found; using the committed tests/data/decode_inputs.tsv" >&2
fi

# run_decode N WRAPPER SCRATCH: decode every input, recording engine crashes as `crash` and resuming after them
run_decode() {
    local n=$1 wrapper=$2 scratch=$3
    local total=$(( $(grep -c '' "$DATA/decode_inputs.tsv") * 2 ))
    local start=0 done_lines rc
    : > "$scratch/decode.tsv"
    cp "$DATA/decode_inputs.tsv" "$scratch/decode_inputs.tsv"
    cp "$HERE/decode$n.gd" "$scratch/"
    while :; do
        echo "$start" > "$scratch/decode_start.txt"
        timeout 600 "$wrapper" "$scratch" "decode$n.gd" > "$scratch/decode.log" 2>&1
        rc=$?
        if grep -q '^DECODE-DONE' "$scratch/decode.log"; then break; fi
        done_lines=$(grep -c '' "$scratch/decode.tsv")
        if [ "$done_lines" -ge "$total" ]; then break; fi
        local name mode
        name=$(sed -n "$(( done_lines / 2 + 1 ))p" "$DATA/decode_inputs.tsv" | cut -f1)
        mode=$([ $(( done_lines % 2 )) -eq 0 ] && echo plain || echo objects)
        echo "Godot $n: engine died (exit $rc) decoding $name ($mode): recorded as crash" >&2
        printf '%s\t%s\tcrash\t-\t-\n' "$name" "$mode" >> "$scratch/decode.tsv"
        start=$(( done_lines + 1 ))
    done
}

for n in "${engines[@]}"; do
    wrapper=$HERE/godot$n
    if ! version=$("$wrapper" --version 2>/dev/null | grep -v '^[[:space:]]*$' | tail -n1) || [ -z "$version" ]; then
        echo "WARNING: Godot $n is not available (run tests/godot/install.sh); its golden files are unchanged" >&2
        status=1
        continue
    fi
    scratch=$(mktemp -d "${TMPDIR:-/tmp}/gdvariant-godot$n.XXXXXX")
    cp "$HERE/gen$n.gd" "$scratch/"
    timeout 600 "$wrapper" "$scratch" "gen$n.gd" > "$scratch/gen.log" 2>&1
    if ! grep -q "^gen$n: wrote" "$scratch/gen.log" || [ ! -s "$scratch/encode.tsv" ]; then
        echo "WARNING: Godot $n generator failed (scratch kept in $scratch):" >&2
        tail -n 20 "$scratch/gen.log" >&2
        status=1
        continue
    fi
    { printf '# engine\t%s\n' "$version"; cat "$scratch/encode.tsv"; } > "$DATA/godot$n/encode.tsv"
    if [ "$n" = 4 ]; then
        cp "$scratch/game_state.bin" "$REPO/examples/game_state.bin"
        # The typed-container rule: every golden value in an Array[T] of every type.
        cp "$HERE/conversions4.gd" "$scratch/"
        if timeout 600 "$wrapper" "$scratch" conversions4.gd > "$scratch/conversions.log" 2>&1 \
            && grep -q '^CONVERSIONS-DONE' "$scratch/conversions.log"; then
            cp "$scratch/conversions.tsv" "$DATA/godot4/conversions.tsv"
        else
            echo "WARNING: Godot 4 conversions4.gd failed; tests/data/godot4/conversions.tsv unchanged" >&2
            status=1
        fi
    fi
    run_decode "$n" "$wrapper" "$scratch"
    { printf '# engine\t%s\n' "$version"; cat "$scratch/decode.tsv"; } > "$DATA/godot$n/decode.tsv"
    echo "Godot $n ($version): $(( $(grep -c '' "$DATA/godot$n/encode.tsv") - 1 )) encode cases," \
         "$(( $(grep -c '' "$DATA/godot$n/decode.tsv") - 1 )) decode results" >&2
    if [ -n "${KEEP_SCRATCH:-}" ]; then echo "scratch kept in $scratch" >&2; else rm -rf "$scratch"; fi
done
exit $status
