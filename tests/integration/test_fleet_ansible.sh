#!/bin/bash
# SPDX-License-Identifier: MIT
# The fleet playbook (deploy/ansible/site.yml) end to end over real SSH:
# three "hosts", each a network namespace with its own address (a veth pair,
# 10.231.N.2 inside, 10.231.N.1 here) and its own sshd (own config, host key
# and pid file; root logs in with a key made here). ansible-playbook installs
# diskproof on them from the .deb that cpack makes of this build (one host
# at a time: the three share this machine's dpkg database), runs "diskproof
# check", starts the three runs at once (a short io_uring profile on small
# files, a data directory and results file per host), waits until all three
# are ready, writes one start time (the latest ready time plus the margin)
# to every host's start file, waits, fetches the three results files,
# imports them into one and writes the fleet report. Then:
#   - the fleet report (JSON) lists the three hosts, by the names the play
#     gave them (--host), none missing or late, verdict from the runs';
#     the text and HTML reports are written;
#   - its merged I/O count (totals.ios, and the sum of its summary classes)
#     is the sum of the hosts' rows and the sum over each host's own results
#     file (diskproof report --results HOSTFILE, its summary's classes);
#   - the three runs' recorded starts (load_started_at in the imported file)
#     lie within 100 ms of each other, each after the one chosen start time
#     (start_at, the same for all three, after every host's ready time) by
#     less than 100 ms;
#   - the hosts ran the packaged /usr/bin/diskproof.
# DP_FLEET_INSTALL=none runs the build's binary on the hosts instead of the
# .deb (also what happens when a diskproof package is installed already: the
# test never replaces it, and removes only the package it installed).
# Machine-wide resources, each under a lock (lib.sh machine_lock) held to
# the end: the subnets 10.231.1-3.0/24 with the namespace and link names
# dpft-* (/run/lock/diskproof-test-net-10.231.lock), and, when it installs
# the .deb, the dpkg database (/run/lock/diskproof-test-dpkg.lock). Under
# those locks it first removes what a killed run of its own left: its
# namespaces, links and their processes, the package it had installed
# (marked in /var/tmp/diskproof-test-fleet_ansible.installed), and its
# scratch directories and processes (leftovers_remove).
# Needs root, ip netns, sshd and ansible-playbook (exit 77 otherwise).
# Slow (label slow): about a minute, most of it Ansible and the run.
source "$(dirname "$0")/lib.sh"
set -e
need_root "network namespaces, sshd, installing the .deb"
for t in ip ansible-playbook ssh ssh-keygen sqlite3 python3; do
	command -v $t >/dev/null || { echo "skipped: no $t (iproute2, ansible-core, openssh-client, sqlite3)"; exit 77; }
done
SSHD=/usr/sbin/sshd
[ -x $SSHD ] || { echo "skipped: no $SSHD (openssh-server)"; exit 77; }
"$DISKPROOF" help run 2>&1 | grep -q -- '--start-at' || { echo "skipped: this diskproof has no run --start-at"; exit 77; }
"$DISKPROOF" help fleet >/dev/null 2>&1 || { echo "skipped: this diskproof has no fleet command"; exit 77; }
skip_without_uring
SITE="$DP_SOURCE_DIR/deploy/ansible/site.yml"
T0=$(date +%s)
leftovers_remove

# --- three hosts: a namespace, a veth pair and an sshd each; the names and
# the subnets are this test's alone while it holds the lock
machine_lock net-10.231 "the subnets 10.231.1-3.0/24, namespaces and links dpft-*"
# what a killed run left (and the names an older version of this test
# used: dpfleetPID-N, dpfPIDNh): its processes, namespaces and links
for ns in $(ip netns list | awk '{print $1}' | grep -E '^(dpft-|dpfleet[0-9]+)'); do
	ip netns pids "$ns" | xargs -r kill -9
	ip netns delete "$ns" && echo "removed the namespace $ns, left by a killed run"
done
for l in $(ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E '^(dpft|dpf[0-9]+[pqhn]$)'); do
	ip link delete "$l" 2>/dev/null && echo "removed the link $l, left by a killed run"
done
# namespaces and veth pairs need CAP_SYS_ADMIN, CAP_NET_ADMIN and the veth
# driver, which a container may lack
ip netns add dpft-probe 2>netns.err || { echo "skipped: ip netns add: $(cat netns.err)"; exit 77; }
ip netns delete dpft-probe
ip link add dpftp type veth peer name dpftq 2>netns.err || { echo "skipped: no veth pair: $(cat netns.err)"; exit 77; }
ip link delete dpftp
# sshd wants its privilege separation directory; made (and removed) here
# only when the system has none
if [ ! -d /run/sshd ]; then
	mkdir -m 0755 /run/sshd
	at_exit "rmdir /run/sshd"
fi
mkdir ssh
ssh-keygen -q -t ed25519 -N '' -C diskproof-fleet-test -f ssh/id
ssh-keygen -q -t ed25519 -N '' -f ssh/hostkey
cp ssh/id.pub ssh/authorized_keys
chmod 600 ssh/authorized_keys
for n in 1 2 3; do
	ns="dpft-h$n" hv="dpft${n}h" nv="dpft${n}n"
	! ip -o addr show | grep -q "10\.231\.$n\.[12]/" ||
		fail "10.231.$n.0/24 is in use on this machine, not by this test: $(ip -o addr show | grep "10\.231\.$n\.")"
	ip netns add "$ns"
	# what runs in the namespace (sshd and what it started) goes first,
	# then the namespace and the veth pair (its other end goes with it)
	at_exit "ip link delete $hv"
	at_exit "ip netns delete $ns"
	at_exit "ip netns pids $ns | xargs -r kill -9; sleep 0.2"
	ip link add "$hv" type veth peer name "$nv"
	ip link set "$nv" netns "$ns"
	ip addr add "10.231.$n.1/24" dev "$hv"
	ip link set "$hv" up
	ip -n "$ns" addr add "10.231.$n.2/24" dev "$nv"
	ip -n "$ns" link set "$nv" up
	ip -n "$ns" link set lo up
	mkdir "h$n"
	cat >"h$n/sshd_config" <<CFG
ListenAddress 10.231.$n.2
Port 22
HostKey $WORK/ssh/hostkey
PidFile $WORK/h$n/sshd.pid
AuthorizedKeysFile $WORK/ssh/authorized_keys
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
Subsystem sftp /usr/lib/openssh/sftp-server
CFG
	ip netns exec "$ns" $SSHD -D -f "$WORK/h$n/sshd_config" -E "$WORK/h$n/sshd.log" &
	at_exit "kill $!"
done
SSH_OPTS="-F /dev/null -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o IdentitiesOnly=yes -o LogLevel=ERROR"
for n in 1 2 3; do
	# sshd may take a while to listen on a loaded machine: 60 s at most
	for _ in $(seq 300); do
		# shellcheck disable=SC2086
		ssh $SSH_OPTS -o ConnectTimeout=2 -i ssh/id root@10.231.$n.2 true 2>/dev/null && break
		sleep 0.2
	done
	# shellcheck disable=SC2086
	ssh $SSH_OPTS -o ConnectTimeout=2 -i ssh/id root@10.231.$n.2 \
		"ip -o addr show | grep -q 10.231.$n.2/" ||
		fail "no SSH into host $n's namespace: $(tail -5 "h$n/sshd.log")"
done
echo "three sshds up in $(($(date +%s) - T0)) s"

# --- how the hosts get diskproof: the .deb of this build, unless
# DP_FLEET_INSTALL=none or a diskproof package is installed already (never
# replaced)
INSTALL=${DP_FLEET_INSTALL:-deb}
MARK=/var/tmp/diskproof-test-fleet_ansible.installed
if [ "$INSTALL" = deb ]; then
	for t in cpack dpkg-shlibdeps apt-get; do
		command -v $t >/dev/null || { echo "no $t: the hosts run the build's binary"; INSTALL=none; }
	done
fi
if [ "$INSTALL" = deb ]; then
	machine_lock dpkg "the dpkg database"
	# the package a killed run of this test installed (its mark) is ours
	if [ -e $MARK ] && dpkg-query -W -f '${Status}' diskproof 2>/dev/null | grep -q 'ok installed'; then
		dpkg -r diskproof >/dev/null && echo "removed the diskproof package a killed run of this test installed"
	fi
	rm -f $MARK
	if dpkg-query -W -f '${Status}' diskproof 2>/dev/null | grep -q 'ok installed'; then
		echo "a diskproof package is installed already: the hosts run the build's binary"
		INSTALL=none
	fi
fi
if [ "$INSTALL" = deb ]; then
	expect_exit 0 cpack -G DEB --config "$DP_BINARY_DIR/CPackConfig.cmake" -B "$WORK/pkg"
	debs=("$WORK"/pkg/diskproof_*.deb)
	[ ${#debs[@]} = 1 ] && [ -f "${debs[0]}" ] || fail "cpack wrote no single diskproof_*.deb"
	# removed at exit whatever happens, and only if it was not there before
	# (the mark tells the next run a package left by a kill is this test's)
	touch $MARK
	at_exit "dpkg -r diskproof; rm -f $MARK"
	INSTALL_VARS="diskproof_install=deb
diskproof_deb=${debs[0]}"
	HOST_BIN=/usr/bin/diskproof
else
	INSTALL_VARS="diskproof_install=none
diskproof_bin=$DISKPROOF"
	HOST_BIN=$DISKPROOF
fi
echo "install: $INSTALL"

# --- the play's inputs: a short profile, an inventory, a private Ansible
# configuration (nothing read from or written to ~/.ansible or /etc/ansible)
cat >fleet.ini <<'INI'
[test]
description = fleet test: one small database, 5 s
duration = 5s
warmup = 1s
[sizing]
database_size = 8MiB
log_size = 1MiB
[workload]
log_segment_size = 256KiB
[engine]
name = io_uring
streams = 2
[volume a]
path = ./a
databases = 1
INI
{
	echo "[diskproof]"
	for n in 1 2 3; do
		echo "h$n ansible_host=10.231.$n.2 diskproof_data_dir=$WORK/h$n/data" \
			"diskproof_results=$WORK/h$n/results.db diskproof_remote_profile=$WORK/h$n/profile.ini"
	done
	echo "[diskproof:vars]"
	echo "ansible_user=root"
	echo "ansible_ssh_private_key_file=$WORK/ssh/id"
	echo "ansible_ssh_common_args='$SSH_OPTS'"
	echo "ansible_python_interpreter=/usr/bin/python3"
	printf '%b\n' "$INSTALL_VARS"
} >inventory.ini
mkdir -p ansible/tmp ansible/remote ansible/home ansible/cp ansible/async
cat >ansible.cfg <<CFG
[defaults]
home = $WORK/ansible/home
local_tmp = $WORK/ansible/tmp
remote_tmp = $WORK/ansible/remote
forks = 10
host_key_checking = False
retry_files_enabled = False
interpreter_python = /usr/bin/python3
nocows = True
[ssh_connection]
pipelining = True
control_path_dir = $WORK/ansible/cp
ssh_args = -o ControlMaster=auto -o ControlPersist=30s
CFG
# the SSH masters Ansible leaves behind (ControlPersist) go at exit
at_exit "for s in $WORK/ansible/cp/*; do ssh -o ControlPath=\$s -O exit x; done"
export ANSIBLE_CONFIG="$WORK/ansible.cfg" ANSIBLE_ASYNC_DIR="$WORK/ansible/async"
export ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0
# the margin covers writing the three start files: one module run each,
# seconds on a loaded machine
MARGIN=${DP_FLEET_MARGIN:-30s}

# --- the play
t_play=$(date +%s)
set +e
# shellcheck disable=SC2086
ansible-playbook -i inventory.ini "$SITE" \
	-e "diskproof_profile=$WORK/fleet.ini" -e "diskproof_controller_bin=$DISKPROOF" \
	-e "diskproof_start_margin=$MARGIN" -e "diskproof_ready_timeout=240" -e "diskproof_run_timeout=600" \
	-e "diskproof_label=fleet-test" -e "diskproof_poll_interval=2" \
	-e "diskproof_fetch_dir=$WORK/collected" 2>&1 |
	python3 -uc 'import sys, time
t0 = time.time()
for l in sys.stdin: sys.stdout.write("%6.1f %s" % (time.time() - t0, l))' >play.log
rc=${PIPESTATUS[0]}
set -e
[ $rc = 0 ] || { cat play.log >&2; fail "ansible-playbook exited $rc"; }
echo "the play took $(($(date +%s) - t_play)) s"
# when each step ended, seconds into the play
grep -E '^ *[0-9.]+ (TASK|PLAY RECAP)|the load starts at' play.log || true

C="$WORK/collected"
for f in fleet.db fleet.txt fleet.json fleet.html h1.db h2.db h3.db; do
	[ -s "$C/$f" ] || fail "the play left no $C/$f: $(ls "$C")"
done

# --- the report: three hosts, one merged I/O count
python3 - "$C" "$DISKPROOF" <<'PY' || fail "the fleet report's figures (above)"
import json, subprocess, sys
c, dp = sys.argv[1:]
f = json.load(open(c + "/fleet.json"))
def classes(summary):
    # a run's summary: {"classes": {CLASS: {"ios": ...}}, ...}
    return summary.get("classes", summary)
hosts = sorted(h["host"] for h in f["hosts"])
assert hosts == ["h1", "h2", "h3"], "hosts %s" % hosts
assert f["totals"]["hosts"] == 3 and f["totals"]["runs"] == 3, "totals %s" % f["totals"]
assert f["expected_hosts"] == ["h1", "h2", "h3"] and f["missing"] == [], (f["expected_hosts"], f["missing"])
assert f["late"] == [], "late runs %s" % f["late"]
assert f["verdict"] == ("PASS" if all(h["verdict"] == "PASS" for h in f["hosts"]) else "FAIL"), f["verdict"]
rows = sum(h["ios"] for h in f["hosts"])
merged = sum(v["ios"] for v in classes(f["summary"]).values())
own = {}
for h in ("h1", "h2", "h3"):
    out = subprocess.run([dp, "report", "--results", "%s/%s.db" % (c, h), "--format", "json"],
                         check=True, capture_output=True, text=True).stdout
    r = json.loads(out)
    assert r["run"]["host"] == h, "%s.db's run has host %s" % (h, r["run"]["host"])
    own[h] = sum(v["ios"] for v in classes(r["summary"]).values())
    row = [x for x in f["hosts"] if x["host"] == h][0]
    assert row["ios"] == own[h], "%s: fleet row %d I/Os, its own file %d" % (h, row["ios"], own[h])
print("ios: totals %d, summary classes %d, host rows %d, host files %s" % (
    f["totals"]["ios"], merged, rows, own))
assert own["h1"] > 0 and own["h2"] > 0 and own["h3"] > 0, "a host measured no I/O"
assert f["totals"]["ios"] == merged == rows == sum(own.values()), "the counts differ"
PY
cat "$C/fleet.txt"
grep -q h1 "$C/fleet.txt" && grep -q h2 "$C/fleet.txt" && grep -q h3 "$C/fleet.txt" ||
	fail "the text report does not name the three hosts: $(cat "$C/fleet.txt")"
for n in 1 2 3; do grep -q "h$n" "$C/fleet.html" || fail "the HTML report does not name h$n"; done

# --- the starts: one start time, three loads within 100 ms of it and of
# each other
sqlite3 -separator ' ' "$C/fleet.db" \
	"select host, start_at, load_started_at from run where label = 'fleet-test' order by host" >starts
sqlite3 -separator ' ' "$C/fleet.db" "select r.host, e.message from event e join run r on r.id = e.run_id
	where e.kind = 'ready' and r.label = 'fleet-test' order by r.host" >ready
cat starts ready
python3 - starts ready <<'PY' || fail "the recorded starts (above)"
import datetime, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
ready = [l.split()[3] for l in open(sys.argv[2]) if l.strip()]
assert len(ready) == 3, "ready events %s" % ready
assert [r[0] for r in rows] == ["h1", "h2", "h3"], "runs %s" % rows
def t(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
start_at = {r[1] for r in rows}
assert len(start_at) == 1, "the runs were given different start times: %s" % start_at
at = t(start_at.pop())
assert all(t(r) < at for r in ready), "the start time is not after every host's ready time %s" % ready
loads = [t(r[2]) for r in rows]
skew = (max(loads) - min(loads)) * 1000
late = [(l - at) * 1000 for l in loads]
print("skew %.3f ms; after the start time by %s ms" % (skew, ", ".join("%.3f" % x for x in late)))
assert skew < 100, "the loads started %.1f ms apart" % skew
assert all(0 <= x < 100 for x in late), "a load started %s ms after the start time" % late
PY

# --- what the hosts ran
for n in 1 2 3; do
	cl=$(sqlite3 "$C/h$n.db" "select command_line from run order by id desc limit 1")
	case $cl in
	"$HOST_BIN run "*) ;;
	*) fail "host h$n ran '$cl', not $HOST_BIN" ;;
	esac
done
[ "$INSTALL" != deb ] || [ "$(dpkg-query -W -f '${Version}' diskproof)" = "$("$DISKPROOF" --version | awk '{print $2}')" ] ||
	fail "the installed package is not this build's version"
echo "ok: three hosts over SSH, install $INSTALL, margin $MARGIN, $(($(date +%s) - T0)) s in all"
