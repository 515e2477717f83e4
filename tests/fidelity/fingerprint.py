#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# fingerprint.py - the I/O fingerprint of a run from two /proc/diskstats
# snapshots, and the side-by-side of two fingerprints (pgbench.sh).
#
#   fingerprint.py make DS0 DS1 T0 T1 DATA_DEV WAL_DEV TXNS [KEY=VALUE...]
#       prints the fingerprint JSON: per device (data, wal) the rates, sizes,
#       flushes and queue depth over the window T0..T1 (files holding
#       "date +%s.%N"), and per transaction (TXNS transactions in the window)
#       the data reads and writes, WAL writes, bytes and flushes; KEY=VALUE
#       pairs go in as they are (numbers as numbers)
#   fingerprint.py compare PG.json DP.json MD_OUT TOL TOL_QD SIZE_ROWS ASSERT [MIN_PCT]
#       prints the table figure | PostgreSQL | diskproof | diff %, writes it
#       as markdown to MD_OUT, and with ASSERT=1 names every asserted row off
#       by more than its tolerance (percent) and exits 1 when any is. With
#       MIN_PCT, also the learn rule (docs/fidelity.md): of the RULE_ROWS with
#       200 events or more on each side, at least MIN_PCT % within TOL %
#       (queue depths too), printed as a line (shown, not asserted)
#   fingerprint.py txns RUN.json
#       prints transactions.count of diskproof's run document (at the top,
#       or in "summary" or "run"), nothing when it has none
#   fingerprint.py pglat PGBENCH_LOG...
#       prints "AVG_MS P99_MS COUNT LAG_MS" of pgbench -l's transaction
#       latencies (with -R from each one's scheduled start; LAG_MS its
#       schedule lag's mean, "-" without -R)
#
# /proc/diskstats fields after the device name (Documentation/admin-guide/
# iostats.rst): 0 reads completed, 1 reads merged, 2 sectors read, 3 ms
# reading, 4 writes completed, 5 writes merged, 6 sectors written, 7 ms
# writing, 8 I/Os in flight, 9 ms doing I/O, 10 weighted ms doing I/O,
# 11-14 discards, 15 flushes completed, 16 ms flushing. Sectors are 512
# bytes whatever the device's block size.
import json
import sys

KIB = 1024.0


def snap(path):
    rows = {}
    for line in open(path):
        p = line.split()
        rows[p[2]] = [int(x) for x in p[3:]]
    return rows


def device(a, b, secs):
    d = [y - x for x, y in zip(a, b)]
    reads, rsect, writes, wsect, weighted, flushes = d[0], d[2], d[4], d[6], d[10], d[15]
    rbytes, wbytes = rsect * 512, wsect * 512
    return {
        "reads": reads,
        "writes": writes,
        "read_bytes": rbytes,
        "write_bytes": wbytes,
        "flushes": flushes,
        "reads_merged": d[1],
        "writes_merged": d[5],
        "reads_per_s": reads / secs,
        "writes_per_s": writes / secs,
        "read_size": rbytes / reads if reads else 0.0,
        "write_size": wbytes / writes if writes else 0.0,
        "io_size": (rbytes + wbytes) / (reads + writes) if reads + writes else 0.0,
        "read_write_ratio": reads / writes if writes else 0.0,
        "flushes_per_s": flushes / secs,
        # iostat's aqu-sz: the time-weighted number of I/Os in flight
        "queue_depth": weighted / (secs * 1000.0),
        # iostat's r_await, w_await, f_await: ms per I/O in the block layer
        # and the device, what a tool's service time can be held to
        "read_await_ms": d[3] / reads if reads else 0.0,
        "write_await_ms": d[7] / writes if writes else 0.0,
        "flush_await_ms": d[16] / flushes if flushes and len(d) > 16 else 0.0,
    }


def value(v):
    try:
        return int(v)
    except ValueError:
        pass
    try:
        return float(v)
    except ValueError:
        return v


def make(args):
    ds0, ds1, t0, t1, ddev, wdev, txns = args[:7]
    a, b = snap(ds0), snap(ds1)
    secs = float(open(t1).read()) - float(open(t0).read())
    txns = float(txns)
    for dev in (ddev, wdev):
        if dev not in a or dev not in b:
            sys.exit(f"fingerprint.py: {dev}: not in /proc/diskstats")
    fp = {"elapsed_s": secs, "transactions": txns}
    for kv in args[7:]:
        k, _, v = kv.partition("=")
        fp[k] = value(v)
    fp["data"] = device(a[ddev], b[ddev], secs)
    fp["wal"] = device(a[wdev], b[wdev], secs)
    per = lambda n: n / txns if txns > 0 else 0.0
    fp["per_transaction"] = {
        "data_reads": per(fp["data"]["reads"]),
        "data_writes": per(fp["data"]["writes"]),
        "wal_writes": per(fp["wal"]["writes"]),
        "wal_bytes": per(fp["wal"]["write_bytes"]),
        "wal_flushes": per(fp["wal"]["flushes"]),
    }
    if fp.get("wal_sync"):
        fp["commits_per_flush"] = txns / float(fp["wal_sync"])
    json.dump(fp, sys.stdout, indent=2)
    print()


# (label, path into the fingerprint, scale, format, tolerance class): the
# class is "tol" (TOL %), "qd" (TOL_QD %), "size" (TOL %, asserted when
# SIZE_ROWS is "split"), "mean" (TOL %, asserted when it is "mean") or None
# (shown only)
ROWS = [
    ("data reads/s", ("data", "reads_per_s"), 1, "%.0f", "tol"),
    ("data writes/s", ("data", "writes_per_s"), 1, "%.0f", "tol"),
    ("data reads:writes", ("data", "read_write_ratio"), 1, "%.3f", "tol"),
    ("data read size KiB", ("data", "read_size"), 1 / KIB, "%.1f", "size"),
    ("data write size KiB", ("data", "write_size"), 1 / KIB, "%.1f", "size"),
    ("data I/O size KiB", ("data", "io_size"), 1 / KIB, "%.1f", "mean"),
    ("data flushes/s", ("data", "flushes_per_s"), 1, "%.1f", None),
    ("data queue depth", ("data", "queue_depth"), 1, "%.2f", "qd"),
    ("WAL reads/s", ("wal", "reads_per_s"), 1, "%.1f", None),
    ("WAL writes/s", ("wal", "writes_per_s"), 1, "%.0f", "tol"),
    ("WAL write size KiB", ("wal", "write_size"), 1 / KIB, "%.1f", "tol"),
    ("WAL flushes/s", ("wal", "flushes_per_s"), 1, "%.0f", "tol"),
    # shown, not asserted: docs/fidelity.md, "Limits" (the WAL device's
    # requests are slower under PostgreSQL's CPU load on a loop device)
    ("WAL queue depth", ("wal", "queue_depth"), 1, "%.2f", None),
    ("transactions/s", ("tps",), 1, "%.0f", None),
    ("data reads/txn", ("per_transaction", "data_reads"), 1, "%.3f", None),
    ("data writes/txn", ("per_transaction", "data_writes"), 1, "%.3f", None),
    ("WAL writes/txn", ("per_transaction", "wal_writes"), 1, "%.3f", None),
    ("WAL KiB/txn", ("per_transaction", "wal_bytes"), 1 / KIB, "%.2f", "tol"),
    ("WAL flushes/txn", ("per_transaction", "wal_flushes"), 1, "%.3f", None),
    ("commits per WAL flush", ("commits_per_flush",), 1, "%.2f", None),
]


# the learn rule (issue 34, the rows "diskproof fingerprint compare" asserts
# for mariadb.sh, their events counted as it counts them,
# src/learn/fingerprint.c): these rows within TOL %, each with how its events
# are made of the counters, "sum" or "min" (the per-transaction rows: the
# fewer of the counter and the transactions); a row with fewer than
# RULE_EVENTS_MIN events on a side is left out
TXNS = ("transactions",)
RULE_ROWS = {
    "data reads/s": ("sum", ("data", "reads")),
    "data writes/s": ("sum", ("data", "writes")),
    "data reads:writes": ("min", ("data", "reads"), ("data", "writes")),
    "data read size KiB": ("sum", ("data", "reads")),
    "data write size KiB": ("sum", ("data", "writes")),
    "data flushes/s": ("sum", ("data", "flushes")),
    "data queue depth": ("sum", ("data", "reads"), ("data", "writes")),
    "WAL reads/s": ("sum", ("wal", "reads")),
    "WAL writes/s": ("sum", ("wal", "writes")),
    "WAL write size KiB": ("sum", ("wal", "writes")),
    "WAL flushes/s": ("sum", ("wal", "flushes")),
    "WAL queue depth": ("sum", ("wal", "reads"), ("wal", "writes")),
    "data reads/txn": ("min", ("data", "reads"), TXNS),
    "data writes/txn": ("min", ("data", "writes"), TXNS),
    "WAL writes/txn": ("min", ("wal", "writes"), TXNS),
    "WAL KiB/txn": ("min", ("wal", "writes"), TXNS),
    "WAL flushes/txn": ("min", ("wal", "flushes"), TXNS),
}
RULE_EVENTS_MIN = 200


def rule_events(fp, label):
    how, *paths = RULE_ROWS[label]
    v = [get(fp, p) for p in paths]
    return sum(v) if how == "sum" else min(v)


def learn_rule(pg, dp, diffs, tol, min_pct):
    """(line, ok): the learn rule over the rows of diffs (label -> diff %)"""
    within, of, out, off = 0, 0, [], []
    for label in RULE_ROWS:
        d = diffs.get(label)
        ev = [rule_events(fp, label) for fp in (pg, dp)]
        if d is None or any(e != e or e < RULE_EVENTS_MIN for e in ev):
            out.append(label)
            continue
        of += 1
        if abs(d) <= tol:
            within += 1
        else:
            off.append(f"{label} {d:+.1f} %")
    ok = of > 0 and within * 100 >= min_pct * of
    line = (f"the learn rule: {within} of {of} rows within {tol:g} % (at least {min_pct:g} % needed)"
            + (f"; off: {', '.join(off)}" if off else "")
            + (f"; left out (fewer than {RULE_EVENTS_MIN} events on a side): {', '.join(out)}" if out else ""))
    return line, ok


def get(fp, path):
    v = fp
    for k in path:
        if not isinstance(v, dict) or k not in v:
            return float("nan")  # not known on this side
        v = v[k]
    return float(v)


def compare(args):
    pg = json.load(open(args[0]))
    dp = json.load(open(args[1]))
    md_out, tol, tol_qd, size_rows, do_assert = args[2], float(args[3]), float(args[4]), args[5], args[6] == "1"
    asserted = {"tol", "qd", "size" if size_rows == "split" else "mean"}
    min_pct = float(args[7]) if len(args) > 7 else None
    rows, failed, diffs = [], [], {}
    for label, path, scale, fmt, cls in ROWS:
        a, b = get(pg, path), get(dp, path)
        if a != a or b != b:  # NaN: shown as "-", never asserted
            rows.append((label, "-" if a != a else fmt % (a * scale),
                         "-" if b != b else fmt % (b * scale), "", ""))
            continue
        diff = (b - a) / a * 100.0 if a else (0.0 if b == 0 else float("inf"))
        diffs[label] = diff
        limit = None
        if cls in asserted:
            limit = tol_qd if cls == "qd" else tol
        ok = limit is None or abs(diff) <= limit
        mark = "" if limit is None else ("ok" if ok else "FAIL") + f" (±{limit:g} %)"
        rows.append((label, fmt % (a * scale), fmt % (b * scale), "%+.1f" % diff, mark))
        if not ok:
            failed.append(f"{label}: PostgreSQL {fmt % (a * scale)}, diskproof {fmt % (b * scale)}, "
                          f"{diff:+.1f} % (limit ±{limit:g} %)")
    head = ("figure", "PostgreSQL", "diskproof", "diff %", "check")
    w = [max(len(r[i]) for r in rows + [head]) for i in range(5)]
    line = lambda r: "  ".join([r[0].ljust(w[0])] + [r[i].rjust(w[i]) for i in (1, 2, 3)] + [r[4]])
    print(line(head).rstrip())
    for r in rows:
        print(line(r).rstrip())
    src = dp.get("transactions_source", "")
    with open(md_out, "w") as f:
        f.write("| figure | PostgreSQL | diskproof | diff % | check |\n|---|---:|---:|---:|---|\n")
        for r in rows:
            f.write("| " + " | ".join(r) + " |\n")
        f.write(f"\nPostgreSQL: pgbench {pg.get('tps', 0):.0f} tps over {pg.get('elapsed_s', 0):.0f} s, "
                f"{pg.get('checkpoints', '?')} checkpoint(s) completed in the window; "
                f"diskproof: {dp.get('transactions', 0):.0f} transactions ({src}) over "
                f"{dp.get('elapsed_s', 0):.0f} s. diff % = (diskproof - PostgreSQL) / PostgreSQL.\n")
    if min_pct is not None:
        # asserted beside the table's rows (tests/fidelity/README.md, "The
        # learn rule"): since the devices' kernel work has a CPU of its own
        # the queue depths are the devices' for both sides
        rule, rule_ok = learn_rule(pg, dp, diffs, tol, min_pct)
        print(rule)
        with open(md_out, "a") as f:
            f.write(f"\n{rule}\n")
        if not rule_ok:
            failed.append(rule)
    if do_assert and failed:
        for m in failed:
            print("FAIL " + m, file=sys.stderr)
        return 1
    return 0


def txns(path):
    j = json.load(open(path))
    for t in [j.get("transactions")] + [j[k].get("transactions") for k in ("summary", "run")
                                        if isinstance(j.get(k), dict)]:
        if isinstance(t, dict) and isinstance(t.get("count"), (int, float)):
            print(t["count"])
            return


def cpf(path):
    """diskproof's commits per log write, from the run JSON (empty if absent)"""
    j = json.load(open(path))
    t = j.get("summary", {}).get("transactions")
    if isinstance(t, dict) and isinstance(t.get("commits_per_log_write"), (int, float)):
        print(t["commits_per_log_write"])


def pglat(paths):
    """pgbench's per-transaction latencies (pgbench -l logs: the third field
    is the transaction's latency in microseconds; with -R, from its scheduled
    start, and the seventh its schedule lag): "AVG_MS P99_MS COUNT LAG_MS"
    (LAG_MS "-" without -R)."""
    lat, lag = [], []
    for p in paths:
        for line in open(p):
            f = line.split()
            if len(f) >= 3 and f[2].isdigit():
                lat.append(int(f[2]) / 1000.0)
                if len(f) >= 7 and f[6].isdigit():
                    lag.append(int(f[6]) / 1000.0)
    if not lat:
        sys.exit("fingerprint.py: no transactions in the pgbench logs")
    lat.sort()
    p99 = lat[min(len(lat) - 1, int(0.99 * len(lat)))]
    print("%.3f %.3f %d %s" % (sum(lat) / len(lat), p99, len(lat),
                               "%.3f" % (sum(lag) / len(lag)) if lag else "-"))


def fmt_ms(v):
    return "%.3f" % v if isinstance(v, (int, float)) else "-"


def latency(pg_path, run_path, dp_path=None):
    """PostgreSQL's transaction latency beside diskproof's db_read and
    log_write service and response times (avg, p99), then each latency
    verdict of the run; exit 1 when one of them failed."""
    pg = json.load(open(pg_path))
    j = json.load(open(run_path))
    dp = json.load(open(dp_path)) if dp_path else None
    classes = j.get("summary", {}).get("classes", {})
    print("| latency ms | avg | p99 |")
    print("|---|---:|---:|")
    if pg.get("pgbench_rate"):
        how = "-R %s/s, from the scheduled start: schedule lag avg %s ms in it" % (
            pg["pgbench_rate"], fmt_ms(pg.get("latency_lag_ms")))
    else:
        how = "closed loop, %s clients" % pg.get("clients", 8)
    print("| PostgreSQL: pgbench transaction (%s) | %s | %s |" %
          (how, fmt_ms(pg.get("latency_avg_ms")), fmt_ms(pg.get("latency_p99_ms"))))
    for side, f in (("PostgreSQL", pg), ("diskproof", dp)):
        if not f:
            continue
        for dev, what, key in (("data", "read", "read_await_ms"), ("wal", "write", "write_await_ms"),
                               ("wal", "flush", "flush_await_ms")):
            print("| %s: %s device %s (kernel's await, per request) | %s | - |" %
                  (side, "WAL" if dev == "wal" else dev, what, fmt_ms(f[dev].get(key))))
    for c in ("db_read", "log_write"):
        cs = classes.get(c, {})
        rs = cs.get("response") or {}
        print("| diskproof: %s service (submit to completion) | %s | %s |" %
              (c, fmt_ms(cs.get("avg_ms")), fmt_ms(cs.get("p99_ms"))))
        if rs:
            print("| diskproof: %s response (from the intended start) | %s | %s |" %
                  (c, fmt_ms(rs.get("avg_ms")), fmt_ms(rs.get("p99_ms"))))
    print()
    failed = 0
    for v in j.get("verdicts", []):
        if not v["criterion"].endswith("_ms"):
            continue
        ok = v["passed"]
        failed += not ok
        print("  %s %s %s: %s %s %s ms" % ("ok  " if ok else "FAIL", v["scope"], v["name"],
              v["criterion"], v["measured"], v["cmp"] + " " + str(v["threshold"])))
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "make" and len(sys.argv) >= 9:
        make(sys.argv[2:])
    elif len(sys.argv) in (9, 10) and sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2:]))
    elif len(sys.argv) == 3 and sys.argv[1] == "txns":
        txns(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "cpf":
        cpf(sys.argv[2])
    elif len(sys.argv) >= 3 and sys.argv[1] == "pglat":
        pglat(sys.argv[2:])
    elif len(sys.argv) in (4, 5) and sys.argv[1] == "latency":
        sys.exit(latency(*sys.argv[2:]))
    else:
        sys.exit("usage: fingerprint.py make ... | compare ... (see its header)")
