#!/usr/bin/env bash
# scripts/fuzz.sh [FUZZTIME]: runs every Go fuzz target of the module, one
# after the other, for FUZZTIME each (default 10s; any -fuzztime value:
# 30s, 2m, 5000x), and prints a table of targets, executions, new
# interesting inputs (coverage the run found that the corpus lacked) and
# results.
# Exits non-zero if a target failed; its failing input is then in the
# package's testdata/fuzz/<Target>/ (commit it once fixed: `go test` runs
# it from then on). A "flake" is Go's own deadline race (see below), not
# a failure.
#
# Environment:
#   FUZZ_PKGS      packages to search for targets (default ./...)
#   FUZZ_MINIMIZE  -fuzzminimizetime (default 200x: a short run spends its
#                  time fuzzing, not minimizing each new input for up to a
#                  minute; raise it to minimize a crasher further)
#   FUZZ_CACHE     where the generated corpus is kept between runs (default:
#                  a fresh directory per run, so each target replays only the
#                  committed corpus and its seeds and fuzzes for all of
#                  FUZZTIME: in the large test binaries (those that link the
#                  SQLite backend) replaying one cached input costs ~40 ms, and
#                  a cache that grows run after run would eat the whole
#                  budget. For long local runs, FUZZ_CACHE=$(go env GOCACHE)/fuzz
#                  shares go test's.)
#
# make test runs it with TEST_FUZZTIME (4s): 19 targets at 4s is 76 s of
# fuzzing, plus one instrumented build per package and a corpus replay per
# target, about 2.5 minutes on 2 shared cores with a warm build cache (the
# first run also compiles the instrumented packages: 4 minutes). Go fuzzes one target
# per process, so the targets of a package share one test binary, built
# once, and run one after the other. make fuzz runs them long (FUZZTIME,
# default 10m).
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${1:-10s}
pkgs=${FUZZ_PKGS:-./...}
minimize=${FUZZ_MINIMIZE:-200x}

# The targets are found in the sources (func FuzzX(f *testing.F) in a
# _test.go file), not with go test -list, which would build the test
# binary of every package of the module just to list four packages'.
targets=()
while read -r dir; do
  pkg=$(go list "$dir")
  for n in $(grep -ho '^func Fuzz[A-Za-z0-9_]*(f \*testing\.F)' "$dir"/*_test.go | sed 's/^func \(Fuzz[A-Za-z0-9_]*\).*/\1/' | sort); do
    targets+=("$pkg $n")
  done
done < <(go list -f '{{.Dir}}' $pkgs | while read -r d; do
  if grep -qs '^func Fuzz[A-Za-z0-9_]*(f \*testing\.F)' "$d"/*_test.go; then echo "$d"; fi
done)

if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz: no fuzz targets in $pkgs" >&2
  exit 1
fi
echo "fuzz: ${#targets[@]} targets, $fuzztime each"

# One instrumented test binary per package (go test -c -fuzz), run once per
# target from the package's directory, with the corpus cache go test uses.
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
cache=${FUZZ_CACHE:-$bin/corpus}
# count_inputs DIR: the committed inputs of a target (0 without a corpus).
count_inputs() { { find "$1" -type f 2>/dev/null || true; } | wc -l; }

failed=0
summary=()
built=""
for t in "${targets[@]}"; do
  pkg=${t% *}
  name=${t#* }
  exe=$bin/$(echo "$pkg" | tr / _).test
  if [ "$built" != "$pkg" ]; then
    go test -c -fuzz . -o "$exe" "$pkg"
    built=$pkg
  fi
  dir=$(go list -f '{{.Dir}}' "$pkg")
  inputs=$(count_inputs "$dir/testdata/fuzz/$name")
  log=$(mktemp)
  start=$SECONDS
  if (cd "$dir" && "$exe" -test.run '^$' -test.fuzz "^${name}\$" -test.fuzztime "$fuzztime" \
    -test.fuzzminimizetime "$minimize" -test.fuzzcachedir "$cache/$pkg") >"$log" 2>&1; then
    result=ok
  elif [ "$(count_inputs "$dir/testdata/fuzz/$name")" = "$inputs" ] && grep -q '^    context deadline exceeded$' "$log"; then
    # Go's coordinator can report the -fuzztime deadline itself as a
    # failure, with no failing input (go.dev/issue/75804, fixed in Go
    # 1.27). A real failure always writes its input.
    result=flake
  else
    result=FAIL
    failed=1
    cat "$log"
  fi
  # No "execs" line: the time went to replaying the corpus (it grows in
  # the cache with every run) before any new input ran.
  execs=$(grep -o 'execs: [0-9]*' "$log" | tail -1 | cut -d' ' -f2 || true)
  # New interesting inputs: those this run added to the generated corpus
  # (coverage it had not seen), from Go's last progress line.
  fresh=$(grep -o 'new interesting: [0-9]*' "$log" | tail -1 | cut -d' ' -f3 || true)
  summary+=("$(printf '%-5s %-30s %-26s %10s execs %6s new %4ss' "$result" "${pkg#github.com/agentmem/agentmem/}" "$name" "${execs:-0}" "${fresh:-0}" $((SECONDS - start)))")
  echo "${summary[-1]}"
  rm -f "$log"
done

echo
echo "fuzz: summary ($fuzztime per target)"
printf '%s\n' "${summary[@]}"
exit $failed
