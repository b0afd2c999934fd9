#!/usr/bin/env bash
# ctest bench_registry: fathom-bench lists exactly the benchmarks CMake compiled into it (a file
# that forgot FATHOM_BENCH_PROGRAM would be built and never runnable), and each has its link.
#   check_registry.sh FATHOM_BENCH NAME...
set -euo pipefail
program="$1"
shift
listed="$("$program" --list | awk '/^  / {print $1}')"
expected="$(printf '%s\n' "$@" | sort)"
if [ "$listed" != "$expected" ]; then
  echo "fathom-bench lists:"; echo "$listed"; echo "CMake compiled:"; echo "$expected"
  diff <(echo "$expected") <(echo "$listed") || true
  exit 1
fi
dir="$(dirname "$program")"
for name in "$@"; do
  [ "$(readlink "$dir/$name")" = "fathom-bench" ] || { echo "no link $dir/$name -> fathom-bench"; exit 1; }
done
# An unknown name is an error that names it.
if out="$("$program" bench_no_such 2>&1)"; then echo "bench_no_such ran"; exit 1; fi
grep -q "no benchmark named bench_no_such" <<<"$out" || { echo "unexpected: $out"; exit 1; }
echo "fathom-bench: $# benchmarks registered and linked"
