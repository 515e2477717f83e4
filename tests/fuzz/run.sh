#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run.sh SECONDS - runs every libFuzzer target for SECONDS seconds each, one
# after the other, starting from its seed corpus (copied into a scratch
# directory, so the tree's corpus is never written). Builds nothing: the
# targets come from $BUILD_FUZZ (default build-fuzz, relative to the source
# tree), configured with
#   CC=clang cmake -S . -B build-fuzz -DDP_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug
#   cmake --build build-fuzz --target fuzz
# Exits 1 when a target crashed, leaked, timed out or ran out of memory; the
# reproducer and the fuzzer's log are kept under $FUZZ_OUT (default: a
# scratch directory, printed). Set FUZZ_TARGETS to run a subset.
set -u

if [ $# -ne 1 ] || ! [[ $1 =~ ^[0-9]+$ ]] || [ "$1" -eq 0 ]; then
	echo "usage: $0 SECONDS" >&2
	exit 2
fi
secs=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_FUZZ:-build-fuzz}
case $build in /*) ;; *) build=$src/$build ;; esac
targets=${FUZZ_TARGETS:-fuzz_profile fuzz_units fuzz_results}
# Scratch space on tmpfs when there is one: fuzz_results writes a results
# file per input.
base=${TMPDIR:-/tmp}
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
	base=/dev/shm
fi
if [ -n "${FUZZ_OUT:-}" ]; then
	out=$FUZZ_OUT
	keep=1
else
	out=$(mktemp -d "$base/diskproof-fuzz.XXXXXX") || exit 2
	keep=0
fi
# The targets' own scratch files (fuzz_results) go under $out too, so that a
# crashed target leaves nothing behind elsewhere.
mkdir -p "$out/tmp"
export TMPDIR=$out/tmp

failed=0
for t in $targets; do
	bin=$build/tests/fuzz/$t
	if [ ! -x "$bin" ]; then
		echo "$t: not built ($bin missing)" >&2
		failed=1
		continue
	fi
	corpus=$out/$t.corpus
	rm -rf "$corpus"
	mkdir -p "$corpus" "$out/$t.artifacts"
	cp -r "$src/tests/fuzz/corpus/$t/." "$corpus/"
	echo "== $t: ${secs}s"
	"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$out/$t.artifacts/" "$corpus" >"$out/$t.log" 2>&1
	rc=$?
	grep -E '^#[0-9]+[[:space:]]+DONE' "$out/$t.log" | tail -1
	grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' \
		"$out/$t.log" | tr -s ' \n' ' '
	echo
	if [ $rc -ne 0 ] || ls "$out/$t.artifacts/"* >/dev/null 2>&1; then
		echo "$t: FAILED (exit $rc); log $out/$t.log, inputs in $out/$t.artifacts/" >&2
		grep -E 'ERROR:|SUMMARY:|check failed|runtime error' "$out/$t.log" | head -5 >&2
		failed=1
	fi
done
if [ $failed -eq 0 ]; then
	[ $keep -eq 1 ] || rm -rf "$out"
	echo "fuzz: all targets ran ${secs}s without a finding"
fi
exit $failed
