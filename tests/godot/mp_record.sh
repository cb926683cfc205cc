#!/usr/bin/env bash
# Records the multiplayer sessions again into tests/data/multiplayer/ (godot4.tsv, godot3.tsv)
# with the installed engines (tests/godot/install.sh). `mp_record.sh 4` or `mp_record.sh 3` for one.
# multiplayer/tests/multiplayer/live.rs records them again in CI and compares with the committed files.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
data=$here/../data/multiplayer
mkdir -p "$data"
for n in ${1:-4 3}; do
    dir=$(mktemp -d)
    cp "$here/mp_record$n.gd" "$dir/"
    if ! "$here/godot$n" "$dir" "mp_record$n.gd" | grep -q MP-DONE; then
        echo "mp_record$n.gd did not finish (scratch dir kept: $dir)" >&2
        exit 1
    fi
    cp "$dir/mp${n}_packets.tsv" "$data/godot$n.tsv"
    rm -rf "$dir"
    echo "wrote $data/godot$n.tsv ($(grep -c '^pkt' "$data/godot$n.tsv") packets)"
done
