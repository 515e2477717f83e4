#!/bin/bash
# SPDX-License-Identifier: MIT
# test_fleet_slow_disk.sh - the field pattern in a fleet: three sim hosts
# run examples/five-disks-slow.ini's layout, two with every disk alike and
# one (db-c) with disk3 about 1 ms slower on average (the seed's case: its
# own verdict fails on disk3 and its databases db7, db8 and db9). The fleet
# fails (exit 1); its verdict comes first; the text and the JSON name the
# failing host, its failing volume and databases, and one sentence of why;
# "differs from its peers" stays a separate finding, and while a host fails
# the report never says that no run differs. The same three hosts with the
# slow one healthy pass (exit 0) and say no run differs.
source "$(dirname "$0")/lib.sh"
set -e
P="$DP_SOURCE_DIR/examples/five-disks-slow.ini"

# the healthy hosts' profile: the same file without its [sim disk3] section,
# under the same name (one profile everywhere, as on a real fleet)
mkdir -p ok
python3 - "$P" >ok/five-disks-slow.ini <<'PY'
import re, sys
s = open(sys.argv[1]).read()
print(re.sub(r"\[sim disk3\]\n(?:[a-z_]+ = [^\n]*\n)*", "", s), end="")
PY
grep -q '^\[sim disk3\]' ok/five-disks-slow.ini && fail "the healthy profile still slows disk3"
for h in a b c; do
	prof=./ok/five-disks-slow.ini
	want=0
	[ $h = c ] && prof=$P && want=1
	expect_exit $want "$DISKPROOF" run "$prof" --duration 3m --host db-$h --label wave1 --quiet \
		--results "h$h.db"
	expect_exit 0 "$DISKPROOF" import "h$h.db" --results all.db
done

expect_exit 1 "$DISKPROOF" fleet label:wave1 --results all.db
cp "$WORK/out" fleet.txt
head -1 fleet.txt | grep -q '^fleet verdict: FAIL (1 run(s) failed)$' ||
	fail "the verdict is not first: $(head -3 fleet.txt)"
grep -q '^failed hosts:$' fleet.txt || fail "no failed hosts: $(head -8 fleet.txt)"
grep -q '^  db-c (run 3): FAIL: volume disk3, databases db7, db8, db9$' fleet.txt ||
	fail "the failing host, disk and databases not named: $(head -8 fleet.txt)"
# why: the slow disk served fewer IOPS than its siblings and read over the limit
sed -n '/^failed hosts:$/,/^fleet of /p' fleet.txt | tr '\n' ' ' | tr -s ' ' |
	grep -q "1 of 5 volume(s) failed: disk3 served 1[0-9] % fewer IOPS than its sibling volumes .* its database read average was 2[01]\.[0-9] ms against a limit of 20 ms" ||
	fail "no why: $(head -8 fleet.txt)"
grep -qi "no run differs" fleet.txt && fail "says no run differs while a host fails: $(cat fleet.txt)"
grep -q "^apart from the failing hosts, no host differs from its peers$" fleet.txt ||
	grep -q "^runs that differ from the rest" fleet.txt || fail "no differs finding: $(cat fleet.txt)"
awk 'length > 120 { bad = 1 } END { exit bad }' fleet.txt || fail "a line over 120 columns"

expect_exit 1 "$DISKPROOF" fleet label:wave1 --results all.db --format json
cp "$WORK/out" fleet.json
grep -qi "no run differs" fleet.json && fail "JSON says no run differs while a host fails"
python3 - fleet.json <<'PY' || fail "JSON: the failing host (above)"
import json, sys
d = json.load(open(sys.argv[1]))
keys = list(d)
assert keys.index("verdict") < keys.index("selector") < keys.index("hosts"), keys
assert d["verdict"] == "FAIL", d["verdict"]
assert [f["host"] for f in d["failed"]] == ["db-c"], d["failed"]
f = d["failed"][0]
assert f["run_id"] == 3 and f["verdict"] == "FAIL", f
assert [v["name"] for v in f["volumes"]] == ["disk3"], f["volumes"]
v = f["volumes"][0]
assert v["databases"] == ["db7", "db8", "db9"], v
assert v["device"] is None, v  # a sim run records no device
assert "disk3 served" in v["why"] and "fewer IOPS" in v["why"], v["why"]
assert "database read average was 2" in v["why"], v["why"]
assert f["why"].startswith("1 of 5 volume(s) failed: disk3"), f["why"]
assert d["finding"] in (None, "apart from the failing hosts, no host differs from its peers"), d["finding"]
PY

expect_exit 1 "$DISKPROOF" fleet label:wave1 --results all.db --format html -o fleet.html
grep -q '<li class="failed-host" data-run="3"><b>db-c</b>' fleet.html || fail "html: failing host"
grep -q '<b class="failed-volume">disk3</b>, databases db7, db8, db9' fleet.html || fail "html: disk3"
grep -qi "no run differs" fleet.html && fail "html says no run differs while a host fails"

# every host healthy: the fleet passes and then, only then, no run differs
expect_exit 0 "$DISKPROOF" fleet 1 2 --results all.db
head -1 "$WORK/out" | grep -q '^fleet verdict: PASS' || fail "healthy: $(head -2 "$WORK/out")"
grep -q '^failed hosts:' "$WORK/out" && fail "healthy: failed hosts listed"
grep -q '^no run differs significantly from the rest$' "$WORK/out" || fail "healthy: finding"
echo "ok"
