#!/bin/bash
# SPDX-License-Identifier: MIT
# test_no_services_left.sh - after the tests that run PostgreSQL, MariaDB, Prometheus
# or sshd (test_prometheus, test_prometheus_final, test_fleet_ansible, test_learn_db,
# fidelity/pgbench, fidelity/mariadb: ctest runs
# this one after them, as the cleanup of their fixture "services"), none of
# those services is left behind:
#   - enabled at boot: no S link in /etc/rc[2-5].d and no symlink in
#     /etc/systemd/system/*.wants for postgresql, mariadb, prometheus,
#     prometheus-node-exporter or ssh (README's second command,
#     tests/apt_install_no_services.sh, installs their packages without
#     that);
#   - running as a system service: no postgres, mariadbd, prometheus,
#     prometheus-node-exporter or sshd process that is not a test's own copy
#     (a copy names its test's scratch directory on its command line, or its
#     parent of the same program does: sshd's and postgres's children rename
#     themselves);
#   - left by a test of this build: no such process naming this build's
#     directory once the tests using them are over.
# Each check is first shown to fail on a planted fault: boot links in a
# scratch /etc, and a copy of sleep(1) named prometheus run from this build's
# scratch directory and from /tmp.
set -e
. "$(dirname "$0")/lib.sh"

SERVICES="postgresql mariadb prometheus prometheus-node-exporter ssh"
EXES="/usr/lib/postgresql/*/bin/postgres /usr/sbin/mariadbd /usr/bin/prometheus /usr/bin/prometheus-node-exporter /usr/sbin/sshd"

# enabled_at_boot ROOT: one line for each boot link of SERVICES under ROOT/etc
enabled_at_boot() {
	local root=$1 s l
	for s in $SERVICES; do
		for l in "$root"/etc/rc[2-5].d/S[0-9][0-9]"$s"; do
			[ -L "$l" ] && echo "$s starts at boot: ${l#"$root"} (sysv; update-rc.d $s disable)"
		done
		for l in "$root"/etc/systemd/system/*.wants/"$s".service "$root"/etc/systemd/system/*.wants/"$s".socket; do
			[ -L "$l" ] && echo "$s starts at boot: ${l#"$root"} (systemctl disable $(basename "$l"))"
		done
	done
	true
}

# is_service_exe PATH: PATH is one of EXES (globs)
is_service_exe() {
	local e
	for e in $EXES; do
		[ "$1" = "$e" ] && return 0
	done
	return 1
}

# chain PID: the command lines of PID and of its ancestors running the same
# program, one a line
chain() {
	local pid=$1 exe ppid
	exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 0
	while [ -n "$pid" ] && [ "$pid" -gt 1 ]; do
		[ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$exe" ] || break
		tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null
		echo
		ppid=$(awk '{ print $4 }' "/proc/$pid/stat" 2>/dev/null) || break
		pid=$ppid
	done
}

# service_procs: "KIND PID EXE: CMDLINE" for each process running one of
# EXES, KIND "leftover" (names this build's directory) or "system" (names
# no test's scratch directory); other builds' tests' copies are not listed
service_procs() {
	local p pid exe c
	for p in /proc/[0-9]*; do
		pid=${p#/proc/}
		exe=$(readlink "$p/exe" 2>/dev/null) || continue
		is_service_exe "$exe" || continue
		c=$(chain "$pid")
		case $c in
		*"$DP_BINARY_DIR/"*) echo "leftover $pid $exe: $(head -1 <<<"$c")" ;;
		*/scratch/test_* | *pgbench-fidelity* | */fidelity/pgbench* | *mariadb-fidelity*) ;;
		*) echo "system $pid $exe: $(head -1 <<<"$c")" ;;
		esac
	done
	true
}

# --- the checks fail when they should
R="$WORK/root"
mkdir -p "$R/etc/rc3.d" "$R/etc/rc2.d" "$R/etc/systemd/system/multi-user.target.wants"
ln -s ../init.d/postgresql "$R/etc/rc3.d/S01postgresql"
ln -s ../init.d/prometheus "$R/etc/rc2.d/K01prometheus" # disabled: not listed
ln -s /lib/systemd/system/ssh.service "$R/etc/systemd/system/multi-user.target.wants/ssh.service"
enabled_at_boot "$R" >planted
grep -q '^postgresql starts at boot: /etc/rc3.d/S01postgresql' planted || fail "a planted sysv S link passed: $(cat planted)"
grep -q '^ssh starts at boot: /etc/systemd/system/multi-user.target.wants/ssh.service' planted ||
	fail "a planted systemd link passed: $(cat planted)"
[ "$(wc -l <planted)" = 2 ] || fail "wanted 2 boot links (K01prometheus is disabled): $(cat planted)"

TMPD=$(mktemp -d /tmp/dp-no-services.XXXXXX)
at_exit "rm -rf $TMPD"
mkdir "$WORK/plant"
cp "$(command -v sleep)" "$WORK/plant/prometheus"
cp "$(command -v sleep)" "$TMPD/prometheus"
"$WORK/plant/prometheus" 300 &
P1=$!
at_exit "kill $P1"
"$TMPD/prometheus" 300 &
P2=$!
at_exit "kill $P2"
sleep 0.2
EXES="$EXES $WORK/plant/prometheus $TMPD/prometheus" service_procs >planted
grep -q "^leftover $P1 $WORK/plant/prometheus" planted || fail "a planted leftover passed: $(cat planted)"
grep -q "^system $P2 $TMPD/prometheus" planted || fail "a planted system instance passed: $(cat planted)"
kill $P1 $P2
wait $P1 $P2 2>/dev/null || true

# --- this machine, after the tests that use those services
bad=0
if [ -n "$(enabled_at_boot "")" ]; then
	enabled_at_boot "" >&2
	bad=1
fi
service_procs >procs
if [ -s procs ]; then
	sed 's/^leftover/left running by a test of this build:/; s/^system/running as a system service:/' procs >&2
	bad=1
fi
[ $bad = 0 ] || fail "services the tests use are enabled at boot or running (README's second command installs them with tests/apt_install_no_services.sh; tests stop the copies they start)"
echo "ok"
