#!/usr/bin/env bash
# Runs every fuzz target for N executions each (default 10 million), one after the other, on
# its committed corpus, and prints a table: target, executions, seconds, executions per second,
# findings (crash, leak, timeout and OOM inputs left in fuzz/artifacts/<target>/).
#
# Usage: bash fuzz/run_all.sh [N] [target...]
#   N        executions per target (libFuzzer's -runs=N); 10000000 by default
#   target   only these targets (default: every target `cargo fuzz list` gives)
# Environment: FUZZ_ARGS adds libFuzzer arguments (e.g. FUZZ_ARGS="-jobs=2 -workers=2"),
#   MAX_SECONDS bounds each target's time as well (libFuzzer's -max_total_time),
#   TIMEOUT is libFuzzer's per-input limit in seconds (30 by default),
#   SANITIZER=none builds without AddressSanitizer (cargo fuzz -s none: the crate forbids
#   unsafe code, so the checks that matter are its own panics and assertions; about twice
#   the executions per second on the slow targets).
#
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`). New inputs that
# add coverage are written to the corpus: minimise it afterwards with
# `cargo +nightly fuzz cmin -O <target>` before committing. A finding is a failing input: make it
# a regression (copy it to fuzz/regressions/<target>/ with a descriptive name; the stable replay
# in tests/fuzz/fuzz_corpus.rs runs it) and fix the bug.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

runs=${1:-10000000}
shift || true
if [ $# -gt 0 ]; then
    targets=("$@")
else
    mapfile -t targets < <(cargo +nightly fuzz list)
fi

san=()
if [ -n "${SANITIZER:-}" ]; then san=(-s "$SANITIZER"); fi
cargo +nightly fuzz build -O "${san[@]}" >/dev/null || { echo "build failed" >&2; exit 2; }

logs=$(mktemp -d)
rows=()
total_findings=0
for t in "${targets[@]}"; do
    mkdir -p "corpus/$t"
    before=$(find "artifacts/$t" -type f 2>/dev/null | wc -l)
    start=$(date +%s)
    extra=()
    if [ -n "${MAX_SECONDS:-}" ]; then extra+=("-max_total_time=$MAX_SECONDS"); fi
    # shellcheck disable=SC2086
    cargo +nightly fuzz run -O "${san[@]}" "$t" -- -runs="$runs" -rss_limit_mb=2048 -timeout="${TIMEOUT:-30}" \
        -print_final_stats=1 "${extra[@]}" ${FUZZ_ARGS:-} >"$logs/$t.log" 2>&1
    status=$?
    secs=$(( $(date +%s) - start ))
    execs=$(grep -h 'stat::number_of_executed_units' "$logs/$t.log" | awk '{s += $2} END {print s + 0}')
    after=$(find "artifacts/$t" -type f 2>/dev/null | wc -l)
    findings=$(( after - before ))
    if [ "$status" -ne 0 ] && [ "$findings" -eq 0 ]; then findings="exit $status"; fi
    total_findings=$(( total_findings + ${findings//[!0-9]/} ))
    rate=$(( secs > 0 ? execs / secs : execs ))
    rows+=("| $t | $execs | $secs | $rate | $findings |")
    echo "$t: $execs executions in ${secs}s, findings: $findings (log: $logs/$t.log)" >&2
done

echo
echo "| target | executions | seconds | executions/s | findings |"
echo "|---|---:|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
[ "$total_findings" -eq 0 ]
