#!/bin/bash
# SPDX-License-Identifier: MIT
# Environment facts and compare: two short runs of tiny.ini on real files
# record the host and device facts that "diskproof check" shows (CPU
# governor, NUMA nodes, io_uring, each volume's filesystem and disks, each
# disk's firmware and NUMA node); run against run, nothing in the
# environment differs; after one run's disk firmware is edited in the
# results file (1.2 -> 1.3), "diskproof compare" lists exactly that change,
# in text and JSON. Where no block device is beneath the volumes (a
# container's overlay) the firmware rows are inserted instead, so the
# comparison is still exercised. Exit 77 without io_uring.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
P="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"
R=(--results "$WORK/r.db")
q() { sqlite3 "$WORK/r.db" "$1"; }

expect_verdict "$DISKPROOF" run "$P" --duration 2s --data-dir "$WORK/d" --quiet "${R[@]}" # run 1
expect_verdict "$DISKPROOF" run "$P" --duration 2s --data-dir "$WORK/d" --quiet "${R[@]}" # run 2

# 1. what check shows, run records (values may be "unknown", never missing)
for k in host.cpufreq_governor host.cpufreq_driver host.numa_nodes host.io_uring \
	host.memlock_limit volume.a.fstype volume.a.mount_point volume.a.mount_options \
	volume.a.disks volume.b.disks device.a.numa_node device.a.firmware; do
	[ -n "$(q "select value from env where run_id = 1 and key = '$k'")" ] ||
		fail "run 1 did not record $k: $(q "select key from env where run_id = 1")"
done
[ "$(q "select value from env where run_id = 1 and key = 'volume.a.fstype'")" != unknown ] ||
	fail "the filesystem of volume a is unknown"
q "select value from env where run_id = 1 and key = 'host.io_uring'" | grep -q "^available: " ||
	fail "host.io_uring"
# every disk beneath a volume has its dev.DISK.* facts
for disk in $(q "select value from env where run_id = 1 and key = 'volume.a.disks'" | tr -d ,); do
	[ "$disk" = unknown ] && continue
	for f in model firmware serial rotational scheduler nr_requests write_cache numa_node; do
		[ -n "$(q "select value from env where run_id = 1 and key = 'dev.$disk.$f'")" ] ||
			fail "no dev.$disk.$f"
	done
done

# 2. the same machine twice: no environment difference (no volatile fact)
expect_exit 0 "$DISKPROOF" compare 1 2 --format json "${R[@]}"
[ "$(json 'd["env_differences"]')" = "[]" ] || fail "differences between identical runs: $(json 'd["env_differences"]')"

# 3. a firmware update between the runs
key=$(q "select key from env where run_id = 1 and key like 'dev.%.firmware' order by key limit 1")
if [ -z "$key" ]; then
	key=dev.vda.firmware
	q "insert into env (run_id, key, value) values (1, '$key', 'x'), (2, '$key', 'x')"
fi
disk=${key#dev.}
disk=${disk%.firmware}
q "update env set value = '1.2' where run_id = 1 and key = '$key'"
q "update env set value = '1.3' where run_id = 2 and key = '$key'"
expect_exit 0 "$DISKPROOF" compare 1 2 "${R[@]}"
sed -n '/^environment differences:/,$p' "$WORK/out" >envdiff
grep -qF "  $key: 1.2 → 1.3" envdiff || fail "compare does not show the firmware change: $(cat "$WORK/out")"
[ "$(grep -c '^  ' envdiff)" = 1 ] || fail "more than the firmware differs: $(cat envdiff)"
expect_exit 0 "$DISKPROOF" compare 1 2 --format json "${R[@]}"
[ "$(json "[(e['key'], e['a'], e['b']) for e in d['env_differences']]")" = \
	"[('$key', '1.2', '1.3')]" ] || fail "JSON env_differences: $(json 'd["env_differences"]')"
echo "ok ($disk)"
