#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""procrun.py - run one command and report what it cost, from the kernel's own
accounting of that process (used by the benchmarks in tests/bench).

usage: procrun.py [--out FILE] [--log FILE] [--match REGEX] [--every SECONDS]
                  -- COMMAND [ARG...]

Prints (or writes to --out) one JSON object:
  rc            exit code (negative: killed by that signal)
  wall_s        launch (just before fork) to exit, seconds
  user_s sys_s  CPU time of the process and every thread and waited-for child
                (wait4's rusage, microsecond resolution)
  maxrss_kib    peak resident set size (wait4's ru_maxrss, = VmHWM)
  match_s       seconds from launch until the first output line matching
                --match appeared (null if none); the command's stdout and
                stderr go to --log (default /dev/null) either way
  samples       every --every seconds (default 0.25) while it runs:
                [t_s, main_thread_cpu_ns, process_cpu_ticks, vmrss_kib, vmhwm_kib]
                main_thread_cpu_ns is the first field of
                /proc/PID/task/PID/schedstat (time on a CPU, ns), the thread
                that main() runs on; process_cpu_ticks is utime+stime of
                /proc/PID/stat in clock ticks.
"""
import json
import os
import re
import subprocess
import sys
import threading
import time


def read_first(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def sample(pid, t0, out, stop, every):
    while not stop.is_set():
        t = (time.monotonic_ns() - t0) / 1e9
        sched = read_first("/proc/%d/task/%d/schedstat" % (pid, pid))
        stat = read_first("/proc/%d/stat" % pid)
        status = read_first("/proc/%d/status" % pid)
        if sched is None or stat is None or status is None:
            break
        main_ns = int(sched.split()[0])
        fields = stat[stat.rindex(")") + 2:].split()
        ticks = int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15)
        rss = hwm = 0
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
            elif line.startswith("VmHWM:"):
                hwm = int(line.split()[1])
        out.append([round(t, 4), main_ns, ticks, rss, hwm])
        stop.wait(every)


def main():
    args = sys.argv[1:]
    out_path = None
    log_path = "/dev/null"
    match = None
    every = 0.25
    while args and args[0] != "--":
        opt = args.pop(0)
        if opt == "--out":
            out_path = args.pop(0)
        elif opt == "--log":
            log_path = args.pop(0)
        elif opt == "--match":
            match = re.compile(args.pop(0))
        elif opt == "--every":
            every = float(args.pop(0))
        else:
            sys.exit("procrun.py: unknown option %s" % opt)
    if not args or len(args) < 2:
        sys.exit("usage: procrun.py [--out F] [--log F] [--match RE] [--every S] -- CMD...")
    cmd = args[1:]

    log = open(log_path, "wb")
    t0 = time.monotonic_ns()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    samples = []
    stop = threading.Event()
    th = threading.Thread(target=sample, args=(proc.pid, t0, samples, stop, every), daemon=True)
    th.start()
    match_s = None
    for line in proc.stdout:
        if match_s is None and match is not None and match.search(line.decode("utf-8", "replace")):
            match_s = (time.monotonic_ns() - t0) / 1e9
        log.write(line)
    # reap it ourselves: wait4 gives this child's own rusage
    _, status, ru = os.wait4(proc.pid, 0)
    t1 = time.monotonic_ns()
    proc.returncode = os.waitstatus_to_exitcode(status)
    stop.set()
    th.join()
    log.close()
    res = {
        "rc": proc.returncode,
        "wall_s": (t1 - t0) / 1e9,
        "user_s": ru.ru_utime,
        "sys_s": ru.ru_stime,
        "maxrss_kib": ru.ru_maxrss,
        "match_s": match_s,
        "clk_tck": os.sysconf("SC_CLK_TCK"),
        "samples": samples,
    }
    text = json.dumps(res)
    if out_path:
        with open(out_path, "w") as f:
            f.write(text + "\n")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
