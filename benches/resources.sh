#!/usr/bin/env bash
# The resource table: peak memory and time per input byte of every entry point (library and
# command-line tool) on adversarial inputs, at SIZE KiB and twice that (default 2048): see
# cli/benches/resources.rs. Prints the table and writes it into tests/README.md between the markers
# <!-- resources:begin --> and <!-- resources:end --> of tests/README.md (with the machine and the size).
# Usage: bash benches/resources.sh [SIZE_KIB]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
size=${1:-2048}
table=$(cargo bench --quiet -p gdvariant-cli --bench resources -- "$size")
echo "$table"
machine="$(uname -m), $(nproc) CPUs, $(uname -sr); $(rustc --version); inputs of ${size} KiB and $((2 * size)) KiB"
python3 - "$machine" "$table" <<'PY'
import re, sys
machine, table = sys.argv[1], sys.argv[2]
p = "tests/README.md"
s = open(p).read()
block = f"<!-- resources:begin -->\nMachine: {machine}\n\n{table}\n<!-- resources:end -->"
s2, n = re.subn(r"<!-- resources:begin -->.*?<!-- resources:end -->", lambda m: block, s, flags=re.S)
if n != 1:
    sys.exit("tests/README.md has no resources markers")
open(p, "w").write(s2)
print("tests/README.md updated", file=sys.stderr)
PY
