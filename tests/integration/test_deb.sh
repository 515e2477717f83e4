#!/bin/bash
# SPDX-License-Identifier: MIT
# cpack -G DEB on the build tree, packaged into a scratch directory (the build
# directory's own .deb and _CPack_Packages are left alone): the package is
# diskproof at the project's version; Depends:, worked out by
# dpkg-shlibdeps, names the package of every library the binary links
# (liburing among them); its files are all under ./usr, with the binary
# alone in ./usr/bin, the man page, the completion, the docs, the
# machine-readable copyright file (Debian's format 1.0, License: MIT with
# LICENSE's text), every JSON schema, the Grafana dashboard, the Prometheus
# example and the Ansible play under ./usr/share/diskproof; extracted
# with dpkg-deb -x (never dpkg -i: the suite runs in parallel), the binary
# is stripped, has no RPATH, and runs --version. Slow-labelled: cpack
# installs and compresses the whole tree.
source "$(dirname "$0")/lib.sh"
set -e
for t in cpack dpkg-deb dpkg-shlibdeps dpkg-query file readelf; do
	command -v $t >/dev/null || { echo "skipped: no $t (cmake, dpkg-dev, file, binutils)"; exit 77; }
done
[ -f "$DP_BINARY_DIR/CPackConfig.cmake" ] || fail "no CPackConfig.cmake in $DP_BINARY_DIR"

expect_exit 0 cpack -G DEB --config "$DP_BINARY_DIR/CPackConfig.cmake" -B "$WORK/pkg"
debs=("$WORK"/pkg/diskproof_*.deb)
[ ${#debs[@]} = 1 ] && [ -f "${debs[0]}" ] || fail "cpack wrote no single diskproof_*.deb: $(ls "$WORK/pkg")"
DEB=${debs[0]}

# The control fields.
expect_exit 0 "$DISKPROOF" --version
version=$(awk '{print $2}' "$WORK/out")
[ "$(dpkg-deb -f "$DEB" Package)" = diskproof ] || fail "Package: $(dpkg-deb -f "$DEB" Package)"
[ "$(dpkg-deb -f "$DEB" Version)" = "$version" ] ||
	fail "Version: $(dpkg-deb -f "$DEB" Version), the binary says $version"
[ "$(dpkg-deb -f "$DEB" Architecture)" = "$(dpkg --print-architecture)" ] ||
	fail "Architecture: $(dpkg-deb -f "$DEB" Architecture)"
[ -n "$(dpkg-deb -f "$DEB" Maintainer)" ] || fail "no Maintainer:"
[ -n "$(dpkg-deb -f "$DEB" Section)" ] || fail "no Section:"
depends=$(dpkg-deb -f "$DEB" Depends)
echo "Depends: $depends"
[ -n "$depends" ] || fail "Depends: is empty (dpkg-shlibdeps did not run?)"
# Every library the built binary links (NEEDED; not what those libraries
# link in turn), by the package that holds it here: found where the loader
# finds it, by its directory too (*/x86_64-linux-gnu/libm.so.6, not lib32's).
readelf -d "$DISKPROOF" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' >sonames
ldd "$DISKPROOF" | awk 'NR == FNR {want[$1] = 1; next} $2 == "=>" && ($1 in want) && $3 ~ /^\// {print $3}' \
	sonames - >needed
[ "$(wc -l <needed)" = "$(wc -l <sonames)" ] || fail "ldd does not find every NEEDED library: $(cat sonames)"
grep -q '/liburing' needed || fail "the binary does not link liburing? $(cat needed)"
while read -r path; do
	so="$(basename "$(dirname "$path")")/$(basename "$path")"
	pkg=$(dpkg-query -S "*/$so" 2>/dev/null | head -1 | cut -d: -f1)
	[ -n "$pkg" ] || fail "no installed package holds $so"
	grep -qE "(^|, )$pkg( |,|$)" <<<"$depends" || fail "Depends: lacks $pkg (for $so): $depends"
done <needed
grep -qE '(^|, )liburing[0-9]+ ' <<<"$depends" || fail "Depends: names no liburing package: $depends"

# The files.
dpkg-deb -c "$DEB" | awk '{print $NF}' >files
grep -vq '^\./usr/' files && fail "files outside ./usr/: $(grep -v '^\./usr/' files | head -3)"
for f in ./usr/bin/diskproof ./usr/share/bash-completion/completions/diskproof \
	./usr/share/doc/diskproof/README.md ./usr/share/doc/diskproof/examples/five-disks.ini; do
	grep -qxF "$f" files || fail "$f is not in the package"
done
grep -qE '^\./usr/share/man/man1/diskproof\.1(\.gz)?$' files || fail "no man page in the package"
C=./usr/share/doc/diskproof/copyright
S=./usr/share/diskproof
for f in $C $S/grafana/diskproof.json $S/prometheus/diskproof.yml $S/ansible/site.yml \
	$S/ansible/roles/diskproof/tasks/main.yml; do
	grep -qxF "$f" files || fail "$f is not in the package"
done
n=0
for f in "$DP_SOURCE_DIR"/docs/schema/*.schema.json; do
	grep -qxF "$S/schema/$(basename "$f")" files || fail "$S/schema/$(basename "$f") is not in the package"
	n=$((n + 1))
done
[ $n -ge 7 ] || fail "only $n schemas in docs/schema"
[ "$(grep -c '^\./usr/bin/.' files)" = 1 ] || fail "more than the binary in ./usr/bin: $(grep '^\./usr/bin/.' files)"

# Unpacked: the binary as a user gets it.
expect_exit 0 dpkg-deb -x "$DEB" "$WORK/root"
B="$WORK/root/usr/bin/diskproof"
file "$B" | grep -q ', stripped' || fail "the packaged binary is not stripped: $(file "$B")"
! readelf -d "$B" | grep -Ei 'RPATH|RUNPATH' || fail "the packaged binary has an RPATH/RUNPATH"
expect_exit 0 "$B" --version
[ "$(cat "$WORK/out")" = "diskproof $version" ] || fail "packaged --version printed '$(cat "$WORK/out")'"
# The copyright file: Debian's machine-readable format, every file MIT, and
# the licence's text is LICENSE's (each line, as a continuation line).
R=$WORK/root/${C#./}
[ "$(head -1 "$R")" = "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/" ] ||
	fail "copyright: not the machine-readable format 1.0: $(head -1 "$R")"
grep -qx 'Upstream-Name: diskproof' "$R" || fail "copyright: no Upstream-Name: diskproof"
grep -A2 -x 'Files: \*' "$R" | grep -qx 'License: MIT' || fail "copyright: Files: * is not License: MIT"
[ "$(grep -c '^License: MIT$' "$R")" = 2 ] || fail "copyright: no stand-alone License: MIT paragraph"
sed -n '5,$p' "$DP_SOURCE_DIR/LICENSE" | sed 's/^$/./; s/^/ /' >license.want
awk 'p { print } /^License: MIT$/ && ++n == 2 { p = 1 }' "$R" >license.got
diff -u license.want license.got >license.diff || fail "copyright: the licence's text is not LICENSE's: $(cat license.diff)"
cmp -s "$WORK/root/${S#./}/grafana/diskproof.json" "$DP_SOURCE_DIR/deploy/grafana/diskproof.json" ||
	fail "the packaged dashboard is not deploy/grafana/diskproof.json"
if [ -f "$WORK/root/usr/share/man/man1/diskproof.1.gz" ]; then
	zcat "$WORK/root/usr/share/man/man1/diskproof.1.gz" | cmp -s - "$DP_SOURCE_DIR/docs/diskproof.1" ||
		fail "the packaged man page is not docs/diskproof.1"
fi
echo "ok: $(basename "$DEB"), $(wc -l <files) entries"
