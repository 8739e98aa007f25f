/*
 * spec_keys.c - the spec's keys (design §3): one handler per top-level key,
 * each checking a YAML node and filling struct spec.  A handler sees the
 * same node whether it came from the file or from a --set override (see
 * spec_yaml.c), so both get the same rules and messages.
 *
 * Messages are "file:line:col: key: what is wrong" (lowercase, no full
 * stop); the position is that of the offending node: the key for unknown
 * or duplicate keys, the value for bad values.
 */
#include "spec/spec_keys.h"
#include "spec/spec_command.h"
#include "lib/suggest.h"
#include "lib/units.h"

#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define MSG 256			/* scratch for units' messages */

typedef int (*key_fn)(struct spec_yaml_ctx *c, struct spec *s, yaml_node_t *v, yaml_node_t *k);

static const struct spec_pos nopos = {0, 0};

static int oom(struct spec_yaml_ctx *c)
{
	return spec_yaml_fail(c, nopos, "out of memory");
}

static int is_word(const char *s);

int spec_keys_is_name(const char *s)
{
	return is_word(s);
}

static int is_word(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
			return 0;
	return 1;
}

/* "got X" text of a node, in a buffer that lives for the statement. */
#define WHAT(v) spec_yaml_what((v), (char[96]){0}, 96)

static int set_text(struct spec_yaml_ctx *c, char **dst, yaml_node_t *v, const char *key, int empty_ok)
{
	if (v->type != YAML_SCALAR_NODE || (!empty_ok && !*spec_yaml_str(v)))
		return spec_yaml_fail(c, spec_yaml_pos(c, v), "%s: expected a text, got %s", key, WHAT(v));
	free(*dst);
	if (!(*dst = strdup(spec_yaml_str(v))))
		return oom(c);
	return 0;
}

/* A name usable in file names and in "--set NAME.key": [A-Za-z0-9_-]+. */
static int set_word(struct spec_yaml_ctx *c, char **dst, yaml_node_t *v, const char *key,
		    const char *expect)
{
	if (v->type != YAML_SCALAR_NODE || !is_word(spec_yaml_str(v)))
		return spec_yaml_fail(c, spec_yaml_pos(c, v), "%s: expected %s, got %s", key, expect, WHAT(v));
	return set_text(c, dst, v, key, 0);
}

/* An integer in [lo, hi].  Outside it: "KEY: V is out of range [lo, hi]"
   when range_msg, else "KEY: expected EXPECT, got 'V'" (one-sided bounds
   read better as "an integer >= 0"). */
static int get_int(struct spec_yaml_ctx *c, yaml_node_t *v, const char *key, const char *expect,
		   long long lo, long long hi, int range_msg, long long *out)
{
	char msg[MSG];
	long long x;

	if (v->type != YAML_SCALAR_NODE || units_parse_int(spec_yaml_str(v), &x, msg, sizeof(msg)) < 0)
		return spec_yaml_fail(c, spec_yaml_pos(c, v), "%s: expected %s, got %s", key, expect, WHAT(v));
	if (x < lo || x > hi) {
		if (range_msg)
			return spec_yaml_fail(c, spec_yaml_pos(c, v), "%s: %lld is out of range [%lld, %lld]", key, x,
				       lo, hi);
		return spec_yaml_fail(c, spec_yaml_pos(c, v), "%s: expected %s, got %s", key, expect, WHAT(v));
	}
	*out = x;
	return 0;
}

static const char *kind_text(enum unit_kind kind)
{
	switch (kind) {
	case UNIT_SIZE: return "a size";
	case UNIT_TIME: return "a time";
	case UNIT_RATE: return "a rate";
	case UNIT_PERCENT: return "a fraction";
	case UNIT_FREQ: return "a frequency";
	case UNIT_NUMBER: break;
	}
	return "a number";
}

/* A quantity; positive: must be > 0. */
static int get_qty(struct spec_yaml_ctx *c, yaml_node_t *v, const char *key, enum unit_kind kind,
		   int positive, double *out)
{
	char msg[MSG], *got;
	double x;

	if (v->type != YAML_SCALAR_NODE) {
		/* borrow units' "expected a time like 10ms or 2s" for the same wording */
		units_parse("", kind, &x, msg, sizeof(msg));
		if ((got = strstr(msg, ", got")))
			*got = '\0';
		return spec_yaml_fail(c, spec_yaml_pos(c, v), "%s: %s, got %s", key, msg, WHAT(v));
	}
	if (units_parse(spec_yaml_str(v), kind, &x, msg, sizeof(msg)) < 0)
		return spec_yaml_fail(c, spec_yaml_pos(c, v), "%s: %s", key, msg);
	if (positive && !(x > 0))
		return spec_yaml_fail(c, spec_yaml_pos(c, v), "%s: expected %s > 0, got %s", key, kind_text(kind),
			       WHAT(v));
	/* a duration the run must honour: poll() and timers take int ms, and
	   nothing sysmeter times runs for weeks */
	if (kind == UNIT_TIME && !(x <= SPEC_MAX_SECONDS))
		return spec_yaml_fail(c, spec_yaml_pos(c, v), "%s: at most %.0fs (7 days), got %s", key,
				      SPEC_MAX_SECONDS, WHAT(v));
	*out = x;
	return 0;
}

/* Index of a scalar's text in names[], or a "did you mean" error. */
static int pick(struct spec_yaml_ctx *c, yaml_node_t *v, const char *key, const char *what,
		const char *const *names, size_t n, const char *list, int *out)
{
	const char *s;

	if (v->type != YAML_SCALAR_NODE)
		return spec_yaml_fail(c, spec_yaml_pos(c, v), "%s: expected %s (%s), got %s", key, what, list,
			       WHAT(v));
	for (size_t i = 0; i < n; i++)
		if (strcmp(spec_yaml_str(v), names[i]) == 0) {
			*out = (int)i;
			return 0;
		}
	s = suggest_word(spec_yaml_str(v), names, n);
	if (s)
		return spec_yaml_fail(c, spec_yaml_pos(c, v), "%s: unknown %s '%s' (did you mean '%s'?)", key, what,
			       spec_yaml_str(v), s);
	return spec_yaml_fail(c, spec_yaml_pos(c, v), "%s: unknown %s '%s' (expected %s)", key, what, spec_yaml_str(v),
		       list);
}

static int h_name(struct spec_yaml_ctx *c, struct spec *s, yaml_node_t *v, yaml_node_t *k)
{
	(void)k;
	return set_word(c, &s->name, v, "name", "a name of letters, digits, '_' or '-'");
}

static int h_title(struct spec_yaml_ctx *c, struct spec *s, yaml_node_t *v, yaml_node_t *k)
{
	(void)k;
	return set_text(c, &s->title, v, "title", 0);
}

static int h_group(struct spec_yaml_ctx *c, struct spec *s, yaml_node_t *v, yaml_node_t *k)
{
	(void)k;
	return set_word(c, &s->group, v, "group", "a word like cpu, memory, network or filesystem");
}

static int h_probe(struct spec_yaml_ctx *c, struct spec *s, yaml_node_t *v, yaml_node_t *k)
{
	(void)k;
	if (v->type != YAML_SCALAR_NODE || !(is_word(spec_yaml_str(v)) || strchr(spec_yaml_str(v), '/')))
		return spec_yaml_fail(c, spec_yaml_pos(c, v),
			       "probe: expected a probe name like mem_latency or a path to a .so, got %s",
			       WHAT(v));
	s->probe_pos = spec_yaml_pos(c, v);
	if (set_text(c, &s->probe, v, "probe", 0) < 0)
		return -1;
	/* a relative path in a file is relative to that file, as an include
	   is, not to wherever the runner was started; one from --set stays
	   relative to the working directory, like any path on a command line */
	const char *slash = c->file ? strrchr(c->file, '/') : NULL;
	if (strchr(s->probe, '/') && s->probe[0] != '/' && s->probe_pos.line > 0 && slash) {
		char *joined;

		if (asprintf(&joined, "%.*s/%s", (int)(slash - c->file), c->file, s->probe) < 0)
			return oom(c);
		free(s->probe);
		s->probe = joined;
	}
	return 0;
}

static int h_description(struct spec_yaml_ctx *c, struct spec *s, yaml_node_t *v, yaml_node_t *k)
{
	(void)k;
	return set_text(c, &s->description, v, "description", 1);
}

/* The user's discussion of the results (Markdown), placed after them. */
static int h_discussion(struct spec_yaml_ctx *c, struct spec *s, yaml_node_t *v, yaml_node_t *k)
{
	(void)k;
	return set_text(c, &s->discussion, v, "discussion", 1);
}

static int raw_push(struct spec_yaml_ctx *c, struct spec_param *sp, yaml_node_t *v)
{
	if (!(sp->raw[sp->n_raw] = strdup(spec_yaml_str(v))))
		return oom(c);
	sp->raw_pos[sp->n_raw++] = spec_yaml_pos(c, v);
	return 0;
}

static int param_range(struct spec_yaml_ctx *c, struct spec_param *sp, yaml_node_t *v, const char *path)
{
	static const char *const keys[] = {"from", "to", "factor", "step"};
	yaml_node_t *vals[4], *kn[4];
	char **dst[4] = {&sp->from, &sp->to, &sp->by, &sp->by};
	struct spec_pos *pos[4] = {&sp->from_pos, &sp->to_pos, &sp->by_pos, &sp->by_pos};
	double f;
	char msg[MSG];

	if (spec_yaml_fields(c, v, path, keys, 4, vals, kn) < 0)
		return -1;
	if (!vals[0] || !vals[1])
		return spec_yaml_fail(c, spec_yaml_pos(c, v), "%s: a range needs 'from' and 'to'", path);
	if (!vals[2] == !vals[3])
		return spec_yaml_fail(c, spec_yaml_pos(c, v),
			       "%s: a range needs exactly one of 'factor' (geometric) or 'step' (linear)",
			       path);
	for (int i = 0; i < 4; i++) {
		if (!vals[i])
			continue;
		if (vals[i]->type != YAML_SCALAR_NODE)
			return spec_yaml_fail(c, spec_yaml_pos(c, vals[i]), "%s.%s: expected a single value, got %s",
				       path, keys[i], WHAT(vals[i]));
		if (!(*dst[i] = strdup(spec_yaml_str(vals[i]))))
			return oom(c);
		*pos[i] = spec_yaml_pos(c, vals[i]);
	}
	sp->form = SPEC_RANGE;
	sp->geometric = vals[2] != NULL;
	/* the factor has no unit, so it can be checked before the probe is known */
	if (sp->geometric && (units_parse(sp->by, UNIT_NUMBER, &f, msg, sizeof(msg)) < 0 || !(f > 1)))
		return spec_yaml_fail(c, sp->by_pos, "%s.factor: expected a number > 1, got %s", path,
			       WHAT(vals[2]));
	return 0;
}

static int param_value(struct spec_yaml_ctx *c, struct spec_param *sp, yaml_node_t *v)
{
	char path[160];
	size_t n;

	snprintf(path, sizeof(path), "params.%s", sp->name);
	if (v->type == YAML_MAPPING_NODE)
		return param_range(c, sp, v, path);
	n = v->type == YAML_SCALAR_NODE ? 1
	    : (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
	if (n == 0)
		return spec_yaml_fail(c, spec_yaml_pos(c, v), "%s: empty list", path);
	sp->raw = calloc(n, sizeof(*sp->raw));
	sp->raw_pos = calloc(n, sizeof(*sp->raw_pos));
	if (!sp->raw || !sp->raw_pos)
		return oom(c);
	if (v->type == YAML_SCALAR_NODE) {
		sp->form = SPEC_SCALAR;
		return raw_push(c, sp, v);
	}
	sp->form = SPEC_LIST;
	for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	     it++) {
		yaml_node_t *item = spec_yaml_node(c, *it);
		if (item->type != YAML_SCALAR_NODE)
			return spec_yaml_fail(c, spec_yaml_pos(c, item), "%s: list items must be single values, got %s",
				       path, WHAT(item));
		if (raw_push(c, sp, item) < 0)
			return -1;
	}
	return 0;
}

static int h_params(struct spec_yaml_ctx *c, struct spec *s, yaml_node_t *v, yaml_node_t *k)
{
	size_t n;

	(void)k;
	if (v->type != YAML_MAPPING_NODE)
		return spec_yaml_fail(c, spec_yaml_pos(c, v), "params: expected a mapping {name: value, ...}, got %s",
			       WHAT(v));
	if (spec_yaml_fields(c, v, "params", NULL, 0, NULL, NULL) < 0)
		return -1;
	n = (size_t)(v->data.mapping.pairs.top - v->data.mapping.pairs.start);
	if (n && !(s->params = calloc(n, sizeof(*s->params))))
		return oom(c);
	for (yaml_node_pair_t *pr = v->data.mapping.pairs.start; pr < v->data.mapping.pairs.top; pr++) {
		yaml_node_t *key = spec_yaml_node(c, pr->key);
		struct spec_param *sp = &s->params[s->n_params++];

		sp->index = -1;
		sp->pos = spec_yaml_pos(c, key);
		if (!(sp->name = strdup(spec_yaml_str(key))))
			return oom(c);
		if (param_value(c, sp, spec_yaml_node(c, pr->value)) < 0)
			return -1;
	}
	return 0;
}

static int h_sweep(struct spec_yaml_ctx *c, struct spec *s, yaml_node_t *v, yaml_node_t *k)
{
	s->sweep_pos = spec_yaml_pos(c, k);
	if (v->type == YAML_SCALAR_NODE && strcmp(spec_yaml_str(v), "cross") == 0)
		s->sweep = SWEEP_CROSS;
	else if (v->type == YAML_SCALAR_NODE && strcmp(spec_yaml_str(v), "zip") == 0)
		s->sweep = SWEEP_ZIP;
	else
		return spec_yaml_fail(c, spec_yaml_pos(c, v), "sweep: expected cross or zip, got %s", WHAT(v));
	return 0;
}

static int h_repetitions(struct spec_yaml_ctx *c, struct spec *s, yaml_node_t *v, yaml_node_t *k)
{
	static const char *const keys[] = {"min", "max", "target_ci", "max_time"};
	yaml_node_t *vals[4], *kn[4];
	struct spec_reps r = {1, 0, 0, SPEC_DEFAULT_TARGET_CI, 0};
	long long x;

	(void)k;
	if (v->type == YAML_SCALAR_NODE) {
		if (get_int(c, v, "repetitions",
			    "an integer >= 1 or a mapping {min, max, target_ci, max_time}", 1, INT_MAX,
			    0, &x) < 0)
			return -1;
		s->reps = (struct spec_reps){0, (int)x, (int)x, 0, 0};
		return 0;
	}
	if (v->type != YAML_MAPPING_NODE)
		return spec_yaml_fail(c, spec_yaml_pos(c, v),
			       "repetitions: expected an integer >= 1 or a mapping {min, max, target_ci, max_time}, got %s",
			       WHAT(v));
	if (spec_yaml_fields(c, v, "repetitions", keys, 4, vals, kn) < 0)
		return -1;
	if (vals[0]) {
		if (get_int(c, vals[0], "repetitions.min", "an integer >= 2", 2, INT_MAX, 0, &x) < 0)
			return -1;
		r.min = (int)x;
	}
	if (vals[1]) {
		if (get_int(c, vals[1], "repetitions.max", "an integer >= 2", 2, INT_MAX, 0, &x) < 0)
			return -1;
		r.max = (int)x;
	}
	/* a default never contradicts the bound that was given */
	if (!r.min)
		r.min = r.max && r.max < SPEC_DEFAULT_ADAPTIVE_MIN ? r.max : SPEC_DEFAULT_ADAPTIVE_MIN;
	if (!r.max)
		r.max = r.min > SPEC_DEFAULT_ADAPTIVE_MAX ? r.min : SPEC_DEFAULT_ADAPTIVE_MAX;
	if (r.max < r.min)
		return spec_yaml_fail(c, spec_yaml_pos(c, vals[1]), "repetitions: max (%d) is below min (%d)", r.max,
			       r.min);
	if (vals[2]) {
		if (get_qty(c, vals[2], "repetitions.target_ci", UNIT_PERCENT, 0, &r.target_ci) < 0)
			return -1;
		if (!(r.target_ci > 0 && r.target_ci < 1))
			return spec_yaml_fail(c, spec_yaml_pos(c, vals[2]),
				       "repetitions.target_ci: expected a fraction above 0 and below 100%% like 1%%, got %s",
				       WHAT(vals[2]));
	}
	if (vals[3] && get_qty(c, vals[3], "repetitions.max_time", UNIT_TIME, 1, &r.max_time) < 0)
		return -1;
	s->reps = r;
	return 0;
}

static int h_warmup(struct spec_yaml_ctx *c, struct spec *s, yaml_node_t *v, yaml_node_t *k)
{
	long long x;

	(void)k;
	if (v->type == YAML_SCALAR_NODE && strcmp(spec_yaml_str(v), "auto") == 0) {
		s->warmup = SPEC_WARMUP_AUTO;
		return 0;
	}
	if (get_int(c, v, "warmup", "an integer >= 0", 0, INT_MAX, 0, &x) < 0)
		return -1;
	s->warmup = (int)x;
	return 0;
}

/* `rounds: N` (fixed) or `rounds: {min, max, target, budget}` (adaptive:
   after min rounds a point takes more while the interval of its median is
   wider than target, or its rounds ran while the host changed speed, up to
   max and within the budget).  min >= 2: the interval comes from between
   the rounds. */
static int h_rounds(struct spec_yaml_ctx *c, struct spec *s, yaml_node_t *v, yaml_node_t *k)
{
	static const char *const keys[] = {"min", "max", "target", "budget"};
	yaml_node_t *vals[4], *kn[4];
	struct spec_rounds r = {1, 0, SPEC_DEFAULT_ROUNDS_TARGET, 0};
	int min = 0;
	long long x;

	(void)k;
	if (v->type == YAML_SCALAR_NODE) {
		if (get_int(c, v, "rounds",
			    "an integer from 1 to 1000 or a mapping {min, max, target, budget}", 1,
			    SPEC_MAX_ROUNDS, 0, &x) < 0)
			return -1;
		s->rounds = (int)x;
		s->rounds_rule = (struct spec_rounds){0};
		return 0;
	}
	if (v->type != YAML_MAPPING_NODE)
		return spec_yaml_fail(c, spec_yaml_pos(c, v),
			       "rounds: expected an integer from 1 to 1000 or a mapping {min, max, target, budget}, got %s",
			       WHAT(v));
	if (spec_yaml_fields(c, v, "rounds", keys, 4, vals, kn) < 0)
		return -1;
	if (vals[0]) {
		if (get_int(c, vals[0], "rounds.min", "an integer from 2 to 1000 (the interval comes "
			    "from between the rounds)", 2, SPEC_MAX_ROUNDS, 0, &x) < 0)
			return -1;
		min = (int)x;
	}
	if (vals[1]) {
		if (get_int(c, vals[1], "rounds.max", "an integer from 2 to 1000", 2, SPEC_MAX_ROUNDS, 0,
			    &x) < 0)
			return -1;
		r.max = (int)x;
	}
	/* a default never contradicts the bound that was given */
	if (!min)
		min = r.max && r.max < SPEC_DEFAULT_ROUNDS_MIN ? r.max : SPEC_DEFAULT_ROUNDS_MIN;
	if (!r.max)
		r.max = min > SPEC_DEFAULT_ROUNDS_MAX ? min : SPEC_DEFAULT_ROUNDS_MAX;
	if (r.max < min)
		return spec_yaml_fail(c, spec_yaml_pos(c, vals[1]), "rounds: max (%d) is below min (%d)",
				      r.max, min);
	if (vals[2]) {
		if (get_qty(c, vals[2], "rounds.target", UNIT_PERCENT, 0, &r.target) < 0)
			return -1;
		if (!(r.target > 0 && r.target < 1))
			return spec_yaml_fail(c, spec_yaml_pos(c, vals[2]),
				       "rounds.target: expected a fraction above 0 and below 100%% like 5%%, got %s",
				       WHAT(vals[2]));
	}
	if (vals[3] && get_qty(c, vals[3], "rounds.budget", UNIT_TIME, 1, &r.budget) < 0)
		return -1;
	s->rounds = min;
	s->rounds_rule = r;
	return 0;
}

static int h_iterations(struct spec_yaml_ctx *c, struct spec *s, yaml_node_t *v, yaml_node_t *k)
{
	long long x;

	(void)k;
	if (v->type == YAML_SCALAR_NODE && strcmp(spec_yaml_str(v), "auto") == 0) {
		s->iterations = 0;
		return 0;
	}
	if (get_int(c, v, "iterations", "'auto' or an integer >= 1", 1, LLONG_MAX, 0, &x) < 0)
		return -1;
	s->iterations = (unsigned long long)x;
	return 0;
}

static int h_min_sample_time(struct spec_yaml_ctx *c, struct spec *s, yaml_node_t *v, yaml_node_t *k)
{
	(void)k;
	return get_qty(c, v, "min_sample_time", UNIT_TIME, 1, &s->min_sample_time);
}

static int h_timeout(struct spec_yaml_ctx *c, struct spec *s, yaml_node_t *v, yaml_node_t *k)
{
	(void)k;
	return get_qty(c, v, "timeout", UNIT_TIME, 1, &s->timeout);
}

/* Indexed by enum spec_outlier / enum spec_estimator. */
static const char *const rule_names[] = {"none", "tukey", "mad", "median_ratio", "trim"};
#define RULE_LIST "none, tukey, mad, median_ratio or trim"
static const char *const est_names[] = {"mean", "median", "min", "max", "trimmed_mean"};
#define EST_LIST "mean, median, min, max or trimmed_mean"

static void rule_defaults(struct spec *s, int rule)
{
	static const double k[] = {0, 3, 3, 2, 0};	/* tukey 3: only far outliers */

	s->outliers = (enum spec_outlier)rule;
	s->out_k = k[rule];
	s->out_lo = s->out_hi = rule == OUT_TRIM ? 0.05 : 0;
}

/*
 * outliers: RULE | {rule: RULE, k: K} | {rule: trim, lo: 5%, hi: 5%}.
 * k applies to tukey, mad and median_ratio; lo/hi to trim only.
 */
static int h_outliers(struct spec_yaml_ctx *c, struct spec *s, yaml_node_t *v, yaml_node_t *k)
{
	static const char *const keys[] = {"rule", "k", "lo", "hi"};
	yaml_node_t *vals[4], *kn[4];
	int rule = 0;

	(void)k;
	if (v->type == YAML_SCALAR_NODE) {
		if (pick(c, v, "outliers", "rule", rule_names, N(rule_names), RULE_LIST, &rule) < 0)
			return -1;
		rule_defaults(s, rule);
		return 0;
	}
	if (v->type != YAML_MAPPING_NODE)
		return spec_yaml_fail(c, spec_yaml_pos(c, v),
			       "outliers: expected a rule name or a mapping {rule, k, lo, hi}, got %s",
			       WHAT(v));
	if (spec_yaml_fields(c, v, "outliers", keys, 4, vals, kn) < 0)
		return -1;
	if (!vals[0])
		return spec_yaml_fail(c, spec_yaml_pos(c, v), "outliers: missing required key 'rule'");
	if (pick(c, vals[0], "outliers.rule", "rule", rule_names, N(rule_names), RULE_LIST, &rule) < 0)
		return -1;
	rule_defaults(s, rule);
	for (int i = 1; i < 4; i++) {
		int applies = i == 1 ? (rule == OUT_TUKEY || rule == OUT_MAD || rule == OUT_MEDIAN_RATIO)
				     : rule == OUT_TRIM;
		if (vals[i] && !applies)
			return spec_yaml_fail(c, spec_yaml_pos(c, kn[i]), "outliers: '%s' does not apply to rule '%s'",
				       keys[i], rule_names[rule]);
	}
	if (vals[1]) {
		if (get_qty(c, vals[1], "outliers.k", UNIT_NUMBER, 1, &s->out_k) < 0)
			return -1;
		if (rule == OUT_MEDIAN_RATIO && !(s->out_k > 1))
			return spec_yaml_fail(c, spec_yaml_pos(c, vals[1]),
				       "outliers.k: median_ratio needs k > 1, got %s", WHAT(vals[1]));
	}
	for (int i = 2; i < 4; i++) {
		double *dst = i == 2 ? &s->out_lo : &s->out_hi;
		char key[16];
		if (!vals[i])
			continue;
		snprintf(key, sizeof(key), "outliers.%s", keys[i]);
		if (get_qty(c, vals[i], key, UNIT_PERCENT, 0, dst) < 0)
			return -1;
		if (!(*dst >= 0 && *dst < 1))
			return spec_yaml_fail(c, spec_yaml_pos(c, vals[i]),
				       "%s: expected a fraction from 0 to below 100%%, got %s", key,
				       WHAT(vals[i]));
	}
	if (s->out_lo + s->out_hi >= 1)
		return spec_yaml_fail(c, spec_yaml_pos(c, v), "outliers: lo + hi must be below 100%% (nothing would be left)");
	return 0;
}

/* estimate: NAME | {name: trimmed_mean, p: 10%}  (p = fraction cut from each
   end; the mapping has the same shape as `outliers: {rule, k}`). */
static int h_estimate(struct spec_yaml_ctx *c, struct spec *s, yaml_node_t *v, yaml_node_t *k)
{
	static const char *const keys[] = {"name", "p"};
	yaml_node_t *vals[2], *kn[2];
	int e = 0;

	(void)k;
	if (v->type == YAML_SCALAR_NODE) {
		if (pick(c, v, "estimate", "estimator", est_names, N(est_names), EST_LIST, &e) < 0)
			return -1;
	} else if (v->type == YAML_MAPPING_NODE) {
		if (spec_yaml_fields(c, v, "estimate", keys, 2, vals, kn) < 0)
			return -1;
		if (!vals[0])
			return spec_yaml_fail(c, spec_yaml_pos(c, v), "estimate: missing required key 'name'");
		if (pick(c, vals[0], "estimate.name", "estimator", est_names, N(est_names), EST_LIST,
			 &e) < 0)
			return -1;
		if (vals[1] && e != EST_TRIMMED_MEAN)
			return spec_yaml_fail(c, spec_yaml_pos(c, kn[1]), "estimate: 'p' does not apply to estimator '%s'",
				       est_names[e]);
	} else {
		return spec_yaml_fail(c, spec_yaml_pos(c, v),
			       "estimate: expected an estimator (" EST_LIST ") or a mapping {name, p}, got %s",
			       WHAT(v));
	}
	s->estimate = (enum spec_estimator)e;
	s->est_p = e == EST_TRIMMED_MEAN ? SPEC_DEFAULT_TRIM_P : 0;
	if (v->type == YAML_MAPPING_NODE && vals[1]) {
		if (get_qty(c, vals[1], "estimate.p", UNIT_PERCENT, 0, &s->est_p) < 0)
			return -1;
		if (!(s->est_p > 0 && s->est_p < 0.5))
			return spec_yaml_fail(c, spec_yaml_pos(c, vals[1]),
				       "estimate.p: expected a fraction above 0 and below 50%% like 10%%, got %s",
				       WHAT(vals[1]));
	}
	return 0;
}

/* A scalar or a list of scalars, as an array of item nodes (the node itself
   for a scalar). */
static int items_of(struct spec_yaml_ctx *c, yaml_node_t *v, yaml_node_t ***items, size_t *n)
{
	if (v->type == YAML_SCALAR_NODE) {
		*n = 1;
		if (!(*items = malloc(sizeof(**items))))
			return oom(c);
		(*items)[0] = v;
		return 0;
	}
	*n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
	*items = calloc(*n ? *n : 1, sizeof(**items));
	if (!*items)
		return oom(c);
	for (size_t i = 0; i < *n; i++)
		(*items)[i] = spec_yaml_node(c, v->data.sequence.items.start[i]);
	return 0;
}

static int h_subtract(struct spec_yaml_ctx *c, struct spec *s, yaml_node_t *v, yaml_node_t *k)
{
	yaml_node_t **items;
	size_t n;
	int rc = -1;

	(void)k;
	if (v->type == YAML_MAPPING_NODE)
		return spec_yaml_fail(c, spec_yaml_pos(c, v),
			       "subtract: expected an experiment name or a list of names, got %s", WHAT(v));
	if (items_of(c, v, &items, &n) < 0)
		return -1;
	s->subtract = calloc(n ? n : 1, sizeof(*s->subtract));
	s->subtract_pos = calloc(n ? n : 1, sizeof(*s->subtract_pos));
	if (!s->subtract || !s->subtract_pos) {
		oom(c);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		yaml_node_t *it = items[i];
		if (it->type != YAML_SCALAR_NODE || !is_word(spec_yaml_str(it))) {
			spec_yaml_fail(c, spec_yaml_pos(c, it), "subtract: expected an experiment name, got %s", WHAT(it));
			goto out;
		}
		for (size_t j = 0; j < s->n_subtract; j++)
			if (strcmp(s->subtract[j], spec_yaml_str(it)) == 0) {
				spec_yaml_fail(c, spec_yaml_pos(c, it), "subtract: '%s' is listed twice", spec_yaml_str(it));
				goto out;
			}
		if (!(s->subtract[s->n_subtract] = strdup(spec_yaml_str(it)))) {
			oom(c);
			goto out;
		}
		s->subtract_pos[s->n_subtract++] = spec_yaml_pos(c, it);
	}
	rc = 0;
out:
	free(items);
	return rc;
}

static int h_cpu(struct spec_yaml_ctx *c, struct spec *s, yaml_node_t *v, yaml_node_t *k)
{
	long long x;

	(void)k;
	if (v->type == YAML_SCALAR_NODE && strcmp(spec_yaml_str(v), "none") == 0) {
		s->cpu = -1;
		return 0;
	}
	if (get_int(c, v, "cpu", "a CPU number >= 0 or 'none'", 0, INT_MAX, 0, &x) < 0)
		return -1;
	/* A CPU this machine does not have would leave the point unpinned
	   while the run says nothing: refuse it here, where check sees it. */
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0 &&
	    (x >= CPU_SETSIZE || !CPU_ISSET((int)x, &set))) {
		char list[256] = "";
		size_t off = 0;

		for (int i = 0; i < CPU_SETSIZE && off < sizeof list - 16; i++) {
			int j = i;

			if (!CPU_ISSET(i, &set))
				continue;
			while (j + 1 < CPU_SETSIZE && CPU_ISSET(j + 1, &set))
				j++;
			off += (size_t)snprintf(list + off, sizeof list - off, "%s%d", off ? "," : "", i);
			if (j > i)
				off += (size_t)snprintf(list + off, sizeof list - off, "-%d", j);
			i = j;
		}
		return spec_yaml_fail(c, spec_yaml_pos(c, v),
				      "cpu: %lld is not a CPU this machine lets the runner use (%s), "
				      "or 'none'", x, list);
	}
	s->cpu = (int)x;
	return 0;
}

static int h_priority(struct spec_yaml_ctx *c, struct spec *s, yaml_node_t *v, yaml_node_t *k)
{
	long long x;

	(void)k;
	if (get_int(c, v, "priority", "an integer from -20 to 19", -20, 19, 1, &x) < 0)
		return -1;
	s->has_priority = 1;
	s->priority = (int)x;
	return 0;
}

/* where: {param: value, ...}; checked against the probe by spec_bind. */
static int parse_where(struct spec_yaml_ctx *c, yaml_node_t *v, const char *path, struct spec_where **out,
		       size_t *n_out)
{
	size_t n;

	if (v->type != YAML_MAPPING_NODE)
		return spec_yaml_fail(c, spec_yaml_pos(c, v), "%s: expected a mapping {param: value}, got %s", path,
			       WHAT(v));
	if (spec_yaml_fields(c, v, path, NULL, 0, NULL, NULL) < 0)
		return -1;
	n = (size_t)(v->data.mapping.pairs.top - v->data.mapping.pairs.start);
	if (n && !(*out = calloc(n, sizeof(**out))))
		return oom(c);
	for (yaml_node_pair_t *pr = v->data.mapping.pairs.start; pr < v->data.mapping.pairs.top; pr++) {
		yaml_node_t *key = spec_yaml_node(c, pr->key), *val = spec_yaml_node(c, pr->value);
		struct spec_where *w = &(*out)[(*n_out)++];

		if (!(w->param = strdup(spec_yaml_str(key))))
			return oom(c);
		w->pos = spec_yaml_pos(c, key);
		if (val->type != YAML_SCALAR_NODE)
			return spec_yaml_fail(c, spec_yaml_pos(c, val), "%s.%s: expected a single value, got %s", path,
				       w->param, WHAT(val));
		if (!(w->text = strdup(spec_yaml_str(val))))
			return oom(c);
		w->value_pos = spec_yaml_pos(c, val);
	}
	return 0;
}

/* A prediction's value, hardware or software text: a plain quantity
   ("1.2ns", bound to the probe's unit by spec_bind) or a formula
   (spec_expr.h), parsed here so that a syntax error names its line and
   column; the experiments it names with @ join s->uses. */
static int predict_text(struct spec_yaml_ctx *c, struct spec *s, struct spec_predict *pr, int fx,
			yaml_node_t *v, const char *key, char **dst, struct spec_pos *pos)
{
	char msg[256];
	size_t off = 0;

	if (v->type != YAML_SCALAR_NODE)
		return spec_yaml_fail(c, spec_yaml_pos(c, v),
				      "predict.%s: expected a value like 1.2ns or a formula like "
				      "\"l1_cycles / core_hz\", got %s", key, WHAT(v));
	if (!(*dst = strdup(spec_yaml_str(v))))
		return oom(c);
	*pos = spec_yaml_pos(c, v);
	if (!spec_expr_is_formula(*dst))
		return 0;
	if (!(pr->fx[fx] = calloc(1, sizeof *pr->fx[fx])))
		return oom(c);
	if (spec_expr_parse(*dst, pr->fx[fx], &off, msg, sizeof msg) < 0) {
		struct spec_pos at = *pos;
		int quoted = v->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
			     v->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;

		free(pr->fx[fx]);
		pr->fx[fx] = NULL;
		/* a one-line scalar: the fault's column (escapes aside) */
		if (at.line > 0 && !strchr(*dst, '\n'))
			at.col += (int)off + quoted;
		return spec_yaml_fail(c, at, "predict.%s: %s", key, msg);
	}
	for (size_t k = 0; k < pr->fx[fx]->nn; k++) {
		const struct spec_expr_node *n = &pr->fx[fx]->n[k];
		size_t u;
		char **nu;

		if (n->op != SPEC_X_REF)
			continue;
		for (u = 0; u < s->n_uses && strcmp(s->uses[u], n->name) != 0; u++)
			;
		if (u < s->n_uses)
			continue;
		if (!(nu = realloc(s->uses, (s->n_uses + 1) * sizeof *nu)))
			return oom(c);
		s->uses = nu;
		if (!(s->uses[s->n_uses] = strdup(n->name)))
			return oom(c);
		s->n_uses++;
	}
	return 0;
}

static int h_predict(struct spec_yaml_ctx *c, struct spec *s, yaml_node_t *v, yaml_node_t *k)
{
	static const char *const keys[] = {"where", "value", "why", "hardware", "software", "machine",
					   "hw", "sw"};
	yaml_node_t *vals[8], *kn[8];
	size_t n;

	(void)k;
	if (v->type != YAML_SEQUENCE_NODE)
		return spec_yaml_fail(c, spec_yaml_pos(c, v), "predict: expected a list of {where, value, why}, got %s",
			       WHAT(v));
	n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
	if (n && !(s->predict = calloc(n, sizeof(*s->predict))))
		return oom(c);
	for (size_t i = 0; i < n; i++) {
		yaml_node_t *it = spec_yaml_node(c, v->data.sequence.items.start[i]);
		struct spec_predict *pr = &s->predict[s->n_predict++];

		pr->pos = spec_yaml_pos(c, it);
		if (it->type != YAML_MAPPING_NODE)
			return spec_yaml_fail(c, spec_yaml_pos(c, it),
				       "predict: expected a mapping {where, value, why}, got %s", WHAT(it));
		if (spec_yaml_fields(c, it, "predict", keys, 8, vals, kn) < 0)
			return -1;
		if (vals[5] ? set_text(c, &pr->machine, vals[5], "predict.machine", 0) < 0
			    : !(pr->machine = strdup("*")))
			return vals[5] ? -1 : oom(c);
		/* hw and sw: the short names of hardware and software */
		for (int h = 6; h < 8; h++) {
			if (vals[h] && vals[h - 3])
				return spec_yaml_fail(c, spec_yaml_pos(c, kn[h]),
						      "predict: '%s' and '%s' are one key: give one of them",
						      keys[h], keys[h - 3]);
			if (vals[h])
				vals[h - 3] = vals[h];
		}
		for (int h = 3; h < 5; h++)
			if (vals[h] && predict_text(c, s, pr, h == 3 ? SPEC_FX_HW : SPEC_FX_SW, vals[h],
						    h == 3 ? "hardware" : "software",
						    h == 3 ? &pr->hw_text : &pr->sw_text,
						    h == 3 ? &pr->hw_pos : &pr->sw_pos) < 0)
				return -1;
		if (!vals[1] && !(vals[3] && vals[4]))
			return spec_yaml_fail(c, spec_yaml_pos(c, it),
					      "predict: missing required key 'value' (or both 'hw' "
					      "and 'sw', which it is the sum of)");
		if (vals[1] && predict_text(c, s, pr, SPEC_FX_VALUE, vals[1], "value", &pr->value_text,
					    &pr->value_pos) < 0)
			return -1;
		if (vals[2]) {
			if (set_text(c, &pr->why, vals[2], "predict.why", 1) < 0)
				return -1;
		} else if (!(pr->why = strdup(""))) {
			return oom(c);
		}
		if (vals[0] && parse_where(c, vals[0], "predict.where", &pr->where, &pr->n_where) < 0)
			return -1;
	}
	return 0;
}

static int tolerance(struct spec_yaml_ctx *c, struct spec_reference *r, yaml_node_t *v, const char *path)
{
	yaml_node_t *lo, *hi;

	if (v->type == YAML_SCALAR_NODE) {	/* "20%": a symmetric band */
		if (get_qty(c, v, path, UNIT_PERCENT, 0, &r->tol_hi) < 0)
			return -1;
		r->tol_hi = fabs(r->tol_hi);
		r->tol_lo = -r->tol_hi;
		return 0;
	}
	if (v->type != YAML_SEQUENCE_NODE || v->data.sequence.items.top - v->data.sequence.items.start != 2)
		return spec_yaml_fail(c, spec_yaml_pos(c, v), "%s: expected [low, high] like [-50%%, +100%%], got %s",
			       path, WHAT(v));
	lo = spec_yaml_node(c, v->data.sequence.items.start[0]);
	hi = spec_yaml_node(c, v->data.sequence.items.start[1]);
	if (get_qty(c, lo, path, UNIT_PERCENT, 0, &r->tol_lo) < 0 ||
	    get_qty(c, hi, path, UNIT_PERCENT, 0, &r->tol_hi) < 0)
		return -1;
	if (r->tol_lo > 0 || r->tol_hi < 0)
		return spec_yaml_fail(c, spec_yaml_pos(c, v), "%s: expected low <= 0 <= high, got [%s, %s]", path,
			       spec_yaml_str(lo), spec_yaml_str(hi));
	return 0;
}

static int h_reference(struct spec_yaml_ctx *c, struct spec *s, yaml_node_t *v, yaml_node_t *k)
{
	static const char *const keys[] = {"value", "where", "tolerance"};
	yaml_node_t *vals[3], *kn[3];
	char path[160], sub[192];
	size_t n;

	(void)k;
	if (v->type != YAML_MAPPING_NODE)
		return spec_yaml_fail(c, spec_yaml_pos(c, v),
			       "reference: expected a mapping of machine names ('*' for any) to {value, where, tolerance}, got %s",
			       WHAT(v));
	if (spec_yaml_fields(c, v, "reference", NULL, 0, NULL, NULL) < 0)
		return -1;
	n = (size_t)(v->data.mapping.pairs.top - v->data.mapping.pairs.start);
	if (n && !(s->reference = calloc(n, sizeof(*s->reference))))
		return oom(c);
	for (yaml_node_pair_t *pr = v->data.mapping.pairs.start; pr < v->data.mapping.pairs.top; pr++) {
		yaml_node_t *key = spec_yaml_node(c, pr->key), *val = spec_yaml_node(c, pr->value);
		struct spec_reference *r = &s->reference[s->n_reference++];

		r->tol_lo = -0.5;
		r->tol_hi = 1.0;
		r->pos = spec_yaml_pos(c, key);
		if (!(r->machine = strdup(spec_yaml_str(key))))
			return oom(c);
		snprintf(path, sizeof(path), "reference.%s", r->machine);
		if (val->type != YAML_MAPPING_NODE)
			return spec_yaml_fail(c, spec_yaml_pos(c, val),
				       "%s: expected a mapping {value, where, tolerance}, got %s", path,
				       WHAT(val));
		if (spec_yaml_fields(c, val, path, keys, 3, vals, kn) < 0)
			return -1;
		if (!vals[0])
			return spec_yaml_fail(c, spec_yaml_pos(c, val), "%s: missing required key 'value'", path);
		if (vals[0]->type != YAML_SCALAR_NODE)
			return spec_yaml_fail(c, spec_yaml_pos(c, vals[0]), "%s.value: expected a value like 90ns, got %s",
				       path, WHAT(vals[0]));
		if (!(r->value_text = strdup(spec_yaml_str(vals[0]))))
			return oom(c);
		r->value_pos = spec_yaml_pos(c, vals[0]);
		snprintf(sub, sizeof(sub), "%s.where", path);
		if (vals[1] && parse_where(c, vals[1], sub, &r->where, &r->n_where) < 0)
			return -1;
		snprintf(sub, sizeof(sub), "%s.tolerance", path);
		if (vals[2] && tolerance(c, r, vals[2], sub) < 0)
			return -1;
	}
	return 0;
}

static int logbase(struct spec_yaml_ctx *c, yaml_node_t *v, const char *key, int *out)
{
	char msg[MSG];
	int b;

	if (v->type == YAML_SCALAR_NODE) {
		const char *t = spec_yaml_str(v);
		if (strcmp(t, "0") == 0 || strcmp(t, "2") == 0 || strcmp(t, "10") == 0) {
			*out = atoi(t);
			return 0;
		}
		if (units_parse_bool(t, &b, msg, sizeof(msg)) == 0) {
			*out = b ? 10 : 0;
			return 0;
		}
	}
	return spec_yaml_fail(c, spec_yaml_pos(c, v), "%s: expected 0, 2, 10, true or false, got %s", key, WHAT(v));
}

static int h_chart(struct spec_yaml_ctx *c, struct spec *s, yaml_node_t *v, yaml_node_t *k)
{
	static const char *const keys[] = {"x", "y", "series", "logx", "logy", "xlabel", "ylabel",
					   "title", "kind"};
	yaml_node_t *vals[9], *kn[9];
	struct spec_chart *ch = &s->chart;
	char **text[9] = {&ch->x, &ch->y, &ch->series, NULL, NULL, &ch->xlabel, &ch->ylabel,
			  &ch->title, NULL};

	(void)k;
	if (v->type != YAML_MAPPING_NODE)
		return spec_yaml_fail(c, spec_yaml_pos(c, v),
			       "chart: expected a mapping {x, y, series, logx, logy, xlabel, ylabel, title, kind}, got %s",
			       WHAT(v));
	if (spec_yaml_fields(c, v, "chart", keys, N(keys), vals, kn) < 0)
		return -1;
	ch->present = 1;
	for (size_t i = 0; i < N(keys); i++) {
		char key[32];
		if (!vals[i] || !text[i])
			continue;
		snprintf(key, sizeof(key), "chart.%s", keys[i]);
		if ((i == 0 || i == 2) ? set_word(c, text[i], vals[i], key, "a parameter name")
				       : set_text(c, text[i], vals[i], key, 1))
			return -1;
	}
	if (vals[0])
		ch->x_pos = spec_yaml_pos(c, vals[0]);
	if (vals[2])
		ch->series_pos = spec_yaml_pos(c, vals[2]);
	if (vals[3] && logbase(c, vals[3], "chart.logx", &ch->logx) < 0)
		return -1;
	if (vals[4] && logbase(c, vals[4], "chart.logy", &ch->logy) < 0)
		return -1;
	if (vals[8]) {
		if (vals[8]->type != YAML_SCALAR_NODE ||
		    (strcmp(spec_yaml_str(vals[8]), "line") != 0 && strcmp(spec_yaml_str(vals[8]), "bar") != 0))
			return spec_yaml_fail(c, spec_yaml_pos(c, vals[8]), "chart.kind: expected line or bar, got %s",
				       WHAT(vals[8]));
		if (set_text(c, &ch->kind, vals[8], "chart.kind", 0) < 0)
			return -1;
	}
	return 0;
}

static int h_findings(struct spec_yaml_ctx *c, struct spec *s, yaml_node_t *v, yaml_node_t *k)
{
	static const char *const names[] = {"knees", "ratios", "file_cache"};
	yaml_node_t **items;
	size_t n;
	int w = 0, rc = -1;

	(void)k;
	if (v->type == YAML_MAPPING_NODE)
		return spec_yaml_fail(c, spec_yaml_pos(c, v), "findings: expected a list like [knees, ratios], got %s",
			       WHAT(v));
	if (items_of(c, v, &items, &n) < 0)
		return -1;
	if (!(s->findings = calloc(n ? n : 1, sizeof(*s->findings)))) {
		oom(c);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		size_t j;
		if (pick(c, items[i], "findings", "analysis", names, N(names), "knees, ratios or file_cache", &w) < 0)
			goto out;
		for (j = 0; j < s->n_findings && strcmp(s->findings[j], names[w]) != 0; j++)
			;
		if (j < s->n_findings)	/* listed twice: harmless */
			continue;
		if (!(s->findings[s->n_findings++] = strdup(names[w]))) {
			oom(c);
			goto out;
		}
	}
	rc = 0;
out:
	free(items);
	return rc;
}

/*
 * quick: {params.size: {from: 1KiB, to: 64MiB, factor: 2}, repetitions: 3}
 * Each entry becomes a --set style assignment applied only under --quick.
 * A value is kept as the text the user wrote, so it must be a scalar or a
 * flow collection (one line of YAML); the runner reports its errors at the
 * entry's position.
 */
static int h_quick(struct spec_yaml_ctx *c, struct spec *s, yaml_node_t *v, yaml_node_t *k)
{
	(void)k;
	if (v->type != YAML_MAPPING_NODE)
		return spec_yaml_fail(c, spec_yaml_pos(c, v),
			       "quick: expected a mapping of spec keys to values, got %s", WHAT(v));
	if (spec_yaml_pos(c, v).line == 0)
		return spec_yaml_fail(c, spec_yaml_pos(c, v), "quick: cannot be set from the command line");
	size_t n = (size_t)(v->data.mapping.pairs.top - v->data.mapping.pairs.start);
	s->quick = calloc(n ? n : 1, sizeof(*s->quick));
	s->quick_pos = calloc(n ? n : 1, sizeof(*s->quick_pos));
	if (!s->quick || !s->quick_pos)
		return oom(c);
	for (yaml_node_pair_t *pr = v->data.mapping.pairs.start; pr < v->data.mapping.pairs.top; pr++) {
		yaml_node_t *key = spec_yaml_node(c, pr->key), *val = spec_yaml_node(c, pr->value);
		if (key->type != YAML_SCALAR_NODE || !*spec_yaml_str(key) || strchr(spec_yaml_str(key), '='))
			return spec_yaml_fail(c, spec_yaml_pos(c, key), "quick: expected a key such as params.size");
		if (strcmp(spec_yaml_str(key), "quick") == 0 || strncmp(spec_yaml_str(key), "quick.", 6) == 0)
			return spec_yaml_fail(c, spec_yaml_pos(c, key), "quick: cannot contain 'quick'");
		int flow = (val->type == YAML_MAPPING_NODE &&
			    val->data.mapping.style == YAML_FLOW_MAPPING_STYLE) ||
			   (val->type == YAML_SEQUENCE_NODE &&
			    val->data.sequence.style == YAML_FLOW_SEQUENCE_STYLE);
		const char *txt;
		size_t len;
		if (val->type == YAML_SCALAR_NODE) {
			txt = spec_yaml_str(val);
			len = strlen(txt);
		} else if (flow && c->text && val->end_mark.index <= c->text_len &&
			   val->start_mark.index < val->end_mark.index) {
			txt = c->text + val->start_mark.index;
			len = val->end_mark.index - val->start_mark.index;
		} else {
			return spec_yaml_fail(c, spec_yaml_pos(c, val),
				       "quick.%s: write the value on one line ({...} or [...])", spec_yaml_str(key));
		}
		char *a;
		if (asprintf(&a, "%s=%.*s", spec_yaml_str(key), (int)len, txt) < 0)
			return oom(c);
		s->quick_pos[s->n_quick] = spec_yaml_pos(c, key);
		s->quick[s->n_quick++] = a;
	}
	return 0;
}

static int h_beside(struct spec_yaml_ctx *c, struct spec *s, yaml_node_t *v, yaml_node_t *k)
{
	static const char *const keys[] = {"experiment", "rtt", "rtt_where"};
	yaml_node_t *vals[3], *kn[3];

	(void)k;
	if (v->type != YAML_MAPPING_NODE)
		return spec_yaml_fail(c, spec_yaml_pos(c, v),
				      "beside: expected a mapping {experiment, rtt, rtt_where}, got %s",
				      WHAT(v));
	if (spec_yaml_fields(c, v, "beside", keys, N(keys), vals, kn) < 0)
		return -1;
	if (!vals[0])
		return spec_yaml_fail(c, spec_yaml_pos(c, v), "beside: missing 'experiment'");
	if (set_word(c, &s->beside, vals[0], "beside.experiment", "an experiment name") < 0)
		return -1;
	if (vals[1] && set_word(c, &s->beside_rtt, vals[1], "beside.rtt", "an experiment name") < 0)
		return -1;
	if (!vals[2])
		return 0;
	if (vals[2]->type != YAML_MAPPING_NODE)
		return spec_yaml_fail(c, spec_yaml_pos(c, vals[2]),
				      "beside.rtt_where: expected a mapping {param: value}, got %s",
				      WHAT(vals[2]));
	if (spec_yaml_fields(c, vals[2], "beside.rtt_where", NULL, 0, NULL, NULL) < 0)
		return -1;
	size_t n = (size_t)(vals[2]->data.mapping.pairs.top - vals[2]->data.mapping.pairs.start);
	if (!(s->beside_where = calloc(n + 1, sizeof *s->beside_where)))
		return oom(c);
	for (yaml_node_pair_t *pr = vals[2]->data.mapping.pairs.start;
	     pr < vals[2]->data.mapping.pairs.top; pr++) {
		yaml_node_t *key = spec_yaml_node(c, pr->key), *val = spec_yaml_node(c, pr->value);

		if (val->type != YAML_SCALAR_NODE)
			return spec_yaml_fail(c, spec_yaml_pos(c, val),
					      "beside.rtt_where.%s: expected a value, got %s",
					      spec_yaml_str(key), WHAT(val));
		if (asprintf(&s->beside_where[s->n_beside_where], "%s=%s", spec_yaml_str(key),
			     spec_yaml_str(val)) < 0)
			return oom(c);
		s->n_beside_where++;
	}
	return 0;
}

static const char *const top_names[] = {
	"name", "title", "group", "probe", "description", "params", "sweep", "repetitions",
	"warmup", "iterations", "min_sample_time", "outliers", "estimate", "subtract", "cpu",
	"priority", "timeout", "predict", "reference", "chart", "findings", "quick", "rounds",
	"beside", "discussion", "command",
};
static const key_fn top_fns[] = {
	h_name, h_title, h_group, h_probe, h_description, h_params, h_sweep, h_repetitions,
	h_warmup, h_iterations, h_min_sample_time, h_outliers, h_estimate, h_subtract, h_cpu,
	h_priority, h_timeout, h_predict, h_reference, h_chart, h_findings, h_quick, h_rounds,
	h_beside, h_discussion, spec_command_key,
};

void spec_keys_defaults(struct spec *s)
{
	s->sweep = SWEEP_CROSS;
	s->reps = (struct spec_reps){0, SPEC_DEFAULT_REPETITIONS, SPEC_DEFAULT_REPETITIONS, 0, 0};
	s->warmup = SPEC_DEFAULT_WARMUP;
	s->rounds = SPEC_DEFAULT_ROUNDS;
	s->iterations = 0;
	s->min_sample_time = SPEC_DEFAULT_MIN_SAMPLE_TIME;
	s->outliers = SPEC_DEFAULT_OUTLIERS;
	s->estimate = SPEC_DEFAULT_ESTIMATE;
	s->est_p = SPEC_DEFAULT_ESTIMATE == EST_TRIMMED_MEAN ? SPEC_DEFAULT_TRIM_P : 0;
	s->cpu = SPEC_DEFAULT_CPU;
	s->timeout = SPEC_DEFAULT_TIMEOUT;
}

int spec_keys_parse(struct spec_yaml_ctx *c, struct spec *s, yaml_node_t *root)
{
	if (spec_yaml_fields(c, root, "", top_names, N(top_names), NULL, NULL) < 0)
		return -1;
	/* handlers run in file order, so the first error reported is the first in the file */
	for (yaml_node_pair_t *pr = root->data.mapping.pairs.start; pr < root->data.mapping.pairs.top;
	     pr++) {
		yaml_node_t *key = spec_yaml_node(c, pr->key);
		size_t i;
		for (i = 0; strcmp(top_names[i], spec_yaml_str(key)) != 0; i++)
			;
		if (top_fns[i](c, s, spec_yaml_node(c, pr->value), key) < 0)
			return -1;
	}
	if (!s->probe)
		return spec_yaml_fail(c, spec_yaml_pos(c, root), "missing required key 'probe'");
	return 0;
}
