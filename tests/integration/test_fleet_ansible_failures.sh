#!/bin/bash
# SPDX-License-Identifier: MIT
# How deploy/ansible/site.yml treats hosts that are slow or fail, on three
# inventory hosts that are this machine (ansible_connection=local,
# diskproof_install=none with the build's binary, a data directory and
# results file each):
#   - "diskproof check" FAILs on one host (its profile wants more space than
#     there is): the whole play stops there (any_errors_fatal), no host runs
#     anything, no results file is made, nothing is reported;
#   - with the checks passing: h2 is slow to prepare (its diskproof_bin
#     holds "run" back until this test lets it go, which it does only once
#     h1 is ready and waiting and h3 has failed: however slow, not a
#     timing), and FAILs its verdict (a target IOPS no disk reaches); h3's
#     run exits 2 before it is ready (a usage error). The play fails h3 at
#     once, waits for h2, then starts h1 and h2 at one instant after h2's
#     ready time: neither is late (both loads within 100 ms after the one
#     start_at); h2's FAIL is a result, fetched and reported; the fleet
#     report lists h3 as missing and fails (exit 1, which the play takes as
#     a report), and the play exits non-zero.
# Machine-wide resources: none (local connections, files under $WORK);
# what a killed run of this test left (its scratch directories and their
# processes) is removed first (lib.sh leftovers_remove). Exit 77 without
# ansible-playbook, or where this diskproof lacks run --start-file or the
# fleet command. Slow (label slow): about a minute of Ansible.
source "$(dirname "$0")/lib.sh"
set -e
command -v ansible-playbook >/dev/null || { echo "skipped: no ansible-playbook (ansible-core)"; exit 77; }
"$DISKPROOF" help run 2>&1 | grep -q -- '--start-file' || { echo "skipped: this diskproof has no run --start-file"; exit 77; }
"$DISKPROOF" help fleet >/dev/null 2>&1 || { echo "skipped: this diskproof has no fleet command"; exit 77; }
leftovers_remove
skip_without_uring
SITE="$DP_SOURCE_DIR/deploy/ansible/site.yml"

sed -e 's/^duration = .*/duration = 2s/' "$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini" >ok.ini
# 16 TiB per database: check's free-space line FAILs (exit 3)
sed -e 's/^database_size = .*/database_size = 16TiB/' ok.ini >huge.ini
# a target IOPS nothing reaches: the run's verdict FAILs (exit 1)
sed -e 's/^\[sizing\]/[sizing]\ntarget_iops = 100000000/' ok.ini >slow.ini
# h2's diskproof: "run" held back until $WORK/go exists (5 minutes at most,
# so that nothing waits forever if this test is killed)
cat >held-diskproof <<SH
#!/bin/sh
if [ "\$1" = run ]; then
	i=0
	while [ ! -e "$WORK/go" ] && [ \$i -lt 3000 ]; do sleep 0.1; i=\$((i + 1)); done
fi
exec "$DISKPROOF" "\$@"
SH
chmod +x held-diskproof

mkdir -p ansible/tmp ansible/home ansible/async
cat >ansible.cfg <<CFG
[defaults]
home = $WORK/ansible/home
local_tmp = $WORK/ansible/tmp
remote_tmp = $WORK/ansible/tmp
forks = 10
retry_files_enabled = False
interpreter_python = $(head -1 "$(command -v ansible-playbook)" | sed 's/^#! *//; s/ .*//')
CFG
export ANSIBLE_CONFIG="$WORK/ansible.cfg" ANSIBLE_ASYNC_DIR="$WORK/ansible/async" ANSIBLE_NOCOLOR=1

# inventory NAME H2VARS H3VARS: the three hosts, h2 and h3 with more
# variables
inventory() {
	{
		echo "[diskproof]"
		echo "h1 diskproof_data_dir=$WORK/$1/h1/data diskproof_results=$WORK/$1/h1/results.db" \
			"diskproof_remote_profile=$WORK/$1/h1/profile.ini"
		echo "h2 diskproof_data_dir=$WORK/$1/h2/data diskproof_results=$WORK/$1/h2/results.db" \
			"diskproof_remote_profile=$WORK/$1/h2/profile.ini $2"
		echo "h3 diskproof_data_dir=$WORK/$1/h3/data diskproof_results=$WORK/$1/h3/results.db" \
			"diskproof_remote_profile=$WORK/$1/h3/profile.ini $3"
		echo "[diskproof:vars]"
		echo "ansible_connection=local"
		echo "diskproof_install=none"
		echo "diskproof_bin=$DISKPROOF"
		echo "diskproof_profile=$WORK/ok.ini"
	} >"$1.ini"
}

# play NAME: ansible-playbook on NAME.ini in the background (pid $play_pid),
# collected in NAME/collected, its output in NAME.log; play_wait: its exit
# code in $rc. Runs given up after 5 minutes (diskproof_run_timeout): none
# outlives a killed test by long.
play() {
	t_play=$(date +%s)
	ansible-playbook -i "$1.ini" "$SITE" -e "diskproof_controller_bin=$DISKPROOF" \
		-e "diskproof_label=$1" -e "diskproof_poll_interval=1" -e "diskproof_ready_timeout=240" \
		-e "diskproof_run_timeout=300" -e "diskproof_fetch_dir=$WORK/$1/collected" >"$1.log" 2>&1 &
	play_pid=$!
}
play_wait() {
	set +e
	wait $play_pid
	rc=$?
	set -e
	echo "play: exit $rc, $(($(date +%s) - t_play)) s"
}
# wait_for WHAT PATH...: until every PATH exists (240 s at most: a bound,
# not a timing), or fail saying WHAT
wait_for() {
	local what=$1 p
	shift
	for _ in $(seq 2400); do
		for p in "$@"; do [ -e "$p" ] || { sleep 0.1; continue 2; }; done
		return 0
	done
	fail "$what: not there after 240 s: $* ($(tail -5 "$LOG"))"
}

# --- a check FAILs on h2: nothing runs anywhere
inventory checkfail "diskproof_profile=$WORK/huge.ini" ''
play checkfail
play_wait
[ $rc != 0 ] || { cat checkfail.log; fail "the play passed with a FAILing check"; }
grep -q 'FAIL  free space' checkfail.log || { cat checkfail.log; fail "h2's check FAIL is not in the play's output"; }
grep -q 'NO MORE HOSTS LEFT' checkfail.log || { cat checkfail.log; fail "the play did not stop every host"; }
! grep -q 'Launch the run' checkfail.log || { cat checkfail.log; fail "the play went on to the runs"; }
for n in 1 2 3; do
	[ ! -e "checkfail/h$n/results.db" ] || fail "h$n has a results file after a failed check"
done
[ ! -e checkfail/collected/fleet.db ] || fail "a fleet was collected after a failed check"

# --- h2 slow to prepare and FAILs its verdict, h3 exits 2 before it is ready
inventory runs "diskproof_profile=$WORK/slow.ini diskproof_bin=$WORK/held-diskproof" \
	"diskproof_run_args='--streams 0'"
LOG=runs.log
play runs
R="$WORK/runs"
# h1 ready and waiting, h3 failed: only then may h2 prepare
wait_for "h1's ready record, h3's exit" "$R/h1/results.db.ready" "$R/h3/results.db.exit"
[ "$(cat "$R/h3/results.db.exit")" = 2 ] || fail "h3's run exited $(cat "$R/h3/results.db.exit"), want 2"
[ ! -e "$R/h2/results.db.ready" ] || fail "h2 was ready before it was let go"
[ ! -e "$R/h1/results.db.start" ] || fail "a start time was written before h2 was ready"
[ -z "$(sqlite3 "$R/h1/results.db" "select load_started_at from run")" ] || fail "h1 began before h2 was ready"
touch go
wait_for "h2's ready record" "$R/h2/results.db.ready"
play_wait
[ $rc != 0 ] || { cat runs.log; fail "the play passed with a host whose run exited 2"; }
grep -q 'fatal: \[h3\].*diskproof run exited 2 before it was ready' runs.log ||
	{ cat runs.log; fail "h3's exit 2 did not fail h3"; }
! grep -qE 'fatal: \[h[12]\]' runs.log || { cat runs.log; fail "h1 or h2 failed"; }
grep -q 'h2: exit 1 (FAIL)' runs.log || { cat runs.log; fail "h2's exit 1 is not shown as a FAIL"; }
C="$R/collected"
[ -s "$C/fleet.json" ] || { cat runs.log; fail "no fleet report"; }
[ ! -e "$C/h3.db" ] || fail "h3's results were fetched"
sqlite3 -separator ' ' "$C/fleet.db" "select r.host, e.message from event e join run r on r.id = e.run_id
	where e.kind = 'ready' order by r.host" >ready
python3 - "$C/fleet.json" ready <<'PY' || { cat runs.log; fail "the fleet report (above)"; }
import datetime, json, sys
f = json.load(open(sys.argv[1]))
rows = {h["host"]: h for h in f["hosts"]}
print({h: (r["verdict"], r["start_at"], r["load_started_at"], r["late_ms"]) for h, r in rows.items()})
assert sorted(rows) == ["h1", "h2"], "hosts %s" % sorted(rows)
assert rows["h2"]["verdict"] == "FAIL", "h2's verdict %s" % rows["h2"]["verdict"]
assert f["expected_hosts"] == ["h1", "h2", "h3"] and f["missing"] == ["h3"], (f["expected_hosts"], f["missing"])
assert f["verdict"] == "FAIL" and f["totals"]["runs"] == 2, (f["verdict"], f["totals"])
# one start time, after both were ready, and neither late
t = lambda s: datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
ready = {l.split()[0]: t(l.split()[3]) for l in open(sys.argv[2]) if l.strip()}
assert rows["h1"]["start_at"] == rows["h2"]["start_at"], "two start times"
at = t(rows["h1"]["start_at"])
assert ready["h1"] < ready["h2"] < at, "ready %s, start %s" % (ready, at)
for h in ("h1", "h2"):
    assert 0 <= rows[h]["late_ms"] < 100 and not rows[h]["late"], "%s late by %s ms" % (h, rows[h]["late_ms"])
assert f["late"] == [], f["late"]
print("h1 ready %.1f s before h2; both started %.3f / %.3f ms after the start time" % (
    ready["h2"] - ready["h1"], rows["h1"]["late_ms"], rows["h2"]["late_ms"]))
PY
grep -q '^missing (expected, no run): h3$' "$C/fleet.txt" || fail "the text report does not list h3 missing"
echo "ok"
