#!/bin/bash
# SPDX-License-Identifier: MIT
# The fidelity harnesses' layout of the CPUs (fid_pin in tests/fidelity/
# lib.sh) changes the machine's own setting, the kernel's unbound
# workqueues' CPUs: it must be put back whatever the end. Tried here: a
# normal end; a harness killed with SIGKILL while it holds them (the next
# harness puts them back); a second harness while one holds them (refused,
# the first's setting untouched); a stale record whose process number now
# belongs to another program (put back, not refused); and the CPU chosen
# away from the backing disk's interrupts.
source "$(dirname "$0")/lib.sh"
set -e
need_root "the workqueues' CPUs"
[ "$(nproc)" -ge 2 ] || { echo "skipped: needs 2 CPUs or more"; exit 77; }
command -v taskset >/dev/null || { echo "skipped: no taskset"; exit 77; }
M=/sys/devices/virtual/workqueue/cpumask
[ -w "$M" ] || { echo "skipped: $M is not writable here"; exit 77; }
ORIG=$(cat "$M")
at_exit "echo $ORIG >$M"
export FID_WQ_STATE=$WORK/wqmask
# a harness: the die and note of tests/bench/lib.sh, then fid_pin's lib.sh
H=(env "WORK=$WORK" bash -c 'source "$1/tests/bench/lib.sh"; source "$1/tests/fidelity/lib.sh"; shift; eval "$1"' _ "$DP_SOURCE_DIR")

# a normal end: held while pinned, put back by fid_unpin, no record left
expect_exit 0 "${H[@]}" "PIN=1; fid_pin \"\$WORK\"; echo \"\$PIN_CPU \$(cat $M) \$PIN_WQ\"; fid_unpin"
read -r cpu held wq <"$WORK/out"
[ "$(cat "$M")" = "$ORIG" ] || fail "the mask is $(cat "$M") after fid_unpin, was $ORIG"
[ ! -e "$FID_WQ_STATE" ] || fail "a record is left after a normal end"
[ "$held" != "$ORIG" ] || fail "fid_pin did not hold the workqueues (mask $held)"
[ $((0x${held//,/} >> cpu & 1)) = 0 ] || fail "the workqueues ($held) include the pinned CPU $cpu"
[ -n "$wq" ] || fail "no workqueue CPUs reported"

# the CPU chosen takes none of the backing disk's interrupts, unless every
# CPU takes some
expect_exit 0 "${H[@]}" 'PIN=1; fid_pin "$WORK"; echo "$PIN_CPU|$PIN_IRQ"; fid_unpin'
IFS='|' read -r cpu irq <"$WORK/out"
if [ -n "$irq" ]; then
	cpus=${irq##*(CPU }
	cpus=${cpus%)}
	if tr ',' '\n' <<<"$cpus" | grep -qx "$cpu" && [ "$(tr ',' '\n' <<<"$cpus" | wc -l)" -lt "$(nproc)" ]; then
		fail "pinned to CPU $cpu, which takes the disk's interrupts ($irq)"
	fi
	echo "the disk's interrupts: $irq; pinned to CPU $cpu"
else
	echo "no interrupts found for the disk under $WORK; pinned to CPU $cpu"
fi

# SIGKILL while held: the mask and the record stay; the next fid_pin puts
# the mask back and says so
"${H[@]}" 'PIN=1; fid_pin "$WORK"; kill -9 $$' >/dev/null 2>&1 &
{ wait $! || true; } 2>/dev/null
[ "$(cat "$M")" != "$ORIG" ] || fail "the mask was put back by a killed harness (it should have held it)"
[ -s "$FID_WQ_STATE" ] || fail "a killed harness left no record"
expect_exit 0 "${H[@]}" 'PIN=1; fid_pin "$WORK"; fid_unpin'
grep -q "put back to $ORIG" "$WORK/err" || fail "the next fid_pin did not say it put the mask back: $(cat "$WORK/err")"
[ "$(cat "$M")" = "$ORIG" ] || fail "the mask is $(cat "$M") after the next harness, was $ORIG"
[ ! -e "$FID_WQ_STATE" ] || fail "the record is left after the next harness"

# a second harness while one holds the layout: refused, the first's kept
"${H[@]}" "PIN=1; fid_pin \"\$WORK\"; cat $M >\"\$WORK/held\"; sleep 30; fid_unpin" >/dev/null 2>&1 &
first=$!
at_exit "kill $first"
for _ in $(seq 100); do [ -s "$WORK/held" ] && break; sleep 0.1; done
[ -s "$WORK/held" ] || fail "the first harness did not pin"
expect_exit 1 "${H[@]}" 'PIN=1; fid_pin "$WORK"; echo pinned'
grep -q "another fidelity harness (process" "$WORK/err" || fail "the second was not refused by name: $(cat "$WORK/err")"
[ "$(cat "$M")" = "$(cat "$WORK/held")" ] || fail "the second harness changed the first's mask"
read -r owner _ <"$FID_WQ_STATE"
[ "$owner" = "$first" ] || fail "the record names process $owner, not the first harness ($first)"
kill "$first"
wait "$first" || true
echo "$ORIG" >"$M"
rm -f "$FID_WQ_STATE"

# a stale record whose process number belongs to another program: put back
sleep 30 &
other=$!
echo "$other $ORIG" >"$FID_WQ_STATE"
echo "$held" >"$M"
expect_exit 0 "${H[@]}" 'PIN=1; fid_pin "$WORK"; fid_unpin'
kill "$other"
[ "$(cat "$M")" = "$ORIG" ] || fail "a stale record under a reused process number was not put back"
grep -q "put back to $ORIG" "$WORK/err" || fail "not said: $(cat "$WORK/err")"
# a harness whose record was taken over (as if it had been killed and
# another had started) does not put its mask back over the other's
expect_exit 0 "${H[@]}" "PIN=1; fid_pin \"\$WORK\"; echo \"1 9\" >\"\$FID_WQ_STATE\"; fid_unpin; cat $M"
[ "$(cat "$WORK/out")" = "$held" ] || fail "fid_unpin put its mask back over another harness's record ($(cat "$WORK/out"))"
echo "$ORIG" >"$M"
rm -f "$FID_WQ_STATE"
echo "ok: the workqueues' CPUs put back after a normal end, a SIGKILL and a stale record; a second harness refused"
