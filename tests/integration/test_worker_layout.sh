#!/bin/bash
# SPDX-License-Identifier: MIT
# test_worker_layout.sh - `plan`, `check` and a run agree on the worker
# layout (plan/workers.c, the one rule), for the fixed and the transactional
# (jetstress) model: the number of workers (plan JSON's "workers", the run's
# env fact "workers") and which workers drive each volume (check's NUMA line
# "driven by worker ...", the run's worker.N.volumes facts).
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring

# profile NAME MODEL STREAMS WORKERS VOLS DBS: a profile of VOLS volumes with
# DBS databases each
profile() {
	{
		printf '[test]\nduration = 1s\nwarmup = 0s\n[sizing]\ndatabase_size = 8MiB\nlog_size = 1MiB\n'
		printf '[workload]\nmodel = %s\nlog_segment_size = 256KiB\n' "$2"
		printf '[engine]\nname = io_uring\nstreams = %s\n' "$3"
		[ "$4" = - ] || printf 'workers = %s\n' "$4"
		for v in $(seq 1 "$5"); do printf '[volume v%s]\npath = ./v%s\ndatabases = %s\n' "$v" "$v" "$6"; done
	} >"$1.ini"
}

# agree NAME WANT: plan, check and run of NAME.ini each say WANT workers and
# the same workers per volume
agree() {
	local name=$1 want=$2 pw rw v cw rv
	"$DISKPROOF" plan "./$name.ini" --data-dir "$WORK/d-$name" --format json >plan.json
	pw=$(python3 -c 'import json,sys; print(json.load(open("plan.json"))["workers"])')
	[ "$pw" = "$want" ] || fail "$name: plan says $pw workers, want $want"
	"$DISKPROOF" check "./$name.ini" --data-dir "$WORK/d-$name" >check.out 2>&1 || true
	set +e
	"$DISKPROOF" run "./$name.ini" --data-dir "$WORK/d-$name" --results "$WORK/$name.db" --quiet >/dev/null 2>run.err
	local rc=$?
	set -e
	[ $rc = 0 ] || [ $rc = 1 ] || { cat run.err; fail "$name: run exit $rc"; }
	rw=$(sqlite3 "$WORK/$name.db" "select value from env where key='workers'" | cut -d' ' -f1)
	[ "$rw" = "$want" ] || fail "$name: the run used $rw workers, plan said $want"
	# per volume: the workers that drive it, as the run recorded and as check says
	for v in $(sqlite3 "$WORK/$name.db" "select name from volume order by name" 2>/dev/null ||
		python3 -c 'import json; [print(v["name"]) for v in json.load(open("plan.json"))["volumes"]]'); do
		rv=$(sqlite3 "$WORK/$name.db" "select key, value from env where key like 'worker.%.volumes'" |
			awk -F'|' -v v="$v" '{split($1, k, "."); n = split($2, vs, ","); for (i = 1; i <= n; i++) { gsub(/ /, "", vs[i]); if (vs[i] == v) print k[2] } }' |
			sort -n | paste -sd, -)
		cw=$(grep "NUMA volume $v:" check.out | sed -n 's/.*driven by worker \([0-9,]*\).*/\1/p')
		[ -n "$rv" ] || fail "$name: no worker of the run drove volume $v"
		[ "$cw" = "$rv" ] || fail "$name: volume $v: check says workers '$cw', the run used '$rv'"
	done
}

cpus=$(nproc)
# fixed: at most one worker per stream, every worker on every database
profile fixed8 fixed 16 8 2 1
agree fixed8 8
profile fixed3 fixed 3 - 2 1
agree fixed3 $((cpus < 3 ? cpus : 3))
# transactional: at most one worker per database, databases round robin
profile txn8 jetstress 6 8 3 1
agree txn8 3
profile txn1 jetstress 2 - 1 1
agree txn1 1
echo "ok"
