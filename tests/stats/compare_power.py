#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""compare_power.py - the power table of docs/compare.md, by simulation, and
the runs-per-side advice (analyze_runs_needed) as the code computes it.

The decision modelled is exactly compare's (src/analyze/replicates.c and
gate.c): per judged figure, Student's t on ln(run figure) with the pooled
spread (df = nA + nB - 2), one-sided towards worse, against no change;
Holm's step-down at alpha 0.05 over the five judged figures; a figure is
established when Holm-significant; the gate (--fail-on-regression=PCT,
default 5) fails when an established figure is worse than PCT with 95 %
confidence: its one-sided bound exp(d - t(0.05, df) se) - 1 (least_pct)
above PCT.

Simulation: n runs per side, each run's figure = level x (1 + S u), u
uniform in [-1, 1] as the sim's run_spread = S; one figure changed by C
(worse), the four others unchanged and independent (the worst case for
Holm: nothing else moves). 4000 draws a cell. Prints, per runs per side,
spread and change, the share of draws where the changed figure is
established and the share where the gate exits 1; at 0 % change the share
where any figure is established and where the gate exits 1 (false alarms).

Exact: rep_power(n, change, spread) is analyze_rep_power (normal run-to-run
variation, noncentral t by the same Simpson integral, at alpha / 5);
runs_needed is analyze_runs_needed (fewest n with power >= 0.8).
Usage: python3 tests/stats/compare_power.py [SEED] [--quick]  (stdlib only)
"""
import math
import random
import sys

ALPHA = 0.05  # ANALYZE_REPLICATE_ALPHA
PCT = 0.05  # the gate's default PCT
FIGURES = 5  # ANALYZE_JUDGED_COUNT: Holm's family
RUNS_POWER = 0.8  # ANALYZE_RUNS_POWER


def betacf(a, b, x):
    # continued fraction of the incomplete beta (Numerical Recipes, Lentz)
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1, a - 1
    c, d = 1.0, 1 - qab * x / qap
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c
        c = c if abs(c) > tiny else tiny
        de = d * c
        h *= de
        if abs(de - 1) < 1e-12:
            break
    return h


def ibeta(x, a, b):
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(1 - x)
    if x < (a + 1) / (a + b + 2):
        return math.exp(lbt) * betacf(a, b, x) / a
    return 1 - math.exp(lbt) * betacf(b, a, 1 - x) / b


def p_one_sided(t, df):
    p2 = ibeta(df / (df + t * t), df / 2, 0.5)
    return p2 / 2 if t > 0 else 1 - p2 / 2


def pooled_t(xa, xb):
    """analyze_pooled_t towards higher B: (one-sided p, the change's one-sided
    (1 - ALPHA) lower confidence bound, least_pct / 100)"""
    na, nb = len(xa), len(xb)
    ma, mb = sum(xa) / na, sum(xb) / nb
    ss = sum((x - ma) ** 2 for x in xa) + sum((x - mb) ** 2 for x in xb)
    df = na + nb - 2
    se = math.sqrt(ss / df * (1 / na + 1 / nb))
    t = (mb - ma) / se
    return p_one_sided(t, df), math.expm1(mb - ma - t_crit_cached(ALPHA, df) * se)


def decide(tests, alpha=ALPHA, pct=PCT):
    """Holm over the figures' p; the gate fails on an established figure
    whose bound is beyond pct. (established flags, gate fails)"""
    order = sorted(range(len(tests)), key=lambda i: tests[i][0])
    est = [False] * len(tests)
    for k, i in enumerate(order):
        if tests[i][0] > alpha / (len(tests) - k):
            break
        est[i] = True
    return est, any(e and tests[i][1] > pct for i, e in enumerate(est))


def draw(n, change, spread, rng):
    tests = []
    for f in range(FIGURES):
        c = change if f == 0 else 0.0
        xa = [math.log(1 + spread * rng.uniform(-1, 1)) for _ in range(n)]
        xb = [math.log((1 + c) * (1 + spread * rng.uniform(-1, 1))) for _ in range(n)]
        tests.append(pooled_t(xa, xb))
    return decide(tests)


def simulate(n, change, spread, rng, draws):
    est = fails = 0
    for _ in range(draws):
        e, g = draw(n, change, spread, rng)
        est += e[0] if change > 0 else any(e)
        fails += g
    return est / draws, fails / draws


def t_crit(a, df):
    lo, hi = 0.0, 1000.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if p_one_sided(mid, df) > a:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


_T_CRIT = {}


def t_crit_cached(a, df):
    if (a, df) not in _T_CRIT:
        _T_CRIT[(a, df)] = t_crit(a, df)
    return _T_CRIT[(a, df)]


def rep_power(n, change_pct, spread_pct, alpha=ALPHA, family=FIGURES):
    """analyze_rep_power: P(noncentral t >= t_crit(alpha / family, 2n - 2))"""
    d, s = math.log1p(abs(change_pct) / 100), spread_pct / 100
    k = 2.0 * n - 2
    delta, c = d / (s * math.sqrt(2.0 / n)), t_crit(alpha / family, k)
    hi = k + 60 * math.sqrt(2 * k) + 60
    h, total = hi / 4000, 0.0
    for i in range(4001):
        v = i * h
        w = 1 if i in (0, 4000) else (4 if i % 2 else 2)
        if v > 0:
            f = math.exp((k / 2 - 1) * math.log(v) - v / 2 - k / 2 * math.log(2) - math.lgamma(k / 2))
        else:
            f = 0.5 if k == 2 else 0.0
        total += w * f * 0.5 * math.erfc((c * math.sqrt(v / k) - delta) / math.sqrt(2))
    return total * h / 3


def runs_needed(change_pct, spread_pct, alpha=ALPHA):
    """analyze_runs_needed"""
    if not change_pct > 0:
        return 0
    if not spread_pct > 0:
        return 2
    for n in range(2, 51):
        if rep_power(n, change_pct, spread_pct, alpha) >= RUNS_POWER:
            return n
    return 0


def main():
    args = [a for a in sys.argv[1:] if a != "--quick"]
    draws = 500 if "--quick" in sys.argv else 4000
    rng = random.Random(int(args[0]) if args else 31)
    changes = (0.05, 0.10, 0.15, 0.20, 0.30)
    print(f"established / gate exits 1 (PCT {PCT * 100:g} %), {draws} draws a cell\n")
    print("| runs per side | spread | " + " | ".join(f"+{c * 100:g} %" for c in changes)
          + " | 0 %: any established / gate exits 1 |")
    print("|---|---|" + "---|" * (len(changes) + 1))
    for n in (2, 3, 5, 10):
        for spread in (0.02, 0.05, 0.10):
            row = [simulate(n, c, spread, rng, draws) for c in changes + (0.0,)]
            print(f"| {n} | ±{spread * 100:g} % | "
                  + " | ".join(f"{e:.2f} / {g:.2f}" for e, g in row) + " |")
    print("\nruns per side for 80 % power (analyze_runs_needed; exact power at that n),"
          " spread = sd of ln in %\n")
    print("| spread (sd) | " + " | ".join(f"+{c * 100:g} %" for c in changes) + " |")
    print("|---|" + "---|" * len(changes))
    for sd in (1.0, 2.0, 2.9, 5.0, 5.8, 10.0):
        cells = []
        for c in changes:
            n = runs_needed(c * 100, sd)
            cells.append(f"{n} ({rep_power(n, c * 100, sd):.2f})" if n else "> 50")
        print(f"| {sd:g} % | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
