#!/bin/bash
# SPDX-License-Identifier: MIT
# The TCP witness (diskproof witness --listen) in a network namespace of its
# own (a veth pair: 10.232.1.2 there, 10.232.1.1 here), a writer here using
# the witness API (tests/witness_writer):
#  (a) every acknowledged batch is in FILE, byte for byte (its size is the
#      frames' sum), and witness_load over TCP and from FILE returns exactly
#      them;
#  (b) a writer killed with kill -9 half-way through sending a batch: not a
#      byte of it in FILE, the earlier batches intact, the witness still
#      serving the next writer;
#  (c) the witness killed with kill -9 and restarted on the same FILE keeps
#      everything and goes on appending;
#  (d) garbage, an HTTP request and a batch with a wrong CRC32C on its port:
#      each dropped with a message, nothing written, the witness alive;
#  (e) a witness that does not answer (SIGSTOP) fails the writer's batch
#      within 10 s; SIGTERM stops the witness with its summary, exit 0.
# Needs root and ip netns (exit 77 otherwise).
source "$(dirname "$0")/lib.sh"
set -e
need_root "network namespaces"
command -v ip >/dev/null || { echo "skipped: no ip"; exit 77; }
WRITER="$DP_BINARY_DIR/tests/witness_writer"
NS=dpwt-w
ADDR=10.232.1.2:7000
FILE=$WORK/witness.wit

leftovers_remove
machine_lock net-10.232 "the subnet 10.232.1.0/24, the namespace $NS and the links dpwt*"
if ip netns list | grep -qw "$NS"; then
	ip netns pids "$NS" | xargs -r kill -9
	ip netns delete "$NS" && echo "removed the namespace $NS, left by a killed run"
fi
ip link delete dpwth 2>/dev/null && echo "removed the link dpwth, left by a killed run"
ip netns add "$NS" 2>netns.err || { echo "skipped: ip netns add: $(cat netns.err)"; exit 77; }
at_exit "ip netns delete $NS"
at_exit "ip netns pids $NS | xargs -r kill -9; sleep 0.2"
ip link add dpwth type veth peer name dpwtn 2>netns.err ||
	{ echo "skipped: no veth pair: $(cat netns.err)"; exit 77; }
at_exit "ip link delete dpwth"
ip link set dpwtn netns "$NS"
ip addr add 10.232.1.1/24 dev dpwth
ip link set dpwth up
ip -n "$NS" addr add 10.232.1.2/24 dev dpwtn
ip -n "$NS" link set dpwtn up
ip -n "$NS" link set lo up

# witness_start: the witness in the namespace, on $FILE; its pid in WPID
witness_start() {
	: >>witness.log
	local from
	from=$(wc -l <witness.log)
	ip netns exec "$NS" "$DISKPROOF" witness --listen "$ADDR" --out "$FILE" >>witness.log 2>&1 &
	WPID=$!
	for _ in $(seq 100); do
		tail -n +$((from + 1)) witness.log | grep -q "listening on $ADDR" && return 0
		kill -0 $WPID 2>/dev/null || { cat witness.log >&2; fail "the witness did not start"; }
		sleep 0.1
	done
	cat witness.log >&2
	fail "the witness did not listen within 10 s"
}
# the bytes batches [0, N) of tag TAG take in a witness file, its header included
expect_size() {
	local n=$1 tag=$2 s=16
	for ((b = 0; b < n; b++)); do
		s=$((s + 12 + ${#tag} + (b % 5 + 1) * 32 + 4))
	done
	echo $s
}
# expect_records N: the load (over TCP and from FILE) gives batches [0, N)
expect_records() {
	local n=$1 b i want=records.want
	{
		echo "tag run-1"
		echo "batches $n"
		local acks=0
		for ((b = 0; b < n; b++)); do acks=$((acks + b % 5 + 1)); done
		echo "acks $acks"
		for ((b = 0; b < n; b++)); do
			for ((i = 0; i <= b % 5; i++)); do echo "$((b % 3)) $((100 * b + i)) $((b + 1))"; done
		done
	} >$want
	expect_exit 0 "$WRITER" load "$ADDR"
	cmp -s out $want || { diff out $want | head >&2; fail "load over TCP: not batches 0..$((n - 1))"; }
	expect_exit 0 "$WRITER" load "$FILE"
	cmp -s out $want || { diff out $want | head >&2; fail "load of FILE: not batches 0..$((n - 1))"; }
	[ "$(stat -c %s "$FILE")" = "$(expect_size "$n" run-1)" ] ||
		fail "FILE holds $(stat -c %s "$FILE") bytes, batches 0..$((n - 1)) take $(expect_size "$n" run-1)"
}

witness_start
# (a) twenty batches acknowledged, each in FILE
expect_exit 0 "$WRITER" send "$ADDR" run-1 0 20
[ "$(grep -c '^acked' out)" = 20 ] || fail "(a) acknowledged: $(cat out)"
expect_records 20
echo "(a) 20 batches acknowledged, all in FILE, loaded back over TCP and from FILE"

# (b) a writer killed half-way through batch 25
"$WRITER" send "$ADDR" run-1 20 25 --partial >partial.out 2>partial.err &
PW=$!
for _ in $(seq 100); do grep -q '^partial 25' partial.out && break; sleep 0.1; done
grep -q '^partial 25' partial.out || fail "(b) the writer did not half-send: $(cat partial.out partial.err)"
sleep 0.3 # the half batch reaches the witness
kill -9 $PW
wait $PW 2>/dev/null || true
for _ in $(seq 50); do grep -q 'closed mid-batch' witness.log && break; sleep 0.1; done
grep -q 'closed mid-batch: [0-9]* bytes of an unacknowledged batch discarded' witness.log ||
	fail "(b) the witness did not say it discarded the half batch: $(cat witness.log)"
expect_records 25
expect_exit 0 "$WRITER" send "$ADDR" run-1 25 27
expect_records 27
echo "(b) a writer killed mid-batch: nothing of it in FILE, the witness served the next"

# (c) the witness killed and restarted on the same FILE
kill -9 $WPID
wait $WPID 2>/dev/null || true
size=$(stat -c %s "$FILE")
witness_start
[ "$(stat -c %s "$FILE")" = "$size" ] || fail "(c) the restart changed FILE's size"
expect_records 27
expect_exit 0 "$WRITER" send "$ADDR" run-1 27 30
expect_records 30
echo "(c) the witness killed and restarted on FILE: everything kept, appending went on"

# (d) garbage, an HTTP request, a batch whose CRC32C is wrong
size=$(stat -c %s "$FILE")
head -c 4096 /dev/urandom >garbage
# magic DPWB, 1 record, tag of 5 bytes, then the tag, the record and a CRC that is not its own
{ printf 'DPWB\001\000\000\000\005\000\000\000run-1'; head -c 32 /dev/zero; printf '\000\000\000\000'; } >badcrc
for what in garbage http badcrc; do
	before=$(grep -c 'dropped: not a witness writer' witness.log || true)
	if [ $what = http ]; then
		timeout 5 bash -c "exec 3<>/dev/tcp/${ADDR%:*}/${ADDR#*:}; printf 'GET / HTTP/1.1\r\nHost: x\r\n\r\n' >&3; cat <&3" >/dev/null || true
	else
		timeout 5 bash -c "exec 3<>/dev/tcp/${ADDR%:*}/${ADDR#*:}; cat $what >&3; cat <&3" >/dev/null || true
	fi
	for _ in $(seq 50); do
		[ "$(grep -c 'dropped: not a witness writer' witness.log)" -gt "$before" ] && break
		sleep 0.1
	done
	[ "$(grep -c 'dropped: not a witness writer' witness.log)" -gt "$before" ] ||
		fail "(d) $what was not dropped: $(tail -3 witness.log)"
	kill -0 $WPID || fail "(d) $what ended the witness"
	[ "$(stat -c %s "$FILE")" = "$size" ] || fail "(d) $what changed FILE"
done
grep -q 'dropped: not a witness writer (it sent "GET / HTTP/1.1' witness.log ||
	fail "(d) the HTTP request's drop does not say what it sent: $(cat witness.log)"
expect_records 30
echo "(d) garbage, HTTP and a wrong CRC32C dropped with a message, nothing written"

# (e) a witness that does not answer fails the batch; SIGTERM stops it
WIT_PID=$(ip netns pids "$NS" | head -1)
kill -STOP "$WIT_PID"
t0=$(date +%s)
expect_exit 1 "$WRITER" send "$ADDR" run-1 30 31
kill -CONT "$WIT_PID"
grep -q 'no answer to batch 1 within 10 s' err || fail "(e) the writer's error: $(cat err)"
[ $(($(date +%s) - t0)) -le 15 ] || fail "(e) the writer waited $(($(date +%s) - t0)) s"
kill -TERM $WPID
set +e
wait $WPID
rc=$?
set -e
[ $rc = 0 ] || fail "(e) the witness exited $rc on SIGTERM: $(tail -3 witness.log)"
grep -q '^witness: stopped by SIGTERM: [0-9]* connections, [0-9]* batches' witness.log ||
	fail "(e) no summary: $(tail -3 witness.log)"
echo "(e) an unanswered batch failed within 10 s; SIGTERM stopped the witness: $(tail -1 witness.log)"
