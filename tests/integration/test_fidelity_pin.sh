#!/bin/bash
# SPDX-License-Identifier: MIT
# The fidelity harnesses' layout of the CPUs (fid_claim, fid_pin, fid_unpin
# in tests/fidelity/lib.sh) changes the machine's own setting, the kernel's
# unbound workqueues' CPUs: it must be put back whatever the end, and two
# harnesses must not hold it at once. Tried here: a normal end; the CPU
# chosen away from the backing disk's interrupts; SIGKILL while held (the
# next harness puts it back, pinned or not); a second harness while one
# holds it (refused, the first's setting untouched); a record whose process
# number now belongs to another process (put back, not refused); a harness
# whose record was taken over (it leaves the other's mask alone). While it
# runs the test holds the harnesses' own record, so that no real harness
# starts beside it; its harnesses keep their records in its scratch
# directory.
source "$(dirname "$0")/lib.sh"
set -e
need_root "the workqueues' CPUs"
[ "$(nproc)" -ge 2 ] || { echo "skipped: needs 2 CPUs or more"; exit 77; }
command -v taskset >/dev/null || { echo "skipped: no taskset"; exit 77; }
M=/sys/devices/virtual/workqueue/cpumask
[ -w "$M" ] || { echo "skipped: $M is not writable here"; exit 77; }
# a harness: the die and note of tests/bench/lib.sh, then fid_pin's lib.sh
H=(env "WORK=$WORK" bash -c 'source "$1/tests/bench/lib.sh"; source "$1/tests/fidelity/lib.sh"; shift; eval "$1"' _ "$DP_SOURCE_DIR")

# the real harnesses' record, claimed by this test as a harness would (a
# killed one's put back first; a live one's: skipped) and held until it
# ends, so that no real harness starts beside it; its own harnesses keep
# their records in its scratch directory
die() {
	case "$*" in
	*"another fidelity harness"*) echo "skipped: $*"; exit 77 ;;
	esac
	fail "$*"
}
note() { echo "$*"; }
source "$DP_SOURCE_DIR/tests/fidelity/lib.sh"
GLOBAL=$FID_WQ_STATE
fid_claim
[ -n "$PIN_WQ_OLD" ] || fail "fid_claim found no mask"
at_exit "echo $PIN_WQ_OLD >$M" # last, whatever the library does
at_exit "FID_WQ_STATE=$GLOBAL fid_unpin"
[ -s "$GLOBAL" ] || fail "fid_claim made no record $GLOBAL"
# the mask as asked for, which fid_claim puts back (cpumask shows the
# effective one)
mask() { cat "${M}_requested" 2>/dev/null || cat "$M"; }
ORIG=$(mask)
[ "$ORIG" = "$PIN_WQ_OLD" ] || fail "fid_claim recorded $PIN_WQ_OLD, the mask is $ORIG"
export FID_WQ_STATE=$WORK/wqmask
M_READ="cat ${M}_requested 2>/dev/null || cat $M"

# "has CPU C": the mask holds that CPU (any number of CPUs)
has_cpu() { python3 -c 'import sys; print(int(sys.argv[1].replace(",", ""), 16) >> int(sys.argv[2]) & 1)' "$1" "$2"; }

# a normal end: held while pinned, put back by fid_unpin, no record left
expect_exit 0 "${H[@]}" "PIN=1; fid_pin \"\$WORK\"; echo \"\$PIN_CPU \$($M_READ)\"; echo \"\$PIN_IRQ\"; fid_unpin"
read -r cpu held <"$WORK/out"
irq=$(sed -n 2p "$WORK/out")
[ "$(mask)" = "$ORIG" ] || fail "the mask is $(mask) after fid_unpin, was $ORIG"
[ ! -e "$FID_WQ_STATE" ] || fail "a record is left after a normal end"
[ "$(has_cpu "$ORIG" "$cpu")" = 0 ] || [ "$held" != "$ORIG" ] ||
	fail "fid_pin did not hold the workqueues off CPU $cpu (mask $held)"
[ "$(has_cpu "$held" "$cpu")" = 0 ] || fail "the workqueues ($held) include the pinned CPU $cpu"

# the CPU chosen takes none of the backing disk's interrupts, unless every
# CPU takes some
case "$irq" in
"("*") on "*)
	n=$(grep -o "CPU [0-9]*" <<<"$irq" | wc -l)
	if grep -q "CPU $cpu " <<<"$irq " && [ "$n" -lt "$(nproc)" ]; then
		fail "pinned to CPU $cpu, which takes the disk's interrupts: $irq"
	fi
	;;
"not found"*) ;;
*) fail "the disk's interrupts not said: \"$irq\"" ;;
esac
echo "the disk's interrupts $irq; pinned to CPU $cpu"

# SIGKILL while held: the mask and the record stay; the next harness, even
# one that does not pin, puts the mask back and says so
"${H[@]}" 'PIN=1; fid_pin "$WORK"; kill -9 $$' >/dev/null 2>&1 &
{ wait $! || true; } 2>/dev/null
[ "$(mask)" != "$ORIG" ] || fail "the mask was put back by a killed harness (it should have held it)"
[ -s "$FID_WQ_STATE" ] || fail "a killed harness left no record"
expect_exit 0 "${H[@]}" 'PIN=0; fid_pin "$WORK"; fid_unpin'
grep -q "put back to $ORIG" "$WORK/err" || fail "the next fid_pin did not say it put the mask back: $(cat "$WORK/err")"
[ "$(mask)" = "$ORIG" ] || fail "the mask is $(mask) after the next harness, was $ORIG"
[ ! -e "$FID_WQ_STATE" ] || fail "the record is left after the next harness"

# a second harness while one holds the layout: refused, the first's kept
"${H[@]}" "PIN=1; fid_pin \"\$WORK\"; { $M_READ; } >\"\$WORK/held\"; sleep 30 & wait; fid_unpin" >/dev/null 2>&1 &
first=$!
at_exit "grep -q fid_pin /proc/$first/cmdline && kill $first"
for _ in $(seq 100); do [ -s "$WORK/held" ] && break; sleep 0.1; done
[ -s "$WORK/held" ] || fail "the first harness did not pin"
expect_exit 1 "${H[@]}" 'PIN=1; fid_pin "$WORK"; echo pinned'
grep -q "another fidelity harness (process $first)" "$WORK/err" || fail "the second was not refused by name: $(cat "$WORK/err")"
[ "$(mask)" = "$(cat "$WORK/held")" ] || fail "the second harness changed the first's mask"
read -r owner _ <"$FID_WQ_STATE"
[ "$owner" = "$first" ] || fail "the record names process $owner, not the first harness ($first)"
expect_exit 1 "${H[@]}" 'PIN=0; fid_pin "$WORK"; echo ran'
grep -q "another fidelity harness" "$WORK/err" || fail "an unpinned harness beside it was not refused: $(cat "$WORK/err")"
kill "$first"
wait "$first" || true
echo "$ORIG" >"$M"
rm -f "$FID_WQ_STATE"

# a record whose process number now belongs to another process (its start
# time differs): put back, not refused
sleep 30 &
other=$!
at_exit "grep -q sleep /proc/$other/cmdline && kill $other"
echo "$other 1 $ORIG" >"$FID_WQ_STATE"
echo "$held" >"$M"
expect_exit 0 "${H[@]}" 'PIN=1; fid_pin "$WORK"; fid_unpin'
kill "$other"
[ "$(mask)" = "$ORIG" ] || fail "a record under a reused process number was not put back"
grep -q "put back to $ORIG" "$WORK/err" || fail "not said: $(cat "$WORK/err")"

# a harness whose record was taken over (as if it had been killed and
# another had started) does not put its mask back over the other's
expect_exit 0 "${H[@]}" "PIN=1; fid_pin \"\$WORK\"; echo \"1 1 9\" >\"\$FID_WQ_STATE\"; m=\$($M_READ); fid_unpin; echo \"\$m \$($M_READ)\""
read -r before after <"$WORK/out"
[ "$after" = "$before" ] || fail "fid_unpin put its mask back ($after) over another harness's record"
echo "$ORIG" >"$M"
rm -f "$FID_WQ_STATE"
echo "ok: the workqueues' CPUs put back after a normal end, a SIGKILL (pinned or not) and a stale record; a second harness refused, pinned or not"
