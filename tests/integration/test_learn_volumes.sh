#!/bin/bash
# SPDX-License-Identifier: MIT
# test_learn_volumes.sh - learn's product features (issue 34, items 1 and 4;
# docs/learn.md): learn with two --data paths on two loop devices and one
# --log writes one [volume] per --data (path, the --log as log_path) and
# keeps the observed fingerprint beside the profile ([test] fingerprint);
# the profile is valid (check, a sim run); a real run of it prints its own
# devices against the kept fingerprint (text and JSON reports) and stores
# its fingerprint, which `fingerprint compare A.json RUNID` reads back; a
# kept fingerprint with the data writes tripled shows that row OFF; a
# missing or foreign fingerprint file is refused as FILE:LINE: [test]
# fingerprint: ...; a run without a fingerprint is a clear exit 2; learn
# --from the kept fingerprint fits the same profile again, and refuses what
# would shape a new window. Root (loop devices), else 77.
source "$(dirname "$0")/lib.sh"
set -e
need_root "loop devices"
command -v losetup >/dev/null && command -v mkfs.ext4 >/dev/null ||
	{ echo "skipped: no losetup or mkfs.ext4"; exit 77; }
skip_without_uring

dio_mount d1 192MiB
dio_mount d2 192MiB
dio_mount lg 128MiB

# the load learn watches: two volumes, one log device shared
cat >own.ini <<INI
[test]
duration = 30s
[sizing]
database_size = 32MiB
[workload]
page_size = 8KiB
log_segment_size = 1MiB
log_segments = 8
arrival = rate
rate = 300
bdm = off
[engine]
name = io_uring
direct = on
streams = 8
[volume a]
path = $WORK/d1
log_path = $WORK/lg/a
databases = 1
[volume b]
path = $WORK/d2
log_path = $WORK/lg/b
databases = 1
INI
expect_exit 0 "$DISKPROOF" init own.ini --results r.db --quiet
"$DISKPROOF" run own.ini --duration 14s --results r.db --quiet >own.out 2>&1 &
pid=$!
at_exit "kill $pid"
sleep 2
"$DISKPROOF" learn --data "$WORK/d1" --data "$WORK/d2" --log "$WORK/lg" --duration 8s \
	--transactions 2400 --no-trace -o learned.ini --quiet 2>learn.err ||
	{ cat learn.err; fail "learn: exit $?"; }
set +e
wait "$pid"
rc=$?
set -e
[ "$rc" = 0 ] || [ "$rc" = 1 ] || { cat own.out; fail "run of own.ini: exit $rc"; }
# --- learn --from: the kept fingerprint fitted again gives the same profile
# (the same keys, the numbers within the fit's own tolerance); what would
# shape a new window is refused, and a file that is not a fingerprint,
# each exit 2 with nothing written
expect_exit 0 "$DISKPROOF" learn --from learned.fingerprint.json --data "$WORK/d1" \
	--data "$WORK/d2" --log "$WORK/lg" -o relearned.ini --quiet
grep -q '^; fitted from learned.fingerprint.json: a window watched before' relearned.ini ||
	fail "--from: the header does not say so"
# the same keys; each number within 5 % (the fit stops within 1 % of its
# targets, and the file keeps 6 significant digits of the window: a refit
# may stop at another point of that 1 %), every other value equal
python3 - learned.ini relearned.ini <<'PY' || fail "--from: the refit differs from the profile learned from the same window"
import re, sys
def keys(path):
    out, sec = {}, ""
    for line in open(path):
        line = line.split(";")[0].strip()
        if line.startswith("["):
            sec = line
        elif "=" in line:
            k, v = (x.strip() for x in line.split("=", 1))
            if k != "fingerprint":
                out[sec + k] = v
    return out
a, b = keys(sys.argv[1]), keys(sys.argv[2])
# read_pages is what is left of the reads a transaction makes after
# update_pages: their sum is the fitted figure
for d in (a, b):
    w = "[workload]"
    if w + "read_pages" in d and w + "update_pages" in d:
        d[w + "read_pages"] = "%.4f" % (float(d[w + "read_pages"]) + float(d[w + "update_pages"]))
bad = sorted(set(a) ^ set(b))
for k in set(a) & set(b):
    ma, mb = re.fullmatch(r"([0-9.]+)([A-Za-z]*)", a[k]), re.fullmatch(r"([0-9.]+)([A-Za-z]*)", b[k])
    if ma and mb and ma.group(2) == mb.group(2):
        x, y = float(ma.group(1)), float(mb.group(1))
        if abs(x - y) > 0.05 * max(abs(x), abs(y)) + 1e-9:
            bad.append(k)
    elif a[k] != b[k]:
        bad.append(k)
for k in bad:
    print("refit:", k, a.get(k), b.get(k))
sys.exit(1 if bad else 0)
PY
cmp -s learned.fingerprint.json relearned.fingerprint.json ||
	fail "--from: the fingerprint kept is not the one fitted"
expect_exit 2 "$DISKPROOF" learn --from learned.fingerprint.json --data "$WORK/d1" \
	--duration 5s -o never.ini
grep -q "learn --from learned.fingerprint.json fits a window watched before: --duration" \
	"$WORK/err" || fail "--from with --duration: $(cat "$WORK/err")"
expect_exit 2 "$DISKPROOF" learn --from learned.fingerprint.json --data "$WORK/d1" -o never.ini
grep -q "the fingerprint watched a log apart: give --log PATH" "$WORK/err" ||
	fail "--from without the fingerprint's log role: $(cat "$WORK/err")"
echo '{"not": "a fingerprint"}' >foreign.json
expect_exit 2 "$DISKPROOF" learn --from foreign.json --data "$WORK/d1" -o never.ini
expect_exit 2 "$DISKPROOF" learn --from gone.json --data "$WORK/d1" -o never.ini
grep -q "gone.json: cannot read" "$WORK/err" || fail "--from a missing file: $(cat "$WORK/err")"
[ ! -e never.ini ] && [ ! -e never.fingerprint.json ] || fail "a refused --from wrote a file"

expect_exit 0 "$DISKPROOF" clean own.ini --yes

# --- item 1: one [volume] per --data, the --log paired with each
sed -n '/^\[test\]/,$p' learned.ini
[ "$(grep -c '^\[volume ' learned.ini)" = 2 ] || fail "not two [volume] sections"
grep -A3 '^\[volume data1\]' learned.ini | grep -q "^path = $WORK/d1$" || fail "volume 1 path"
grep -A3 '^\[volume data2\]' learned.ini | grep -q "^path = $WORK/d2$" || fail "volume 2 path"
[ "$(grep -c "^log_path = $WORK/lg$" learned.ini)" = 2 ] || fail "the one --log not in both volumes"
# the files under each path: 32 MiB each (and a bit of ext4's)
grep -Eq '^database_size = 3[23]MiB$' learned.ini ||
	fail "database_size not the files under a path: $(grep database_size learned.ini)"
grep -q '^; 2 volumes, one per --data path' learned.ini || fail "header: the volumes' rule"

# --- item 2: the fingerprint kept beside the profile, named in [test]
grep -q '^fingerprint = learned.fingerprint.json$' learned.ini || fail "no [test] fingerprint"
[ -s learned.fingerprint.json ] || fail "no learned.fingerprint.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["data"]["counters"]["writes"] > 0' \
	learned.fingerprint.json || fail "the kept fingerprint has no data writes"

# the profile is valid: check, and a sim run (which compares nothing)
expect_exit 0 "$DISKPROOF" check learned.ini
set +e
"$DISKPROOF" run learned.ini --engine sim --duration 20s --results sim.db >sim.out 2>&1
rc=$?
set -e
[ "$rc" = 0 ] || [ "$rc" = 1 ] || { cat sim.out; fail "sim run of the learned profile: exit $rc"; }
! grep -q "profile's fingerprint" sim.out || fail "a sim run compared a fingerprint"

# a missing and a foreign fingerprint file: FILE:LINE: [test] fingerprint:
line=$(grep -n '^fingerprint = ' learned.ini | cut -d: -f1)
mkdir other
sed "s|^fingerprint = .*|fingerprint = gone.json|" learned.ini >other/missing.ini
expect_exit 2 "$DISKPROOF" check other/missing.ini
grep -q "^other/missing.ini:$line: \[test\] fingerprint: other/gone.json: cannot read" "$WORK/err" ||
	fail "missing fingerprint: $(cat "$WORK/err")"
echo '{"not": "a fingerprint"}' >other/foreign.json
sed "s|^fingerprint = .*|fingerprint = foreign.json|" learned.ini >other/foreign.ini
expect_exit 2 "$DISKPROOF" run other/foreign.ini --results r.db
grep -q "^other/foreign.ini:$line: \[test\] fingerprint: " "$WORK/err" ||
	fail "foreign fingerprint: $(cat "$WORK/err")"

# --- item 3: a real run prints how its own devices compare
python3 - learned.fingerprint.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["data"]["counters"]["writes"] *= 3   # a row made to differ: data writes/s
json.dump(d, open("tripled.fingerprint.json", "w"))
PY
sed "s|^fingerprint = .*|fingerprint = tripled.fingerprint.json|" learned.ini >tripled.ini
expect_exit 0 "$DISKPROOF" init tripled.ini --results r.db --quiet
set +e
"$DISKPROOF" run tripled.ini --duration 8s --results r.db --label tripled >run.out 2>run.err
rc=$?
set -e
[ "$rc" = 0 ] || [ "$rc" = 1 ] || { cat run.out run.err; fail "run of the learned profile: exit $rc"; }
sed -n "/profile's fingerprint/,\$p" run.out
grep -q "^this run's devices against the profile's fingerprint tripled.fingerprint.json" run.out ||
	fail "the run printed no comparison: $(cat run.err)"
grep -Eq '^data writes/s .* OFF \(\+-10 %\)$' run.out || fail "data writes/s, tripled, not OFF"
grep -Eq '^[0-9]+ of [0-9]+ asserted rows within 10 %' run.out || fail "no count of the rows"
# the kept column is the tripled fingerprint's: 3 x the learned one's
kept=$(awk '/^data writes\/s/ {print $3; exit}' run.out)
orig=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["data"]["figures"]["writes_per_s"]["value"])' \
	learned.fingerprint.json)
python3 -c "import sys; k, o = float('$kept'), float('$orig'); sys.exit(0 if abs(k - 3 * o) <= 0.02 * 3 * o + 0.1 else 1)" ||
	fail "kept data writes/s $kept is not 3 x $orig"
id=latest
"$DISKPROOF" report "$id" --results r.db --format json >"$WORK/out"
[ "$(json 'd["fingerprint_compare"]["kept"]')" = tripled.fingerprint.json ] || fail "JSON: kept"
[ "$(json '[r["off"] for r in d["fingerprint_compare"]["rows"] if r["key"] == "data.writes_per_s"][0]')" = True ] ||
	fail "JSON: data writes/s not off"

# --- item 4: fingerprint compare A.json RUNID, the run's stored fingerprint
expect_exit 1 "$DISKPROOF" fingerprint compare tripled.fingerprint.json "$id" --results r.db
grep -Eq '^data writes/s .* OFF' "$WORK/out" || fail "compare RUNID: data writes/s not OFF"
set +e
"$DISKPROOF" fingerprint compare learned.fingerprint.json "$id" --results r.db >cmp.out 2>&1
rc=$?
set -e
cat cmp.out
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "compare RUNID: exit $rc"
# the same run's figures as the report's "this run" column
a=$(awk '/^data writes\/s/ {print $4; exit}' cmp.out)
b=$(awk '/^data writes\/s/ {print $4; exit}' run.out)
[ "$a" = "$b" ] || fail "compare RUNID's data writes/s $a is not the report's $b"
# a run without a stored fingerprint (the sim run's file): exit 2, said
expect_exit 2 "$DISKPROOF" fingerprint compare learned.fingerprint.json 1 --results sim.db
grep -q "has no fingerprint of its own stored" "$WORK/err" || fail "no word of a run without one"

# --- a series (run --repeat 2) stores each run's own fingerprint and
# compares it, as one run does (it once stored none). Its runs of 3 s flush
# in bursts: a run's data writes/s once came within 10 % of the tripled
# figure under load, so the series is compared with ten times the writes
python3 - learned.fingerprint.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["data"]["counters"]["writes"] *= 10
json.dump(d, open("tenfold.fingerprint.json", "w"))
PY
sed "s|^fingerprint = .*|fingerprint = tenfold.fingerprint.json|" learned.ini >tenfold.ini
before=$(sqlite3 r.db 'SELECT count(*) FROM run_fingerprint')
set +e
"$DISKPROOF" run tenfold.ini --repeat 2 --duration 3s --warmup 0s --results r.db --quiet \
	>series.out 2>series.err
rc=$?
set -e
[ "$rc" = 0 ] || [ "$rc" = 1 ] || { cat series.out series.err; fail "the series: exit $rc"; }
after=$(sqlite3 r.db 'SELECT count(*) FROM run_fingerprint')
[ "$after" = $((before + 2)) ] ||
	fail "a series of 2 runs stored $((after - before)) fingerprints of their own: $(cat series.err)"
for run in $(sqlite3 r.db 'SELECT id FROM run ORDER BY id DESC LIMIT 2'); do
	"$DISKPROOF" report "$run" --results r.db --format json >"$WORK/out"
	[ "$(json '[r["off"] for r in d["fingerprint_compare"]["rows"] if r["key"] == "data.writes_per_s"][0]')" = True ] ||
		fail "series run $run: its report's comparison has data writes/s not OFF"
done
[ -z "${DP_LEARN_KEEP:-}" ] || cp r.db learned.ini ./*.json run.out "$DP_LEARN_KEEP"
echo "ok"
