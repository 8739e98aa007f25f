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
#include "lib/suggest.h"
#include "spec/spec_expr.h"

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

/* `rounds: {min, max, target, budget}`: adaptive rounds (engine/, the
   decision in stats/rounds.c); spec.rounds is then min. */
struct spec_rounds {
	int adaptive;
	int max;			/* the most rounds a point takes */
	double target;			/* enough: CI half-width / |estimate| (0.05 = 5 %) */
	double budget;			/* seconds the extra rounds of the experiment may
					   take; 0 = as long as its first min rounds took */
};

struct spec_where {			/* `where: {size: 16KiB}` */
	char *param; char *text; struct spec_pos pos;	/* pos: of the key */
	double num; int bound;		/* filled by spec_bind */
	struct spec_pos value_pos;
};

struct spec_predict {
	struct spec_where *where; size_t n_where;
	char *value_text; double value;	/* value in the probe's unit (spec_bind) */
	/* The seeds' split of a prediction: the base hardware cost and the
	   software overhead on top (either may be NULL/NaN); value is their sum
	   when the spec gives no value. */
	char *hw_text, *sw_text; double hw, sw;
	struct spec_pos hw_pos, sw_pos;
	/* The machines it is for: a glob over the CPU model ("*EPYC*",
	   "*Xeon*") or a host name; "*" (the default) for any.  A point takes
	   the first prediction for its machine, else the first for "*". */
	char *machine;
	char *why;			/* "" when not given */
	struct spec_pos pos;		/* of the list item */
	struct spec_pos value_pos;
	/* Formulas (spec_expr.h): value, hardware, software, each NULL when
	   not given or given as a plain quantity; a formula's number is
	   computed at analysis (results/predict.c), so value/hw/sw stay NaN. */
	struct spec_formula *fx[3];
};
enum { SPEC_FX_VALUE, SPEC_FX_HW, SPEC_FX_SW };

struct spec_reference {
	char *machine;			/* "*" or a hostname */
	struct spec_where *where; size_t n_where;
	char *value_text; double value;
	double tol_lo, tol_hi;		/* fractions: -0.5, +1.0 (the default) */
	struct spec_pos pos;		/* of the machine key */
	struct spec_pos value_pos;
};

struct spec_chart {
	int present;
	char *x, *y, *series, *xlabel, *ylabel, *title, *kind;	/* NULL = default */
	int logx, logy;			/* log base, 0 = linear */
	struct spec_pos x_pos, series_pos;
};

/* One argv of `command:` as written: {param} placeholders not yet replaced. */
struct spec_argv {
	char **arg; struct spec_pos *pos; size_t n;	/* n == 0: not given */
};

/*
 * `command:` - the program the command probe runs (spec_command.c):
 * argv (a list, or with shell: true one script text), hooks, the exit
 * statuses that count as success, stdin, kept output, a per-run timeout.
 * Placeholders {name} name the probe's parameters (checked by spec_bind)
 * or {bin}; {{ and }} are literal braces.
 */
struct spec_command {
	int present;
	struct spec_pos pos;		/* of the `command` key */
	struct spec_argv argv;
	int shell;
	struct spec_argv setup, cleanup, prepare, conclude;
	int *ok_exit; size_t n_ok_exit;	/* default: {0} */
	char *stdin_path; struct spec_pos stdin_pos;	/* NULL: /dev/null */
	int keep_output;
	double timeout;			/* per run, seconds; 0: none */
};

/* The probe that takes `command:`, and the placeholder every command has:
   the directory of that probe's helper programs (probe_dir/bin). */
#define SPEC_COMMAND_PROBE "command"
#define SPEC_COMMAND_BIN "bin"

struct spec {
	char *file;			/* path as given */
	char *text;			/* whole file, for the manifest */
	char sha256[65];
	char *name, *title, *group, *probe, *description;	/* never NULL ("" = none) */
	struct spec_pos probe_pos;
	struct spec_param *params; size_t n_params;
	enum spec_sweep sweep;
	struct spec_reps reps;
	int rounds;			/* independent rounds per point (>= 1); adaptive: min */
	struct spec_rounds rounds_rule;	/* rounds: {min, max, target, budget} */
	int warmup;			/* SPEC_WARMUP_AUTO or a count */
	unsigned long long iterations;	/* 0 = auto */
	double min_sample_time;		/* seconds */
	enum spec_outlier outliers; double out_k, out_lo, out_hi;	/* k: tukey 3, mad 3,
					   median_ratio 2 by default; trim lo = hi = 0.05 */
	enum spec_estimator estimate; double est_p;	/* est_p: trimmed_mean's cut per end,
					   from `estimate: {name: trimmed_mean, p: 10%}` */
	char **subtract; struct spec_pos *subtract_pos; size_t n_subtract;
	int cpu;			/* -1 = none */
	int has_priority, priority;
	double timeout;			/* seconds */
	struct spec_predict *predict; size_t n_predict;
	struct spec_reference *reference; size_t n_reference;
	struct spec_chart chart;
	char **findings; size_t n_findings;
	/* `beside: {experiment, rtt, rtt_where}`: the report shows this
	   experiment's points beside the points of `experiment` with the same
	   parameter values (remote beside local), and predicts ours as theirs
	   plus the smallest round trip measured by `rtt` among its points that
	   fit `rtt_where` ({param: value}); rtt and rtt_where are optional. */
	char *beside, *beside_rtt;
	char *discussion;		/* the user's Markdown after the results; NULL: none */
	char **beside_where; size_t n_beside_where;	/* rtt_where: "param=text" */
	/* after spec_bind: one value list per probe parameter, table order */
	const struct probe *bound;
	struct spec_val **axis; size_t *axis_n; size_t n_axis;
	int *axis_swept;		/* 1 if the spec gave a list or range */
	/* the `sweep:` key (zip length errors point at it) */
	struct spec_pos sweep_pos;
	/* --set assignments applied by spec_override, in order ("params.x=1").
	   A node that came from override k has pos {line 0, col k}; messages
	   then name "--set NAME.ASSIGNMENT" instead of file:line:col. */
	char **overrides; size_t n_overrides;
	/* `quick:` - assignments in --set syntax ("params.size={from: 1KiB,
	   to: 64MiB, factor: 2}") that the runner applies under --quick, before
	   the command line's --set; quick_pos is each key's position. */
	char **quick; struct spec_pos *quick_pos; size_t n_quick;
	struct spec_command command;	/* `command:` (the command probe) */
	/* Experiments whose results the prediction formulas use (@name): run
	   and analysed before this one when they are in the run (plan_order). */
	char **uses; size_t n_uses;
};

/* Defaults (design §3). */
#define SPEC_DEFAULT_REPETITIONS 15
#define SPEC_WARMUP_AUTO (-1)		/* `warmup: auto`: until the samples are steady */
#define SPEC_DEFAULT_WARMUP SPEC_WARMUP_AUTO
#define SPEC_DEFAULT_ROUNDS 5		/* docs/methodology.md says why 5 */
/* rounds: {min, max, target, budget}: what an omitted key defaults to
   (docs/methodology.md, "Adaptive rounds") */
#define SPEC_DEFAULT_ROUNDS_MIN 5
#define SPEC_DEFAULT_ROUNDS_MAX 12
#define SPEC_DEFAULT_ROUNDS_TARGET 0.05
#define SPEC_MAX_ROUNDS 1000
#define SPEC_DEFAULT_MIN_SAMPLE_TIME 0.010
#define SPEC_DEFAULT_TIMEOUT 120.0
#define SPEC_DEFAULT_GROUP "other"
#define SPEC_DEFAULT_CPU 0		/* pin to CPU 0 unless `cpu: none` */
#define SPEC_DEFAULT_OUTLIERS OUT_NONE
#define SPEC_DEFAULT_ESTIMATE EST_MEDIAN
#define SPEC_DEFAULT_TRIM_P 0.10	/* trimmed_mean without p */
/* adaptive repetitions: what {min, max, target_ci} default to */
#define SPEC_DEFAULT_ADAPTIVE_MIN 10
#define SPEC_DEFAULT_ADAPTIVE_MAX 200
#define SPEC_DEFAULT_TARGET_CI 0.01
#define SPEC_MAX_RANGE_VALUES 10000	/* a range expanding to more is an error */
#define SPEC_MAX_SECONDS (7 * 86400.0)	/* the longest duration a spec may ask for */

/* Parse and check a spec file; err gets "file:line:col: message" (or
   "file: cannot read: <strerror>").  Returns 0, or -1 (bad spec: exit 2);
   on -1 *out holds nothing to free (spec_free on it is harmless).  `--set`
   overrides are not applied here: the caller applies those naming this
   spec with spec_override(), before spec_bind(). */
int spec_load(const char *path, struct spec *out, char *err, size_t errlen);

/* Parse from a string (tests, rerun); `path` only names it in messages. */
int spec_parse(const char *path, const char *text, size_t len, struct spec *out,
	       char *err, size_t errlen);

/* Apply one override "key.sub=value" (experiment prefix already stripped),
   e.g. "params.stride=64", "repetitions=5", "cpu=none".  Values use spec
   syntax; a list may be given as "[64, 4096]".  The value is grafted into
   the spec's YAML and the whole spec is checked again by the same code as
   the file (and re-bound if it was bound), so the rules and messages are
   the file's.  On error *s is unchanged and err holds the message WITHOUT
   a position or the override's text, e.g. "unknown key 'repetitons' (did
   you mean 'repetitions'?)": the caller prints
   "runner: --set syscall.repetitons=5: <err>".  (A message about a node of
   the file itself keeps its "file:line:col: ".)  Errors spec_bind() later
   finds in an override's values name it: "--set NAME.params.x=1: ...". */
int spec_override(struct spec *s, const char *assignment, char *err, size_t errlen);

/* Check params/predict/reference/chart against the probe's table; fill
   axes (each axis[i][k].text is owned by the spec and freed by spec_free
   for k < axis_n[i]: whoever shortens an axis frees what it drops).  Also
   checks `sweep: zip` lengths.  May be called again (re-binds). */
int spec_bind(struct spec *s, const struct probe *p, char *err, size_t errlen);

/* A choice parameter's rows (probe_param.choices, ending with a NULL name):
   the row named `name`, or NULL; and the names joined by '|', "a|b|c" (cut
   to fit len), as binding, the loader and probe-help say them. */
const struct probe_choice *spec_choice(const struct probe_choice *choices, const char *name);
const char *spec_choices_text(const struct probe_choice *choices, char *buf, size_t len);

void spec_free(struct spec *s);

/* "did you mean" for a spec word: lib/suggest.h's rule under the spec
   module's name, for callers that know only this header. */
static inline const char *spec_suggest(const char *word, const char *const *candidates, size_t n)
{
	return suggest_word(word, candidates, n);
}

/* 1 when {name} appears in the spec's command (argv, a hook or stdin): a
   parameter of a command spec that the probe does not declare is then one
   of the spec's own variables (exec/command_vars.c). */
int spec_command_uses(const struct spec *s, const char *name);

#endif
