#!/bin/bash
# How deploy/ansible/site.yml treats hosts that fail, on three inventory
# hosts that are this machine (ansible_connection=local, diskproof_install=
# none with the build's binary, a data directory and results file each):
#   - "diskproof check" FAILs on one host (its profile wants more space than
#     there is): the whole play stops there (any_errors_fatal), no host runs
#     anything, no results file is made, nothing is reported;
#   - with the checks passing, one host's run exits 1 (a failed verdict: a
#     target IOPS no disk reaches) and another's exits 2 (a usage error):
#     the FAIL is a result, fetched and reported; the exit 2 fails that host
#     alone, which the fleet report leaves out, and the play exits non-zero.
# Exit 77 without ansible-playbook, or where this diskproof lacks run
# --start-at or the fleet command. Slow (label slow): about 40 s of Ansible.
source "$(dirname "$0")/lib.sh"
set -e
command -v ansible-playbook >/dev/null || { echo "skipped: no ansible-playbook (ansible-core)"; exit 77; }
"$DISKPROOF" help run 2>&1 | grep -q -- '--start-at' || { echo "skipped: this diskproof has no run --start-at"; exit 77; }
"$DISKPROOF" help fleet >/dev/null 2>&1 || { echo "skipped: this diskproof has no fleet command"; exit 77; }
skip_without_uring
SITE="$DP_SOURCE_DIR/deploy/ansible/site.yml"

sed -e 's/^duration = .*/duration = 2s/' "$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini" >ok.ini
# 16 TiB per database: check's free-space line FAILs (exit 3)
sed -e 's/^database_size = .*/database_size = 16TiB/' ok.ini >huge.ini
# a target IOPS nothing reaches: the run's verdict FAILs (exit 1)
sed -e 's/^\[sizing\]/[sizing]\ntarget_iops = 100000000/' ok.ini >slow.ini

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

# inventory NAME H2PROFILE H3ARGS: the three hosts, h2 with its own profile,
# h3 with more run arguments (a string, split at spaces)
inventory() {
	{
		echo "[diskproof]"
		for n in 1 2 3; do
			echo "h$n diskproof_data_dir=$WORK/$1/h$n/data diskproof_results=$WORK/$1/h$n/results.db" \
				"diskproof_remote_profile=$WORK/$1/h$n/profile.ini"
		done
		echo "[diskproof:vars]"
		echo "ansible_connection=local"
		echo "diskproof_install=none"
		echo "diskproof_bin=$DISKPROOF"
		echo "diskproof_profile=$WORK/ok.ini"
	} >"$1.ini"
	sed -i "s|^h2 |h2 diskproof_profile=$2 |; s|^h3 |h3 diskproof_run_args='$3' |" "$1.ini"
}

# play NAME LEAD: ansible-playbook on NAME.ini, collected in NAME/collected;
# the exit code in $rc, the output in NAME.log
play() {
	set +e
	ansible-playbook -i "$1.ini" "$SITE" -e "diskproof_controller_bin=$DISKPROOF" \
		-e "diskproof_start_lead=$2" -e "diskproof_label=$1" -e "diskproof_poll_interval=1" \
		-e "diskproof_fetch_dir=$WORK/$1/collected" >"$1.log" 2>&1
	rc=$?
	set -e
	echo "play $1: exit $rc"
}

# --- a check FAILs on h2: nothing runs anywhere
inventory checkfail "$WORK/huge.ini" ''
play checkfail 5s
[ $rc != 0 ] || { cat checkfail.log; fail "the play passed with a FAILing check"; }
grep -q 'FAIL  free space' checkfail.log || { cat checkfail.log; fail "h2's check FAIL is not in the play's output"; }
grep -q 'NO MORE HOSTS LEFT' checkfail.log || { cat checkfail.log; fail "the play did not stop every host"; }
! grep -q 'Launch the run' checkfail.log || { cat checkfail.log; fail "the play went on to the runs"; }
for n in 1 2 3; do
	[ ! -e "checkfail/h$n/results.db" ] || fail "h$n has a results file after a failed check"
done
[ ! -e checkfail/collected/fleet.db ] || fail "a fleet was collected after a failed check"

# --- h2 FAILs its verdict (reported), h3 exits 2 (left out)
inventory runs "$WORK/slow.ini" '--streams 0'
play runs 8s
[ $rc != 0 ] || { cat runs.log; fail "the play passed with a host whose run exited 2"; }
grep -q 'fatal: \[h3\].*diskproof run exited 2' runs.log || { cat runs.log; fail "h3's exit 2 did not fail h3"; }
! grep -qE 'fatal: \[h[12]\]' runs.log || { cat runs.log; fail "h1 or h2 failed"; }
C="$WORK/runs/collected"
[ -s "$C/fleet.json" ] || { cat runs.log; fail "no fleet report"; }
python3 - "$C/fleet.json" <<'PY' || { cat runs.log; fail "the fleet report (above)"; }
import json, sys
f = json.load(open(sys.argv[1]))
rows = {h["host"]: h for h in f["hosts"]}
print({h: r["verdict"] for h, r in rows.items()})
assert sorted(rows) == ["h1", "h2"], "hosts %s" % sorted(rows)
assert rows["h2"]["verdict"] == "FAIL", "h2's verdict %s" % rows["h2"]["verdict"]
assert f["totals"]["runs"] == 2
PY
[ ! -e "$C/h3.db" ] || fail "h3's results were fetched"
grep -q 'h2: exit 1 (FAIL)' runs.log || { cat runs.log; fail "h2's exit 1 is not shown as a FAIL"; }
echo "ok"
