/*
 * history.h - `runner history` (private to cli/): one experiment's figures
 * over the runs the store holds, with their change points
 * (stats_changepoints), as text, a gnuplot chart, a CI gate
 * (--fail-on regression) and an offline HTML page.
 *
 * history.c reads the store into these structures; the files below work on
 * them alone (history_view.c: analysis, text, the gate; history_chart.c:
 * the chart; history_html.c: the page), so they are tested without one.
 */
#ifndef SYSMETER_CLI_HISTORY_H
#define SYSMETER_CLI_HISTORY_H

#include <stddef.h>
#include <stdio.h>

#include "stats/stats.h"

struct cli_opts;

/* One run's value of one point. */
struct history_point {
	char *run_id, *run_dir, *host, *fingerprint, *kernel, *commit, *status, *flags;
	double started;			/* Unix time, s */
	size_t seq;			/* the run's place in the store's order of
					   runs (store_row_order) */
	double est, lo, hi, level;	/* probe units; NaN when absent */
	double canary_ns;		/* the run's canary per link (the machine's
					   speed then); NaN when not recorded */
};

/* Whether a bigger value is worse, better, or neither is known. */
enum history_direction { HISTORY_DIR_NONE, HISTORY_DIR_TIME, HISTORY_DIR_RATE };

/* One point (one parameter key) of an experiment, oldest run first. */
struct history_series {
	char *key;			/* the stable parameter key */
	char *params_json;		/* the parameters as JSON, for the reader */
	char *unit;			/* the probe's unit */
	struct history_point *pt;
	size_t n, cap;
	struct stats_cp cp;		/* filled by history_analyse */
};

struct history_experiment {
	char *name;
	enum history_direction dir;
	const char *dir_source;		/* "the probe's bigger_is_better", "the unit", ... */
	struct history_series *s;
	size_t n, cap;
};

/* Append a point to the series of key in e (made when new): copies every
   string.  0, or -1 (no memory). */
int history_add(struct history_experiment *e, const char *key, const char *params_json,
		const char *unit, const struct history_point *p);
void history_experiment_free(struct history_experiment *e);

/* The change points of every series (stats_changepoints, default rule).
   0, or -1 (no memory). */
int history_analyse(struct history_experiment *e);

/* The direction from a unit when no result file says it: a time unit is a
   time, a unit ending in "/s" a rate, anything else none. */
enum history_direction history_direction_of_unit(const char *unit);

/* "slower" / "faster" for a step of sign delta in direction d; "up" /
   "down" when d is NONE. */
const char *history_step_word(enum history_direction d, double delta);

/* The series as text: one line per run, each real step under the run it
   starts at with its reason. */
void history_print(FILE *f, const struct history_experiment *e);

/* The machine's pace in a run, from the drift check's canary (a fixed CPU
   workload) that the store keeps with each run: the canary of run i over
   the median canary of the series' runs on the same machine
   (fingerprint); > 1: the machine ran slower then.  NaN when run i has no
   canary or fewer than HISTORY_PACE_RUNS runs of its machine have one. */
#define HISTORY_PACE_RUNS 3
double history_pace(const struct history_series *s, size_t i);

/* Beyond this on the log scale a pace, or a step's host ratio, is the
   machine's own: the threshold of the drift check and of the run's level
   check against the store (CANARY_THRESHOLD, engine/canary.h). */
#define HISTORY_HOST_BAND 0.10

/* A change of up to this many times the host's own (log) ratio, in the
   same direction, is put down to the host (as `runner compare` does): the
   canary is pure CPU work, and a point's work slows at most about as much
   as the core does. */
#define HISTORY_HOST_REACH 1.5

/* A step's host ratio: the median canary of the runs of the segment after
   it over that of the segment before it (> 1: the machine ran slower
   after).  NaN when a run of either segment has no canary or the two
   segments hold more than one machine. */
double history_step_host(const struct history_series *s, const struct stats_cp_step *st);

/* 1 when the machine itself explains step st: its host ratio lies beyond
   HISTORY_HOST_BAND, the same way as the step (slower with slower), and
   the step is at most HISTORY_HOST_REACH times as large (log scale).
   Such a step is shown with why, and is never a regression. */
int history_step_host_explains(const struct history_experiment *e,
			       const struct history_series *s, const struct stats_cp_step *st);

/* "the machine itself ran 1.20x slower in the runs after it (its canary):
   put down to the host, not called a regression", or why the host does
   not explain it; "" when the host held its pace or it is unknown. */
void history_step_host_text(char *buf, size_t len, const struct history_experiment *e,
			    const struct history_series *s, const struct stats_cp_step *st);

/* Run i's pace for a table: "1.02x", "1.18x slow" (beyond
   HISTORY_HOST_BAND), "0.85x fast", or "-" when unknown. */
void history_pace_text(char *buf, size_t len, const struct history_series *s, size_t i);

/* 1 when the series' newest run sits in a segment that stepped slower than
   the one before it (a real step the machine does not explain), else 0.
   NONE direction: never. */
int history_regressed(const struct history_experiment *e, const struct history_series *s);

/* A step's reason for the reader: "84.2 ns [83.5, 84.9] -> 101 ns [99.8,
   102]: outside both intervals; 20.1 % > threshold 1.68 ns (2 % of the
   level)".  scale/label: the display unit (units_display). */
void history_step_reason(char *buf, size_t len, const struct stats_cp_step *st, double scale,
			 const char *label);

/* The display unit of a series: writes label, returns the factor. */
double history_display(const struct history_series *s, char *label, size_t len);

/* v * scale with four significant digits ("n/a" for NaN). */
void history_number(char *buf, size_t len, double v, double scale);

/* "2026-11-25 08:30" (UTC) of a Unix time. */
void history_time(char *buf, size_t len, double t);

/* The chart of the experiment's series to path (.svg or .png: the
   extension decides), drawn by gnuplot: estimates with their intervals as
   error bars over time, and the fitted step function.  Written to a
   temporary name beside path and renamed.  0; -1 with why in err. */
int history_chart(const char *path, const struct history_experiment *e, int verbose,
		  char *err, size_t errlen);

/* DIR/index.html (and DIR/<experiment>.svg charts): every experiment's
   series with its change points, one folder that works offline.  0; -1
   with why in err.  *drawn: charts drawn (0 when gnuplot is missing). */
int history_html(const char *dir, const struct history_experiment *e, size_t n, int verbose,
		 size_t *drawn, char *err, size_t errlen);

/* `runner history` (history.c). */
int history_main(char **ops, size_t nops, const struct cli_opts *o);

/* --where KEY=VALUE: 0, or EXIT_USAGE (said). */
int history_opt_where(struct cli_opts *o, const char *arg);

/* --since: YYYY-MM-DD or an ISO 8601 UTC time -> Unix time; NaN if bad. */
double history_parse_since(const char *s);

#endif
