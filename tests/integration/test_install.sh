#!/bin/bash
# SPDX-License-Identifier: MIT
# cmake --install of the build tree into a scratch prefix (docs/install.md):
# exactly the files the install rules name land where expected (the binary,
# the man page gzip -9n'd, the bash completion, README.md, docs/*.md and
# their images, examples/*.ini, the copyright file; under share/diskproof the
# JSON schemas, the Grafana dashboard, the Prometheus example and the Ansible
# play) and nothing else (no test helper, benchmark or unit test); the page,
# completion, copyright file and dashboard are the source tree's; the
# installed binary has no RPATH, runs --version as the built one does, and
# prints its built-in profiles away from the source tree.
source "$(dirname "$0")/lib.sh"
set -e
command -v cmake >/dev/null || { echo "skipped: no cmake"; exit 77; }
[ -f "$DP_SOURCE_DIR/docs/diskproof.1" ] || fail "docs/diskproof.1 is missing from the source tree"
[ -f "$DP_SOURCE_DIR/deploy/bash-completion/diskproof" ] ||
	fail "deploy/bash-completion/diskproof is missing from the source tree"

P="$WORK/prefix"
expect_exit 0 cmake --install "$DP_BINARY_DIR" --prefix "$P"

# The man page is compressed when the build found gzip, as written otherwise.
if grep -q '^DP_GZIP:FILEPATH=/' "$DP_BINARY_DIR/CMakeCache.txt"; then
	MAN=share/man/man1/diskproof.1.gz
else
	MAN=share/man/man1/diskproof.1
fi

# The expected list, from the source tree, against what is there.
D=share/doc/diskproof
{
	echo bin/diskproof
	echo "$MAN"
	echo share/bash-completion/completions/diskproof
	echo "$D/README.md"
	for f in "$DP_SOURCE_DIR"/docs/*.md "$DP_SOURCE_DIR"/docs/*.png; do
		echo "$D/docs/$(basename "$f")"
	done
	for f in "$DP_SOURCE_DIR"/examples/*.ini; do
		echo "$D/examples/$(basename "$f")"
	done
	echo "$D/copyright"
	for f in "$DP_SOURCE_DIR"/docs/schema/*.schema.json; do
		echo "share/diskproof/schema/$(basename "$f")"
	done
	echo share/diskproof/grafana/diskproof.json
	echo share/diskproof/grafana/README.md
	echo share/diskproof/prometheus/diskproof.yml
	for f in site.yml inventory.example.ini README.md; do
		echo "share/diskproof/ansible/$f"
	done
	(cd "$DP_SOURCE_DIR/deploy/ansible" && find roles -name '*.yml' | sed 's|^|share/diskproof/ansible/|')
} | sort >want
grep -q '^share/diskproof/schema/report.schema.json$' want || fail "no docs/schema/report.schema.json in the source tree"
grep -q '^share/diskproof/ansible/roles/diskproof/tasks/main.yml$' want || fail "no Ansible role in the source tree"
(cd "$P" && find . -type f -o -type l | sed 's|^\./||' | sort) >got
diff -u want got >diff.out || { cat diff.out >&2; fail "installed files differ from the list above"; }
[ "$(wc -l <got)" -ge 10 ] || fail "only $(wc -l <got) files installed"

[ -x "$P/bin/diskproof" ] || fail "bin/diskproof is not executable"
for f in "$MAN" share/bash-completion/completions/diskproof "$D/README.md"; do
	[ "$(stat -c %a "$P/$f")" = 644 ] || fail "$f has mode $(stat -c %a "$P/$f"), not 644"
done

# Contents: the source tree's page, completion, README and examples.
case $MAN in
*.gz)
	zcat "$P/$MAN" | cmp -s - "$DP_SOURCE_DIR/docs/diskproof.1" ||
		fail "the installed page is not docs/diskproof.1"
	# gzip -n: no file name (FLG bit 3) and no time (MTIME, bytes 4-7) in
	# the header, so the page compresses to the same bytes every time
	read -r flg m0 m1 m2 m3 < <(od -An -tu1 -j3 -N5 "$P/$MAN")
	[ $((flg & 8)) = 0 ] || fail "the compressed page names its file (not gzip -n)"
	[ "$m0$m1$m2$m3" = 0000 ] || fail "the compressed page carries a time (not gzip -n)"
	;;
*) cmp -s "$P/$MAN" "$DP_SOURCE_DIR/docs/diskproof.1" || fail "the installed page is not docs/diskproof.1" ;;
esac
cmp -s "$P/share/bash-completion/completions/diskproof" "$DP_SOURCE_DIR/deploy/bash-completion/diskproof" ||
	fail "the installed completion is not deploy/bash-completion/diskproof"
cmp -s "$P/$D/README.md" "$DP_SOURCE_DIR/README.md" || fail "the installed README.md differs"
cmp -s "$P/$D/examples/five-disks.ini" "$DP_SOURCE_DIR/examples/five-disks.ini" ||
	fail "the installed five-disks.ini differs"
cmp -s "$P/$D/copyright" "$DP_SOURCE_DIR/deploy/debian/copyright" || fail "the installed copyright differs"
cmp -s "$P/share/diskproof/grafana/diskproof.json" "$DP_SOURCE_DIR/deploy/grafana/diskproof.json" ||
	fail "the installed dashboard differs"

# man finds the page in the prefix's tree, where man-db is there.
if command -v man >/dev/null; then
	found=$(man -M "$P/share/man" -w diskproof 2>/dev/null) || fail "man -w does not find the installed page"
	[ "$found" = "$P/$MAN" ] || fail "man -w found '$found', not $P/$MAN"
fi

# No build-tree RPATH or RUNPATH in the installed binary.
if command -v readelf >/dev/null; then
	readelf -d "$P/bin/diskproof" >dyn
	grep -q NEEDED dyn || fail "readelf shows no NEEDED entries: not the dynamic binary expected"
	! grep -Ei 'RPATH|RUNPATH' dyn || fail "the installed binary has an RPATH/RUNPATH"
fi

# It runs: the same version as the built binary, and the built-in profiles
# come from the binary itself, not from the source tree.
expect_exit 0 "$DISKPROOF" --version
built=$(cat "$WORK/out")
expect_exit 0 "$P/bin/diskproof" --version
[ "$(cat "$WORK/out")" = "$built" ] || fail "installed --version '$(cat "$WORK/out")', built '$built'"
grep -qE '^diskproof [0-9]+\.[0-9]+\.[0-9]+' "$WORK/out" || fail "--version printed '$(cat "$WORK/out")'"
mkdir elsewhere
cd elsewhere
expect_exit 0 "$P/bin/diskproof" profiles show quick
grep -q '^\[' "$WORK/out" || fail "profiles show quick printed no INI section"
echo "ok: $(wc -l <"$WORK/got") files installed"
