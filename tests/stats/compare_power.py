#!/usr/bin/env python3
"""compare_power.py - the power table of docs/compare.md, by simulation.

For n runs per side, a true change C (worse) and a run-to-run spread S
(each run's figure = level x (1 + S u), u uniform in [-1, 1], as the sim's
run_spread), draws both sides 4000 times and applies compare's test: Welch's
t on ln(figure), one-sided towards worse, at alpha 0.05, against the gate's
margin M (H0: worse by at most M). Holm over the five judged figures is
modelled as the worst case, one figure changed alone: its p must be at most
alpha / 5. Prints the share of draws established, a Markdown table.
Usage: python3 tests/stats/compare_power.py [SEED]  (stdlib only)
"""
import math
import random
import sys


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


def welch_p(xa, xb, margin):
    na, nb = len(xa), len(xb)
    ma, mb = sum(xa) / na, sum(xb) / nb
    va = sum((x - ma) ** 2 for x in xa) / (na - 1)
    vb = sum((x - mb) ** 2 for x in xb) / (nb - 1)
    qa, qb = va / na, vb / nb
    se2 = qa + qb
    t = (mb - ma - math.log1p(margin)) / math.sqrt(se2)
    df = se2 * se2 / (qa * qa / (na - 1) + qb * qb / (nb - 1))
    return p_one_sided(t, df)


def power(n, change, spread, margin, rng, draws=4000, alpha=0.05, family=5):
    hits = 0
    for _ in range(draws):
        xa = [math.log(1 + spread * rng.uniform(-1, 1)) for _ in range(n)]
        xb = [math.log((1 + change) * (1 + spread * rng.uniform(-1, 1))) for _ in range(n)]
        hits += welch_p(xa, xb, margin) <= alpha / family
    return hits / draws


def main():
    rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 31)
    for margin in (0.0, 0.05):
        print(f"\nmargin {margin * 100:g} % (the gate's PCT; 0: established as changed)\n")
        print("| runs per side | spread | +10 % | +15 % | +25 % | +0 % (false alarms) |")
        print("|---|---|---|---|---|---|")
        for n in (2, 3, 5, 8):
            for spread in (0.05, 0.10, 0.20):
                row = [power(n, c, spread, margin, rng) for c in (0.10, 0.15, 0.25, 0.0)]
                print(f"| {n} | ±{spread * 100:g} % | " + " | ".join(f"{p:.2f}" for p in row) + " |")


if __name__ == "__main__":
    main()
