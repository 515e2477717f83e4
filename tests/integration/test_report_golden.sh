#!/bin/bash
# SPDX-License-Identifier: MIT
# test_report_golden.sh - golden tests of the report formats: a fixed-seed sim
# run (tests/integration/profiles/sim.ini, 20 s after 5 s of warm-up) reported
# as text, JSON and CSV must match tests/golden/reports/ byte for byte, once
# what legitimately varies from run to run is masked: the host name and the
# wall-clock start and end times (and the load's), the host's counters (CPU, memory: the
# host's, not the simulation's), the clock's state, the run's uuid, the version and the
# environment facts (the host's; their names are test_golden_runs'
# business). DP_UPDATE_GOLDEN=1 rewrites the golden files from this run
# instead (review the diff before committing it).
set -e
. "$(dirname "$0")/lib.sh"

GOLDEN="$DP_SOURCE_DIR/tests/golden/reports"
PROFILE="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"

expect_exit 0 "$DISKPROOF" run "$PROFILE" --duration 20s --warmup 5s --results r.db --quiet

# mask FORMAT: stdin to stdout with the varying fields replaced by fixed words
mask() {
	case $1 in
	text) sed -E -e 's/^host .*, started .*, ended .*$/host HOST, started TIME, ended TIME/' \
		-e '/^host performance/,/^$/d' ;;
	json) sed -E -e 's/^( *"(host|started|ended|load_started_at|uuid|diskproof_version)": )"[^"]*"/\1"MASKED"/' \
		-e '/^  "host": \{$/,/^  \}$/c\  "host": null' \
		-e '/^  "clock": \{$/,/^  \},$/c\  "clock": "MASKED",' \
		-e '/^  "environment": \{$/,/^  \}$/c\  "environment": "MASKED"' ;;
	csv) cat ;;
	esac
}

for fmt in text json csv; do
	expect_exit 0 "$DISKPROOF" report 1 --results r.db --format "$fmt"
	mask "$fmt" <"$WORK/out" >"got.$fmt"
	# the CSV's host and time_utc columns (found by their names in the
	# header: columns are appended at the end) vary as the text's host
	# line does
	if [ "$fmt" = csv ]; then
		awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; print; next }
			{ $col["host"] = "HOST"; if ($col["time_utc"] != "") $col["time_utc"] = "TIME"; print }' \
			got.csv >got.masked && mv got.masked got.csv
	fi
	if [ "${DP_UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "got.$fmt" "$GOLDEN/sim-20s.$fmt"
		echo "updated $GOLDEN/sim-20s.$fmt"
		continue
	fi
	[ -f "$GOLDEN/sim-20s.$fmt" ] || fail "no golden file $GOLDEN/sim-20s.$fmt (DP_UPDATE_GOLDEN=1 makes it)"
	if ! diff -u "$GOLDEN/sim-20s.$fmt" "got.$fmt" >"diff.$fmt"; then
		head -40 "diff.$fmt" >&2
		fail "$fmt report differs from $GOLDEN/sim-20s.$fmt (DP_UPDATE_GOLDEN=1 regenerates it)"
	fi
done

# the masks hide only what they should: every other line is compared
grep -q '^host HOST, started TIME, ended TIME$' got.text || fail "text mask did not apply"
[ "$(grep -c '"MASKED"' got.json)" = 8 ] || fail "json mask did not apply to exactly 8 keys"
echo "ok"
