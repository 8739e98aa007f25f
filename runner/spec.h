/*
 * spec.h - one experiment spec (design §3): YAML text -> checked struct.
 *
 * Two steps, both reporting "file:line:col: what is wrong":
 *   spec_load()  parses the YAML (libyaml) and checks every key but the
 *                probe's parameters (unknown keys get "did you mean");
 *   spec_bind()  checks `params:` against the probe's table (names with
 *                "did you mean", types, units, ranges, choices) and expands
 *                ranges and lists into typed value lists, filling defaults.
 */
#ifndef SYSMETER_SPEC_H
#define SYSMETER_SPEC_H

#include <stddef.h>
#include "probe.h"

/* Where a node was in the file (1-based), for messages. */
struct spec_pos { int line, col; };

/* One typed value of a parameter. */
struct spec_val {
	char *text;		/* as written, normalised: "4KiB", "random", "64" */
	double num;		/* base units: bytes, seconds; bool 0/1; 0 for strings */
};

enum spec_param_form { SPEC_SCALAR, SPEC_LIST, SPEC_RANGE };

/* A `params:` entry as written (before spec_bind). */
struct spec_param {
	char *name;
	struct spec_pos pos;		/* of the key */
	enum spec_param_form form;
	/* SPEC_SCALAR / SPEC_LIST: raw texts and their positions */
	char **raw; struct spec_pos *raw_pos; size_t n_raw;
	/* SPEC_RANGE: from/to and factor or step, raw */
	char *from, *to, *by; int geometric;	/* by = factor if geometric else step */
	struct spec_pos from_pos, to_pos, by_pos;
	/* after spec_bind: */
	int index;			/* row in the probe's table */
	struct spec_val *vals; size_t n_vals;
};

enum spec_sweep { SWEEP_CROSS, SWEEP_ZIP };
enum spec_outlier { OUT_NONE, OUT_TUKEY, OUT_MAD, OUT_MEDIAN_RATIO, OUT_TRIM };
enum spec_estimator { EST_MEAN, EST_MEDIAN, EST_MIN, EST_MAX, EST_TRIMMED_MEAN };

struct spec_reps {
	int adaptive;
	int min, max;			/* fixed: min == max == repetitions */
	double target_ci;		/* fraction: CI half-width / estimate; 0 = none */
	double max_time;		/* seconds; 0 = none */
};

struct spec_where {			/* `where: {size: 16KiB}` */
	char *param; char *text; struct spec_pos pos;
	double num; int bound;		/* filled by spec_bind */
};

struct spec_predict {
	struct spec_where *where; size_t n_where;
	char *value_text; double value;	/* value in the probe's unit (spec_bind) */
	char *why;
	struct spec_pos pos;
};

struct spec_reference {
	char *machine;			/* "*" or a hostname */
	struct spec_where *where; size_t n_where;
	char *value_text; double value;
	double tol_lo, tol_hi;		/* fractions: -0.5, +1.0 */
	struct spec_pos pos;
};

struct spec_chart {
	int present;
	char *x, *y, *series, *xlabel, *ylabel, *title, *kind;	/* NULL = default */
	int logx, logy;			/* log base, 0 = linear */
};

struct spec {
	char *file;			/* path as given */
	char *text;			/* whole file, for the manifest */
	char sha256[65];
	char *name, *title, *group, *probe, *description;
	struct spec_pos probe_pos;
	struct spec_param *params; size_t n_params;
	enum spec_sweep sweep;
	struct spec_reps reps;
	int warmup;
	unsigned long long iterations;	/* 0 = auto */
	double min_sample_time;		/* seconds */
	enum spec_outlier outliers; double out_k, out_lo, out_hi;
	enum spec_estimator estimate; double est_p;
	char **subtract; struct spec_pos *subtract_pos; size_t n_subtract;
	int cpu;			/* -1 = none */
	int has_priority, priority;
	double timeout;			/* seconds */
	struct spec_predict *predict; size_t n_predict;
	struct spec_reference *reference; size_t n_reference;
	struct spec_chart chart;
	char **findings; size_t n_findings;
	/* after spec_bind: one value list per probe parameter, table order */
	const struct probe *bound;
	struct spec_val **axis; size_t *axis_n; size_t n_axis;
	int *axis_swept;		/* 1 if the spec gave a list or range */
};

/* Defaults (design §3). */
#define SPEC_DEFAULT_REPETITIONS 15
#define SPEC_DEFAULT_WARMUP 2
#define SPEC_DEFAULT_MIN_SAMPLE_TIME 0.010
#define SPEC_DEFAULT_TIMEOUT 120.0

/* Parse and check a spec file; err gets "file:line:col: message".  Returns
   0, or -1 (bad spec: exit 2).  Also applies `--set` overrides that name
   this spec: each "experiment.key.sub=value" with experiment == spec name. */
int spec_load(const char *path, struct spec *out, char *err, size_t errlen);

/* Parse from a string (tests, rerun); `path` only names it in messages. */
int spec_parse(const char *path, const char *text, size_t len, struct spec *out,
	       char *err, size_t errlen);

/* Apply one override "key.sub=value" (experiment prefix already stripped),
   e.g. "params.stride=64", "repetitions=5", "cpu=none".  Values use spec
   syntax; a list may be given as "[64, 4096]". */
int spec_override(struct spec *s, const char *assignment, char *err, size_t errlen);

/* Check params/predict/reference against the probe's table; fill axes. */
int spec_bind(struct spec *s, const struct probe *p, char *err, size_t errlen);

void spec_free(struct spec *s);

/* "did you mean" helper: the candidate closest to `word` (edit distance
   <= 2 or a prefix), or NULL. */
const char *spec_suggest(const char *word, const char *const *candidates, size_t n);

#endif
