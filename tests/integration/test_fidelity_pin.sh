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

# the real harnesses' record: a killed one's put back first, a live one's
# waited out (skipped), then held by this test until it ends
set +e
"${H[@]}" 'fid_claim; fid_unpin' >"$WORK/out" 2>"$WORK/err"
rc=$?
set -e
if [ $rc != 0 ]; then
	grep -q "another fidelity harness" "$WORK/err" && { echo "skipped: $(cat "$WORK/err")"; exit 77; }
	fail "fid_claim failed: $(cat "$WORK/err")"
fi
ORIG=$(cat "$M")
GLOBAL=$(env -u FID_WQ_STATE bash -c 'source "$1/tests/fidelity/lib.sh"; echo "$FID_WQ_STATE"' _ "$DP_SOURCE_DIR")
[ ! -e "$GLOBAL" ] || fail "fid_unpin left its record $GLOBAL: $(cat "$GLOBAL")"
start=$(awk '{ sub(/.*\) /, ""); print $20 }' /proc/$$/stat)
if ! (set -C && echo "$$ $start $ORIG" >"$GLOBAL") 2>/dev/null; then
	echo "skipped: a fidelity harness holds $GLOBAL"
	exit 77
fi
at_exit "echo $ORIG >$M; rm -f $GLOBAL"
export FID_WQ_STATE=$WORK/wqmask

# "has CPU C": the mask holds that CPU (any number of CPUs)
has_cpu() { python3 -c 'import sys; print(int(sys.argv[1].replace(",", ""), 16) >> int(sys.argv[2]) & 1)' "$1" "$2"; }

# a normal end: held while pinned, put back by fid_unpin, no record left
expect_exit 0 "${H[@]}" "PIN=1; fid_pin \"\$WORK\"; echo \"\$PIN_CPU \$(cat $M)\"; echo \"\$PIN_IRQ\"; fid_unpin"
read -r cpu held <"$WORK/out"
irq=$(sed -n 2p "$WORK/out")
[ "$(cat "$M")" = "$ORIG" ] || fail "the mask is $(cat "$M") after fid_unpin, was $ORIG"
[ ! -e "$FID_WQ_STATE" ] || fail "a record is left after a normal end"
[ "$held" != "$ORIG" ] || fail "fid_pin did not hold the workqueues (mask $held)"
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
[ "$(cat "$M")" != "$ORIG" ] || fail "the mask was put back by a killed harness (it should have held it)"
[ -s "$FID_WQ_STATE" ] || fail "a killed harness left no record"
expect_exit 0 "${H[@]}" 'PIN=0; fid_pin "$WORK"; fid_unpin'
grep -q "put back to $ORIG" "$WORK/err" || fail "the next fid_pin did not say it put the mask back: $(cat "$WORK/err")"
[ "$(cat "$M")" = "$ORIG" ] || fail "the mask is $(cat "$M") after the next harness, was $ORIG"
[ ! -e "$FID_WQ_STATE" ] || fail "the record is left after the next harness"

# a second harness while one holds the layout: refused, the first's kept
"${H[@]}" "PIN=1; fid_pin \"\$WORK\"; cat $M >\"\$WORK/held\"; sleep 30 & wait; fid_unpin" >/dev/null 2>&1 &
first=$!
at_exit "kill $first"
for _ in $(seq 100); do [ -s "$WORK/held" ] && break; sleep 0.1; done
[ -s "$WORK/held" ] || fail "the first harness did not pin"
expect_exit 1 "${H[@]}" 'PIN=1; fid_pin "$WORK"; echo pinned'
grep -q "another fidelity harness (process $first)" "$WORK/err" || fail "the second was not refused by name: $(cat "$WORK/err")"
[ "$(cat "$M")" = "$(cat "$WORK/held")" ] || fail "the second harness changed the first's mask"
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
at_exit "kill $other"
echo "$other 1 $ORIG" >"$FID_WQ_STATE"
echo "$held" >"$M"
expect_exit 0 "${H[@]}" 'PIN=1; fid_pin "$WORK"; fid_unpin'
kill "$other"
[ "$(cat "$M")" = "$ORIG" ] || fail "a record under a reused process number was not put back"
grep -q "put back to $ORIG" "$WORK/err" || fail "not said: $(cat "$WORK/err")"

# a harness whose record was taken over (as if it had been killed and
# another had started) does not put its mask back over the other's
expect_exit 0 "${H[@]}" "PIN=1; fid_pin \"\$WORK\"; echo \"1 1 9\" >\"\$FID_WQ_STATE\"; m=\$(cat $M); fid_unpin; echo \"\$m \$(cat $M)\""
read -r before after <"$WORK/out"
[ "$after" = "$before" ] || fail "fid_unpin put its mask back ($after) over another harness's record"
echo "$ORIG" >"$M"
rm -f "$FID_WQ_STATE"
echo "ok: the workqueues' CPUs put back after a normal end, a SIGKILL (pinned or not) and a stale record; a second harness refused, pinned or not"
