/* SPDX-License-Identifier: MIT */
/*
 * analyze.h - run-versus-run comparison: the statistics behind "diskproof
 * compare". Pure: two loaded struct results in, a comparison model out, no
 * I/O. The renderers (src/report/compare.c) only format that model.
 *
 * What is compared. For each scope present in both runs (the run, each volume
 * and each database, matched by name) and each I/O class either run issued
 * there (results_class_present() in A or in B; the others keep their figures,
 * untested, and the text and HTML renderers leave them out): IOPS, average,
 * p50, p99 and maximum latency, A and B side by side with the change in percent;
 * the dispersion of the per-interval average latency (standard deviation and
 * coefficient of variation); every verdict that passed in one run and failed
 * in the other (matched by scope, name and criterion); every environment fact
 * that differs; and, side by side without a test, the host counters (CPU,
 * memory, each block device: struct analyze_host below).
 *
 * Figures. A and B are the whole-run figures of the store's summaries (warm-up
 * excluded; percentiles within 1/128, see stats.h); a latency figure of a run
 * with no I/O of the class is NAN (undefined, not 0). change_pct = (B - A) / A x
 * 100; when A is 0 it is 0 if B is 0 too and NAN (rendered null / "n/a")
 * otherwise, so no inf ever reaches a report.
 *
 * Interval series. Each figure is tested on the run's per-interval series of
 * the same scope and class (table sample, warm-up rows excluded): volume and
 * run rows are 1 s intervals, database rows 15 s intervals. The intervals of
 * a scope are the t_ms of its rows of any class; a class with no row in one
 * had no I/O there (results.h: the store keeps no row of zeros). The series
 * tested:
 *   iops    ios / interval length (the length is the distance to the scope's
 *           previous interval, warm-up included, or to the start; ios is 0
 *           where the class has no row);
 *   avg_ms  lat_sum_ns / ios of each interval;
 *   p50_ms  each interval's p50, p99_ms each interval's p99, max_ms each
 *           interval's maximum (so p99 and max test "the per-interval p99 /
 *           maximum moved", not the whole-run tail, which has one value per
 *           run and cannot be tested);
 * latency series skip intervals with no I/O.
 *
 * Significance: a two-sided Mann-Whitney U test of series A against series B.
 *   U_A = R_A - n_A (n_A + 1) / 2, R_A the sum of A's ranks in the pooled
 *   sample (ties get their average rank). E[U] = n_A n_B / 2 and, with ties,
 *   Var[U] = n_A n_B / 12 x ((N + 1) - sum(t^3 - t) / (N (N - 1))), N = n_A + n_B,
 *   t the size of each group of tied values. Normal approximation with a
 *   continuity correction: z = max(0, |U - E[U]| - 1/2) / sqrt(Var[U]),
 *   p = erfc(z / sqrt 2). When there are no ties and N <= ANALYZE_EXACT_MAX the
 *   p value is exact instead: the null distribution of the rank sum R_A is
 *   counted over all C(N, n_A) subsets of ranks (dynamic programming over
 *   "j ranks chosen among the first i with sum s"), p = min(1, 2 min(P[U <=
 *   u], P[U >= u])). With ties and small N the normal approximation is used
 *   and the method says so. A series of fewer than 2 intervals on either side
 *   is not tested (p NAN, not significant). All values equal: Var[U] = 0 and
 *   p = 1. A figure is significant when p < alpha (default 0.01).
 *
 * Limits. The test assumes independent observations; successive intervals of
 * one run are autocorrelated (queues, caches, background work carry over from
 * one second to the next), so the effective sample is smaller than the number
 * of intervals and the p values are optimistic. alpha 0.01 rather than 0.05
 * and "significant" as a flag rather than a ranking are the guard against
 * that; treat a p value near alpha as "not shown". The test says the
 * distribution of interval means moved, not by how much: read change_pct for
 * that. The figures tested in a scope (5 metrics and the dispersion test x
 * the classes compared there, and the transactional IOPS: 31 for a normal
 * run's five classes, at most 37) form one family:
 * "significant" is decided by Holm's step-down correction within it (sorted
 * by p, the k-th of m is significant when it and every smaller one have
 * p <= alpha / (m - k + 1)), which holds the chance of any false flag in a
 * scope at or below alpha; across many scopes a chance flag remains
 * possible. Identical data give p = 1 everywhere.
 *
 * Transactional IOPS. db_read + db_write ios of each interval over its
 * length, Mann-Whitney as above (struct analyze_scope.trans_iops).
 *
 * Dispersion. Over the per-interval averages x_1..x_n of the measured series:
 * sd = sqrt(sum (x_i - mean)^2 / (n - 1)) (sample standard deviation, NAN when
 * n < 2), cv = sd / mean (the unweighted mean of the x_i; NAN when it is 0).
 * sd is tested by Brown-Forsythe on the same series (analyze_brown_forsythe
 * below), in the family; its change is (sd_B - sd_A) / sd_A as any figure's.
 *
 * Ownership: analyze_compare() fills a struct analyze_comparison the caller
 * releases with analyze_comparison_release() (safe on a zeroed or released
 * struct). The comparison borrows a and b (run identity, env strings): they
 * must outlive it.
 */
#ifndef DISKPROOF_ANALYZE_H
#define DISKPROOF_ANALYZE_H

#include <stdbool.h>
#include <stddef.h>

#include "diskproof/results.h"
#include "diskproof/stats.h"
#include "diskproof/util.h"

#define ANALYZE_ALPHA_DEFAULT 0.01
/* largest pooled sample (no ties) given an exact p value */
#define ANALYZE_EXACT_MAX 40
/* what the reports name as the test */
#define ANALYZE_TEST_NAME "Mann-Whitney U on per-interval means"
/* and the test of the dispersion */
#define ANALYZE_DISPERSION_TEST_NAME "Brown-Forsythe on per-interval means"

enum analyze_method {
	ANALYZE_NONE,	/* not tested: fewer than 2 intervals on a side */
	ANALYZE_EXACT,	/* exact null distribution (no ties, small N) */
	ANALYZE_NORMAL, /* normal approximation, tie and continuity corrected */
	ANALYZE_F,	/* Brown-Forsythe: F(1, N - 2), p from Student's t */
};

/* "none", "exact", "normal", "f" */
const char *analyze_method_name(enum analyze_method m);

/* A test's outcome: Mann-Whitney's (u, z) or Brown-Forsythe's (f, and z the
 * |t| of the equivalent t test). */
struct analyze_mw {
	double u;	/* U of sample A; NAN for Brown-Forsythe */
	double z;	/* 0 for the exact method */
	double f;	/* Brown-Forsythe's F (inf when the deviations within
			 * each run are all equal and differ between runs); 0
			 * for Mann-Whitney */
	double p_value; /* two-sided; NAN when not tested */
	size_t n_a, n_b;
	enum analyze_method method;
};

/* Two-sided Mann-Whitney U test of a[] against b[] (as derived above).
 * Returns 0, or -ENOMEM. NAN inputs are not allowed (-EINVAL). */
int analyze_mann_whitney(const double *a, size_t n_a, const double *b, size_t n_b,
			 struct analyze_mw *out) DP_MUST_CHECK;

/*
 * Brown-Forsythe test of equal dispersion (Levene's test on deviations from
 * the median), two-sided: z_i = |x_i - median of its sample|, and the
 * one-way analysis of variance of the z of the two samples,
 *   F = (N - 2) sum_g n_g (zbar_g - zbar)^2 / sum_g sum_i (z_gi - zbar_g)^2,
 * which with two groups is the square of the pooled-variance two-sample t
 * statistic on the z (df N - 2): F(1, N - 2) = t(N - 2)^2, so
 *   p = P(F(1, N - 2) >= F) = P(|T_{N-2}| >= sqrt F) = I_{nu/(nu+F)}(nu/2, 1/2),
 * nu = N - 2, I the regularized incomplete beta function (analyze_ibeta).
 * Fewer than 2 values on a side: not tested (method none, p NAN). All
 * deviations equal within each sample: p = 1 if the two means of the
 * deviations are equal too, else 0. Medians make the test robust to the
 * skewed, heavy-tailed per-interval latencies (Brown and Forsythe 1974).
 * 0, -EINVAL for a NAN input, or -ENOMEM.
 */
int analyze_brown_forsythe(const double *a, size_t n_a, const double *b, size_t n_b,
			   struct analyze_mw *out) DP_MUST_CHECK;

/* I_x(a, b), the regularized incomplete beta function, by its continued
 * fraction (significance.c: the derivation); relative error about 1e-13 for
 * b = 1/2 and a up to 5e5. NAN outside 0 <= x <= 1, a, b > 0. */
double analyze_ibeta(double x, double a, double b);

/* Two-sided tail P(|T_nu| >= |t|) of Student's t = I_{nu/(nu+t^2)}(nu/2, 1/2). */
double analyze_t_p2(double t, double nu);

/* (b - a) / a x 100; 0 when both are 0; NAN when a is 0 and b is not, or
 * either is not finite. */
double analyze_change_pct(double a, double b);

/* The change of two figures shown in steps of res (> 0): 0 ("unchanged")
 * when both read 0 at that step (|x| < res / 2: 0.04 and 0.00 shown as
 * 0.0, never -100 %), NAN when a reads 0 and b does not, else
 * analyze_change_pct(a, b). */
double analyze_change_pct_res(double a, double b, double res);

/* Sample standard deviation and coefficient of variation of x[0..n); NAN where
 * undefined (n < 2; mean 0). */
void analyze_dispersion(const double *x, size_t n, double *sd, double *cv);

enum analyze_metric {
	ANALYZE_IOPS,
	ANALYZE_AVG_MS,
	ANALYZE_P50_MS,
	ANALYZE_P99_MS,
	ANALYZE_MAX_MS,
	ANALYZE_METRIC_COUNT,
};

/* "iops", "avg_ms", "p50_ms", "p99_ms", "max_ms" (the JSON keys) */
const char *analyze_metric_name(enum analyze_metric m);

/* The measured per-interval series of one scope, class and metric of r, in
 * time order. *out is the caller's to free() (NULL when *n is 0). 0 or
 * -ENOMEM. */
int analyze_series(const struct results *r, enum scope_kind scope, const char *name,
		   enum io_class cls, enum analyze_metric m, double **out, size_t *n) DP_MUST_CHECK;

/* The measured per-interval transactional IOPS (db_read + db_write ios over
 * each interval's length) of one scope of r, in time order, as a comparison
 * tests it. *out is the caller's to free() (NULL when *n is 0). 0 or
 * -ENOMEM. */
int analyze_series_trans(const struct results *r, enum scope_kind scope, const char *name,
			 double **out, size_t *n) DP_MUST_CHECK;

/* One compared figure. */
struct analyze_figure {
	double a, b;	   /* whole-run figures */
	double change_pct; /* NAN when undefined, see above */
	bool significant;  /* p_value < alpha */
	/* |change_pct| >= the comparison's min_change_pct, or undefined (a
	 * class from nothing); listed: significant and material, what the
	 * default text and HTML list (analyze_comparison_set_min_change) */
	bool material, listed;
	struct analyze_mw test;
};

struct analyze_class {
	bool present; /* A or B issued the class in this scope: only then tested */
	struct analyze_figure fig[ANALYZE_METRIC_COUNT];
	double sd_ms_a, sd_ms_b; /* of the per-interval averages */
	double cv_a, cv_b;
	/* the dispersion as a figure: a, b = sd_ms_a, sd_ms_b, its change, and
	 * the Brown-Forsythe test of the per-interval averages (method "f"),
	 * in the scope's Holm family; cv's change beside it (same test: cv is
	 * sd over a mean the Mann-Whitney test of avg_ms covers) */
	struct analyze_figure sd;
	double cv_change_pct;
};

struct analyze_scope {
	enum scope_kind scope;
	char name[RESULTS_NAME_MAX];
	char volume[RESULTS_NAME_MAX]; /* databases: their volume in B; else "" */
	struct analyze_class classes[IO_CLASS_COUNT];
	/* db_read + db_write IOPS, Mann-Whitney on the per-interval sums, in the
	 * family when either class was issued there */
	struct analyze_figure trans_iops;
};

/* A verdict that passed in one run and failed in the other. */
struct analyze_verdict_change {
	enum scope_kind scope;
	char name[RESULTS_NAME_MAX];
	char volume[RESULTS_NAME_MAX];
	char criterion[32];
	/* B's criterion: criterion, but for a maximum judged on the other basis
	 * (max_basis) in B: the same judgment, its figure of that basis */
	char criterion_b[32];
	enum verdict_cmp cmp;
	double threshold_a, threshold_b;
	double measured_a, measured_b;
	bool passed_a, passed_b;
};

/* An environment fact that differs; a or b is NULL when that run lacks the
 * key. Strings are borrowed from the results. */
struct analyze_env_diff {
	const char *key;
	const char *a;
	const char *b;
};

/*
 * A parameter that differs between two runs (params.c): the run's profile
 * name, the streams it ran at, the databases' total size at the start, its
 * measured duration (when they differ by
 * more than 1 s and 1 %), and every effective parameter (struct
 * results_param, [sim] keys included) whose value differs or that one run
 * lacks. what is "[sim disk3] read_latency", "streams", ...; a or b is NULL
 * when that run lacks it, source_a/source_b say where each value came from
 * ("profile", "default", ...; "" for the run-level figures). Strings are
 * owned (analyze_param_diffs_release).
 */
struct analyze_param_diff {
	char *what;
	char *a, *b;
	char source_a[16], source_b[16];
};

/* Fills *out (n entries; NULL and 0 when the runs agree). 0 or -ENOMEM. */
int analyze_param_diffs(const struct results *a, const struct results *b,
			struct analyze_param_diff **out, size_t *n) DP_MUST_CHECK;
void analyze_param_diffs_release(struct analyze_param_diff *d, size_t n);

/* A scope (volume or database) found in one run only, so not compared. */
struct analyze_unmatched {
	enum scope_kind scope;
	char name[RESULTS_NAME_MAX];
	bool in_a; /* true: only in A; false: only in B */
};

/*
 * Host counters side by side (no test): each run's figures over its measured
 * intervals (results_host_perf), A and B with change_pct as above; a figure
 * a run does not have (no host counters, a device it lacks, no I/O for a
 * wait) is NAN. Devices are matched by name: A's in A's order, then those
 * only in B. Interval series of host counters are not tested: they measure
 * the host, whatever else it ran, not the storage under test alone.
 */
enum analyze_host_metric {
	ANALYZE_HOST_CPU_USER,
	ANALYZE_HOST_CPU_SYSTEM,
	ANALYZE_HOST_CPU_IOWAIT,
	ANALYZE_HOST_MEM_MIN,
	ANALYZE_HOST_MEM_AVG,
	ANALYZE_HOST_METRIC_COUNT,
};

enum analyze_dev_metric {
	ANALYZE_DEV_READS_PER_S,
	ANALYZE_DEV_WRITES_PER_S,
	ANALYZE_DEV_READ_MBPS,
	ANALYZE_DEV_WRITE_MBPS,
	ANALYZE_DEV_READ_WAIT_MS,
	ANALYZE_DEV_WRITE_WAIT_MS,
	ANALYZE_DEV_AVG_WAIT_MS,
	ANALYZE_DEV_UTIL_PCT,
	ANALYZE_DEV_QUEUE,
	ANALYZE_DEV_METRIC_COUNT,
};

/* The JSON keys: "cpu_user_pct", "cpu_system_pct", "cpu_iowait_pct",
 * "mem_available_min_bytes", "mem_available_avg_bytes"; and "reads_per_s",
 * "writes_per_s", "read_mbps", "write_mbps", "read_wait_ms", "write_wait_ms",
 * "avg_wait_ms", "util_pct", "queue" (as the report's JSON). */
const char *analyze_host_metric_name(enum analyze_host_metric m);
const char *analyze_dev_metric_name(enum analyze_dev_metric m);

struct analyze_pair {
	double a, b;
	double change_pct; /* NAN when undefined */
};

struct analyze_host_device {
	char name[RESULTS_NAME_MAX];
	bool in_a, in_b; /* measured in that run */
	struct analyze_pair fig[ANALYZE_DEV_METRIC_COUNT];
};

struct analyze_host {
	bool in_a, in_b; /* the run recorded host counters */
	struct analyze_pair fig[ANALYZE_HOST_METRIC_COUNT];
	struct analyze_host_device *devices;
	size_t nr_devices;
};

struct analyze_comparison {
	const struct results *a, *b; /* borrowed */
	double alpha;
	double min_change_pct;	      /* the material threshold of the listed flags */
	size_t nr_listed;	      /* figures listed (significant and material) */
	const char *test;	      /* ANALYZE_TEST_NAME */
	size_t family;		      /* most figures tested together in one scope (Holm) */
	struct analyze_scope *scopes; /* run, then volumes, then databases (A's order) */
	size_t nr_scopes;
	struct analyze_verdict_change *verdict_changes;
	size_t nr_verdict_changes;
	struct analyze_env_diff *env_diffs; /* A's key order, then B-only keys */
	size_t nr_env_diffs;
	/* what the runs were asked to do differently (analyze_param_diffs) */
	struct analyze_param_diff *param_diffs;
	size_t nr_param_diffs;
	struct analyze_unmatched *unmatched;
	size_t nr_unmatched;
	struct analyze_host host;
};

/*
 * Holm's step-down correction over the m tested figures v[0..m) (method not
 * ANALYZE_NONE) at level alpha: sorts v by p value and sets significant on
 * the k-th smallest when it and every smaller one have p <= alpha / (m - k +
 * 1). The family is the caller's choice: a comparison's scope, or a fleet
 * run's figures against the rest (report_fleet_build).
 */
void analyze_holm(struct analyze_figure **v, size_t m, double alpha);

/* Compares a (before) with b (after) at significance level alpha (0 < alpha
 * < 1). Returns 0, -EINVAL (bad alpha) or -ENOMEM, with err filled with
 * "analyze: what: why". */
int analyze_compare(struct analyze_comparison *out, const struct results *a,
		    const struct results *b, double alpha, struct strbuf *err) DP_MUST_CHECK;
void analyze_comparison_release(struct analyze_comparison *c);

#define ANALYZE_MIN_CHANGE_DEFAULT 2.0 /* --min-change, % */
#define ANALYZE_REGRESSION_DEFAULT 5.0 /* --fail-on-regression, % */

/*
 * Sets every figure's material and listed flags for min_change_pct (>= 0):
 * material when |change_pct| >= min_change_pct or change_pct is undefined
 * while both sides are not (0 -> something); listed when also significant.
 * analyze_compare() applies ANALYZE_MIN_CHANGE_DEFAULT; this re-applies.
 */
void analyze_comparison_set_min_change(struct analyze_comparison *c, double min_change_pct);

/*
 * The judged figures: those the verdict criteria judge, the figures a
 * firmware gate (--fail-on-regression) watches in every scope compared:
 * db_read avg_ms and max_ms, log_write avg_ms and max_ms (higher is worse),
 * transactional IOPS (lower is worse). The maxima are the comparison's
 * max_ms (whole-run maximum, tested on the per-interval maxima) whatever the
 * run's max_basis.
 */
enum analyze_judged {
	ANALYZE_J_DB_READ_AVG,
	ANALYZE_J_DB_READ_MAX,
	ANALYZE_J_LOG_WRITE_AVG,
	ANALYZE_J_LOG_WRITE_MAX,
	ANALYZE_J_TRANS_IOPS,
	ANALYZE_JUDGED_COUNT,
};

struct analyze_judged_def {
	const char *key;   /* "db_read_avg_ms", ... (JSON) */
	const char *words; /* "db_read avg ms", ... (text, HTML) */
	bool higher_is_worse;
};

const struct analyze_judged_def *analyze_judged_def(enum analyze_judged j);
/* The judged figure j of scope s (never NULL for a valid j). */
const struct analyze_figure *analyze_judged_figure(const struct analyze_scope *s,
						   enum analyze_judged j);

/* A judged figure that got worse significantly and by more than the gate's
 * percentage. */
struct analyze_regression {
	size_t pair;  /* which comparison (0 for two runs) */
	size_t scope; /* index into that comparison's scopes */
	enum analyze_judged fig;
	double change_pct;
};

/*
 * The regressions of comparison c (pair index `pair`) beyond pct (>= 0):
 * significant, in the worse direction, |change_pct| > pct; undefined changes
 * are none (a figure A did not have cannot regress). Appends to *out
 * (realloc'd, the caller frees) and *n. 0 or -ENOMEM.
 */
int analyze_regressions(const struct analyze_comparison *c, size_t pair, double pct,
			struct analyze_regression **out, size_t *n) DP_MUST_CHECK;

/*
 * A judged figure short of intervals (gate.c): its within-run test (the
 * Mann-Whitney test of the scope's per-interval values) was not run, fewer
 * than 2 intervals on a side, or cannot come out significant: its smallest
 * possible p, 2 / C(n_a + n_b, n_a) (exact, no ties), is above alpha / m,
 * Holm's first step, m the scope's family were every figure of the classes
 * either run issued there tested (6 per class + transactional IOPS: 31 for
 * five classes). needed: the intervals a side that would let it reach that
 * step (analyze_intervals_needed). The renderers say so instead of leaving
 * the figure out: "log_write max ms: not tested (1 interval against 1, 8
 * needed)".
 */
struct analyze_short {
	size_t n_a, n_b; /* intervals of each run */
	size_t needed;	 /* intervals a side */
	bool tested;	 /* tested (but cannot be significant), or not run */
};

/* The fewest intervals a side (2..) whose exact two-sided Mann-Whitney p can
 * reach alpha / m: 2 / C(2n, n) <= alpha / m. 0 past 64. Pure. */
size_t analyze_intervals_needed(double alpha, size_t m);

/* Whether judged figure j of scope s (of comparison c, at c->alpha) is short
 * of intervals as above; fills *out when so. A figure of a class neither run
 * issued there is not short (it has nothing to test). Pure. */
bool analyze_judged_short(const struct analyze_comparison *c, const struct analyze_scope *s,
			  enum analyze_judged j, struct analyze_short *out);

/*
 * Runs as replicates (replicates.c; docs/compare.md "Runs are the
 * replicates"). Seconds of one run are not independent samples of a device:
 * the unit that repeats is the run. With two runs or more on each side, a
 * judged figure's change is established by a test between the runs' whole-run
 * figures, one observation per run:
 *
 *   x = ln(figure) of each run (latencies and IOPS are positive and their
 *       run-to-run variation is multiplicative: a 5 % spread is 0.05 on
 *       the log scale whatever the level);
 *   Student's t: t = (mean_B - mean_A) / (s_p sqrt(1 / n_A + 1 / n_B)),
 *       s_p the pooled sd, df = n_A + n_B - 2, one-sided towards worse (B
 *       higher for a latency, lower for IOPS): p = P(T_df >= t) signed so,
 *       against no change;
 *   Holm over the judged figures tested (at most ANALYZE_JUDGED_COUNT, the
 *       ones the gate judges: a small family), at alpha
 *       ANALYZE_REPLICATE_ALPHA. Established: Holm-significant, i.e.
 *       established as changed the worse way. The gate then asks that it be
 *       worse than its PCT with 1 - alpha confidence: least_pct, the
 *       one-sided confidence bound, exp(d -/+ t(alpha, df) se) - 1, beyond
 *       PCT (the t test of "worse by at most PCT" at alpha, per figure).
 *
 * The figures: db_read and log_write average, their maxima on the basis the
 * run's verdict judged them (max_basis: the highest sample average, 15 s
 * samples by default; the slowest single I/O where the run judged by io),
 * and transactional IOPS. a and b are the geometric means of each side's
 * runs and change_pct the change between them. spread_pct is the pooled
 * run-to-run standard deviation on the log scale, in percent. Not tested
 * (not established, p NAN): a side with one run (ANALYZE_REP_ONE_RUN), no
 * run-to-run variation on either side (ANALYZE_REP_NO_VARIATION: a test of
 * zero spread would call any difference certain), or a figure some run
 * lacks (ANALYZE_REP_MISSING). runs_needed: runs per side that would
 * establish the change seen with ANALYZE_RUNS_POWER at the spread seen (at
 * ANALYZE_SPREAD_ASSUMED when there is none; analyze_runs_needed), 0 when
 * the change is not worse or past what 50 runs decide.
 */
#define ANALYZE_REPLICATE_ALPHA 0.05
#define ANALYZE_REPLICATE_TEST_NAME "Student's t on ln(run figures), one-sided towards worse"
#define ANALYZE_SPREAD_ASSUMED 5.0 /* % run to run (sd of ln), where none is known */
#define ANALYZE_RUNS_POWER 0.8	   /* the power runs_needed asks for */

enum analyze_rep_state {
	ANALYZE_REP_TESTED,
	ANALYZE_REP_ONE_RUN,
	ANALYZE_REP_NO_VARIATION,
	ANALYZE_REP_MISSING,
};

/* "tested", "one run on a side", "no run-to-run variation", "missing" */
const char *analyze_rep_state_words(enum analyze_rep_state s);

struct analyze_rep_figure {
	double a, b;	   /* geometric means of the sides' run figures */
	double change_pct; /* (b - a) / a x 100 */
	bool worse;	   /* the change goes the worse way */
	enum analyze_rep_state state;
	double t, df, p_value; /* p: one-sided, raw (NAN when not tested) */
	bool established;      /* Holm-significant in the judged family */
	/* worse by at least this, in % (one-sided 1 - alpha confidence bound of
	 * the change, towards better; negative: not surely worse); NAN untested */
	double least_pct;
	double spread_pct; /* pooled sd of ln(figure) x 100; NAN with one run a side */
	unsigned runs_needed;
};

struct analyze_replicates {
	size_t n_a, n_b; /* runs per side */
	double alpha;
	double margin_pct; /* the gate's PCT (0: no gate); the null is no change */
	size_t family;	   /* figures tested (Holm's m) */
	struct analyze_rep_figure fig[ANALYZE_JUDGED_COUNT];
};

/* The whole-run figure j of r as the gate judges it (maxima on the run's
 * max_basis). NAN when r has none. */
double analyze_run_judged(const struct results *r, enum analyze_judged j);

/* One-sided Student's t of x_b against x_a (pooled variance, df = na + nb
 * - 2), towards higher when up, else lower: t, df and p. Both sides need 2
 * values or more and some variance (else p NAN, df 0). Pure. */
void analyze_pooled_t(const double *xa, size_t na, const double *xb, size_t nb, bool up, double *t,
		      double *df, double *p);

/* The power of the replicate test with n runs a side (>= 2) to establish a
 * true worse change of change_pct at a run-to-run spread of spread_pct (sd of
 * ln, in %), at alpha / family (Holm's first step: the worst case, one
 * figure changed alone): exact for normal run-to-run variation (noncentral
 * t, replicates.c). NAN for n < 2, no change or no spread. Pure. */
double analyze_rep_power(unsigned n, double change_pct, double spread_pct, double alpha,
			 size_t family);

/* Runs per side (2..50): the fewest n with analyze_rep_power(n, change_pct,
 * spread_pct, alpha, ANALYZE_JUDGED_COUNT) >= ANALYZE_RUNS_POWER; 2 with no
 * spread; 0 beyond 50 or for no change. Pure. */
unsigned analyze_runs_needed(double change_pct, double spread_pct, double alpha);

/* Tests side a (runs a[0..n_a)) against side b as above, against no
 * change; margin_pct (the gate's PCT, 0 without a gate) is kept in out for
 * the renderers: the gate fails on an established change beyond it
 * (analyze_rep_gate). Pure; 0 or -ENOMEM. */
int analyze_replicates(const struct results *const *a, size_t n_a, const struct results *const *b,
		       size_t n_b, double alpha, double margin_pct,
		       struct analyze_replicates *out) DP_MUST_CHECK;

/*
 * The gate over runs (compare --fail-on-regression=PCT): a judged figure
 * beyond PCT is one whose change goes the worse way by more than PCT. FAIL
 * when one beyond PCT is established and its least_pct is beyond PCT too
 * (worse than PCT with 1 - alpha confidence); else INCONCLUSIVE when one
 * beyond PCT could not be tested (one run on a side, no run-to-run variation
 * on either: within-run evidence alone never fails the gate); else PASS (a
 * change tested and not established, or established but not surely beyond
 * PCT, passes: the runs say it is within their spread, or within PCT).
 * Appends the established ones beyond PCT to *out as regressions
 * (pair, scope 0, the figure, its change) and sets *runs_needed to the most
 * runs per side a figure beyond PCT but undecided asks for (0: unknown).
 * 0 or -ENOMEM.
 */
enum analyze_gate_outcome {
	ANALYZE_GATE_PASS,
	ANALYZE_GATE_FAIL,
	ANALYZE_GATE_INCONCLUSIVE,
};

bool analyze_rep_beyond(const struct analyze_rep_figure *f, double pct);
int analyze_rep_gate(const struct analyze_replicates *r, size_t pair, double pct,
		     enum analyze_gate_outcome *outcome, unsigned *runs_needed,
		     struct analyze_regression **out, size_t *n) DP_MUST_CHECK;

#endif
