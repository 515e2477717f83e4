#!/bin/bash
# SPDX-License-Identifier: MIT
# apt_install_no_services.sh - README's second command: apt-get install the
# packages the tests need (PostgreSQL, Prometheus, sshd, Chromium, ...)
# without starting any service, and leave the machine's boot as it was.
#
# usage: tests/apt_install_no_services.sh PACKAGE...      (root)
#
# Debian starts and enables a package's services as it installs it:
# postgresql starts a cluster on port 5432, prometheus listens on 9090,
# openssh-server opens port 22, and each is set to start at every boot. The
# tests start their own copies (own directories, ports and configuration)
# and stop them; they need the binaries only. So:
#   - during the install, /usr/sbin/policy-rc.d answers 101 ("action
#     forbidden"), which invoke-rc.d (sysv) and deb-systemd-invoke (systemd)
#     both obey: no service starts (an existing policy-rc.d is put back after);
#   - after it, every service, socket or timer the install enabled at boot
#     (a new S link in /etc/rc[2-5].d, a new symlink in
#     /etc/systemd/system/*.wants) is disabled again, with update-rc.d (sysv
#     links, and systemd's too where systemctl is installed) and systemctl or,
#     without it, deb-systemd-helper: this works with systemd as PID 1 and
#     without it (a container, a chroot, sysvinit);
#   - the services the tests run copies of (TEST_SERVICES below) are disabled
#     at boot even when enabled before (by an older README that installed
#     them the ordinary way); one of them found running is reported, not
#     stopped (it was not started here).
# tests/integration/test_no_services_left.sh checks the result after the
# suite.
set -euo pipefail
TEST_SERVICES="postgresql mariadb prometheus prometheus-node-exporter ssh"
[ $# -gt 0 ] || { echo "usage: $0 PACKAGE..." >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "$0: apt-get install needs root" >&2; exit 2; }

# enabled: one line per boot link, "sysv NAME" or "systemd UNIT"
enabled() {
	local l
	for l in /etc/rc[2-5].d/S*; do
		[ -L "$l" ] && echo "sysv $(basename "$l" | sed 's/^S[0-9]*//')"
	done
	for l in /etc/systemd/system/*.wants/* /etc/systemd/system/*.requires/*; do
		[ -L "$l" ] && echo "systemd $(basename "$l")"
	done
	true
}

POLICY=/usr/sbin/policy-rc.d
SAVED=""
restore_policy() {
	if [ -n "$SAVED" ]; then
		mv -f "$SAVED" "$POLICY"
	else
		rm -f "$POLICY"
	fi
}
if [ -e "$POLICY" ]; then
	SAVED=$(mktemp "$POLICY.saved.XXXXXX")
	cp -p "$POLICY" "$SAVED"
fi
trap restore_policy EXIT
printf '#!/bin/sh\n# %s: no service starts during this install\nexit 101\n' "$0" >"$POLICY"
chmod 755 "$POLICY"

before=$(enabled | sort -u)
DEBIAN_FRONTEND=noninteractive apt-get install -y -o DPkg::Lock::Timeout=300 "$@"
restore_policy
trap - EXIT
after=$(enabled | sort -u)

sysv_off() {
	[ -e "/etc/init.d/$1" ] || return 0
	update-rc.d "$1" disable >/dev/null 2>&1 || echo "warning: update-rc.d $1 disable failed" >&2
}
unit_off() {
	[ -z "${1##*@*}" ] && return 0 # a template's instance: made by a generator, not by the package
	if command -v systemctl >/dev/null; then
		systemctl disable --quiet "$1" 2>/dev/null || echo "warning: systemctl disable $1 failed" >&2
	elif command -v deb-systemd-helper >/dev/null; then
		deb-systemd-helper disable "$1" >/dev/null 2>&1 || echo "warning: deb-systemd-helper disable $1 failed" >&2
	fi
}
added=$(comm -13 <(echo "$before") <(echo "$after"))
while read -r kind name; do
	[ -n "$kind" ] || continue
	echo "disabling at boot what this install enabled: $name"
	if [ "$kind" = sysv ]; then sysv_off "$name"; else unit_off "$name"; fi
done <<<"$added"
for s in $TEST_SERVICES; do
	sysv_off "$s"
	[ -e "/lib/systemd/system/$s.service" ] && unit_off "$s.service"
	[ -e "/lib/systemd/system/$s.socket" ] && unit_off "$s.socket"
done
for p in /proc/[0-9]*; do
	exe=$(readlink "$p/exe" 2>/dev/null) || continue
	case $exe in
	/usr/lib/postgresql/*/bin/postgres | /usr/bin/prometheus | /usr/bin/prometheus-node-exporter | /usr/sbin/sshd)
		echo "note: $exe runs (pid ${p#/proc/}), started before this install; left alone" >&2 ;;
	esac
done
left=$(comm -13 <(echo "$before") <(enabled | sort -u))
[ -z "$left" ] || { echo "$0: still enabled at boot after the install: $left" >&2; exit 1; }
exit 0
