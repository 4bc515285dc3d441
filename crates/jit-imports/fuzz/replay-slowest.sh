#!/bin/bash
# Replays every seed of TARGET once with the fuzz build, then re-times the 40
# slowest and the 40 largest with 100 runs each; prints the three slowest as
# "total ms for 100 runs, bytes, file". Run from crates/jit-imports/fuzz after
# `cargo +nightly fuzz build -s none`.
set -euo pipefail
t=$1
bin=target/x86_64-unknown-linux-gnu/release/$t
first=$(mktemp)
find "seeds/$t" -type f -print0 | xargs -0 -n 1000 "$bin" 2>&1 | grep '^Executed' > "$first"
echo "replayed $(wc -l < "$first") files"
{ sort -k4 -n "$first" | tail -40 | awk '{print $2}'; ls -S "seeds/$t" | head -40 | sed "s|^|seeds/$t/|"; } |
  sort -u | while read -r f; do
    ms=$("$bin" -runs=100 "$f" 2>&1 | grep '^Executed' | awk '{print $(NF-1)}')
    echo "$ms $(wc -c < "$f") $f"
  done | sort -n | tail -3
rm -f "$first"
