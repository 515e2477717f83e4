#!/bin/bash
# SPDX-License-Identifier: MIT
# The durability test on the sim engine's write-cache model ([sim]
# write_cache, lie_window, cut_at): a lying cache cut at 30 s makes
# verify --witness exit 4 naming the lost acknowledged pages; an honest one
# exits 0, and plain verify after it does not exit 4 (it names the cut and
# asks for the witness); a tearing one has its torn pages found and counted
# as torn by writes in flight (exit 0: writes are not atomic); and 50
# honest cuts at random instants (seeds) give zero "lost" pages.
source "$(dirname "$0")/lib.sh"
set -e
# the witness fsyncs every batch: on tmpfs that costs nothing (a sim run
# sends thousands), on the build's disk minutes
WD="$WORK"
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	WD=$(mktemp -d /dev/shm/dp-durability-sim.XXXXXX)
	at_exit "rm -rf '$WD'"
fi
mkdir -p "$WORK/v1" "$WORK/v2"
profile() { # NAME CACHE CUT SEED
	cat >"$1.ini" <<EOI
[test]
type = durability
duration = 1m
witness = $WD/$1.witness

[sizing]
database_size = 32MiB

[workload]
seed = $4

[engine]
name = sim
streams = 8

[sim]
write_latency = 3ms
seed = $4
write_cache = $2
lie_window = 1s
cut_at = $3

[volume v1]
path = $WORK/v1
databases = 2

[volume v2]
path = $WORK/v2
databases = 1
EOI
}

# a durability test without a witness is refused where the file says so
printf '[test]\ntype = durability\n[engine]\nname = sim\n[volume v1]\npath = %s\n' "$WORK/v1" >nowit.ini
expect_exit 2 "$DISKPROOF" run ./nowit.ini --results "$WORK/r.db"
grep -q "nowit.ini:2: \[test\] type: a durability test needs a witness" err ||
	fail "no FILE:LINE refusal without a witness: $(cat err)"

# lying, cut at 30 s: the acknowledged writes of the last second are lost
profile lying lying 30s 7
expect_exit 0 "$DISKPROOF" run ./lying.ini --results "$WORK/r.db"
expect_exit 4 "$DISKPROOF" verify ./lying.ini --witness "$WD/lying.witness"
grep -Eq "^db[0-9]+ page [0-9]+: lost after acknowledgement \(acknowledged generation [0-9]+, found [0-9]+" out ||
	fail "lost pages not named: $(head -3 out)"
lost=$(sed -n 's/.* \([0-9]*\) lost after acknowledgement, .*/\1/p' out)
[ "${lost:-0}" -gt 0 ] || fail "no lost count: $(tail -2 out)"
grep -q "newest lost acknowledgement came [0-9.]* s before the simulated cut" out ||
	fail "no age of the newest lost acknowledgement"
# and as JSON
expect_exit 4 "$DISKPROOF" verify ./lying.ini --witness "$WD/lying.witness" --format json
python3 -c '
import json, sys, jsonschema
d = json.load(open(sys.argv[1]))
jsonschema.validate(d, json.load(open(sys.argv[3])))
assert d["count"]["lost"] == int(sys.argv[2]), d["count"]
assert d["result"] == "integrity_error"
assert d["bad"][0]["class"] == "lost" and d["bad"][0]["acknowledged_generation"] > d["bad"][0]["found_generation"]
' out "$lost" "$DP_SOURCE_DIR/docs/schema/verify-witness.schema.json" ||
	fail "JSON classification wrong, or not as its schema says"

# honest, the same cut: every acknowledged page intact
profile honest honest 30s 7
expect_exit 0 "$DISKPROOF" run ./honest.ini --results "$WORK/r.db"
expect_exit 0 "$DISKPROOF" verify ./honest.ini --witness "$WD/honest.witness"
grep -q " 0 lost after acknowledgement, 0 torn, 0 corrupt" out || fail "honest: $(tail -1 out)"
# plain verify after the cut: no integrity error; it names the cut and the witness
set +e
"$DISKPROOF" verify ./honest.ini >out 2>err
rc=$?
set -e
[ "$rc" != 4 ] || fail "plain verify after an honest cut exited 4"
grep -q "ended by a simulated power cut" err && grep -q -- "--witness SPEC" err ||
	fail "plain verify does not say the run was cut and to name the witness: $(cat err)"

# tearing: the pages in flight at the cut are found torn, and counted as
# torn by a write in flight (newer than their last acknowledgement): no
# failure, as the writes are not atomic (a device may keep part of a write it
# never acknowledged)
profile tearing tearing 30s 7
expect_exit 0 "$DISKPROOF" run ./tearing.ini --results "$WORK/r.db"
expect_exit 0 "$DISKPROOF" verify ./tearing.ini --witness "$WD/tearing.witness"
grep -Eq "^[1-9][0-9]* page\(s\) torn by a write in flight" out || fail "torn pages not counted: $(cat out)"
grep -q " 0 lost after acknowledgement, 0 torn, 0 corrupt" out || fail "tearing: $(tail -1 out)"

# 50 honest cuts at random instants: never a lost page
for i in $(seq 1 50); do
	cut=$((RANDOM % 20000 + 200))ms
	seed=$((RANDOM * 32768 + RANDOM + 1))
	profile cycle honest "$cut" "$seed"
	rm -f "$WD/cycle.witness"
	expect_exit 0 "$DISKPROOF" run ./cycle.ini --results "$WORK/r.db"
	set +e
	"$DISKPROOF" verify ./cycle.ini --witness "$WD/cycle.witness" >out 2>err
	rc=$?
	set -e
	[ "$rc" = 0 ] || fail "honest cut $i (cut_at $cut, seed $seed): exit $rc: $(tail -2 out) $(cat err)"
	grep -q " 0 lost after acknowledgement," out || fail "honest cut $i: $(tail -1 out)"
done
echo "ok"
