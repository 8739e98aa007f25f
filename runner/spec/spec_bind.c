/*
 * spec_bind.c - bind a parsed spec to its probe's parameter table: names
 * (with "did you mean"), types, units, bounds, choices; ranges and lists
 * expanded into one typed value list per table row (defaults filled); the
 * zip-length check; `where:`, predictions, references and chart axes.
 */
#include "spec/spec_bind.h"
#include "spec/spec_command.h"
#include "spec/spec_yaml.h"
#include "lib/suggest.h"
#include "lib/units.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define MSG 256			/* scratch for units' messages */

static const struct spec_pos nopos = {0, 0};

struct bctx {
	struct spec *s;
	const struct probe *p;
	size_t cur_ov;
	char *err; size_t errlen;
	const char **names; size_t n;	/* the probe's parameter names */
};

static int bfail(struct bctx *b, struct spec_pos pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int bfail(struct bctx *b, struct spec_pos pos, const char *fmt, ...)
{
	char pre[512];
	size_t n;
	va_list ap;

	spec_yaml_prefix(b->s->file, b->s->name, b->s->overrides, b->s->n_overrides, b->cur_ov,
			 pos, pre, sizeof(pre));
	snprintf(b->err, b->errlen, "%s", pre);
	n = strlen(b->err);
	va_start(ap, fmt);
	if (n < b->errlen)
		vsnprintf(b->err + n, b->errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

static int param_index(struct bctx *b, const char *name)
{
	for (size_t i = 0; i < b->n; i++)
		if (strcmp(b->names[i], name) == 0)
			return (int)i;
	return -1;
}

static int unknown_param(struct bctx *b, struct spec_pos pos, const char *path, const char *name)
{
	const char *sug = suggest_word(name, b->names, b->n);
	char list[512] = "", own[160] = "";

	/* the command probe takes any name its command uses (command_vars.c) */
	if (strcmp(b->p->name, SPEC_COMMAND_PROBE) == 0)
		snprintf(own, sizeof own, "; a parameter of your own must appear as {%s} in command:",
			 name);
	if (sug)
		return bfail(b, pos, "%s: unknown parameter '%s' for probe '%s' (did you mean '%s'?%s)",
			     path, name, b->p->name, sug, own);
	if (!b->n)
		return bfail(b, pos, "%s: unknown parameter '%s': probe '%s' takes no parameters", path,
			     name, b->p->name);
	for (size_t i = 0; i < b->n; i++) {
		size_t l = strlen(list);
		snprintf(list + l, sizeof(list) - l, "%s%s", i ? ", " : "", b->names[i]);
	}
	return bfail(b, pos, "%s: unknown parameter '%s' for probe '%s' (it has %s%s)", path, name,
		     b->p->name, list, own);
}

const struct probe_choice *spec_choice(const struct probe_choice *choices, const char *name)
{
	for (const struct probe_choice *c = choices; c && c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

const char *spec_choices_text(const struct probe_choice *choices, char *buf, size_t len)
{
	size_t off = 0;

	if (len)
		buf[0] = '\0';
	for (const struct probe_choice *c = choices; c && c->name && off < len; c++) {
		int n = snprintf(buf + off, len - off, "%s%s", c == choices ? "" : "|", c->name);

		off += n > 0 ? (size_t)n : 0;
	}
	return buf;
}

static void fmt_typed(enum probe_param_type t, double v, char *buf, size_t len)
{
	if (t == PROBE_SIZE)
		units_format_size(v, buf, len);
	else if (t == PROBE_TIME)
		units_format_time(v, buf, len);
	else if (t == PROBE_INT)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%g", v);
}

/* Parse text as a value of pp's type into *num (no bounds check). */
static int parse_typed(const struct probe_param *pp, const char *text, double *num, char *msg,
		       size_t len)
{
	long long ll;
	int bo;

	*num = 0;
	switch (pp->type) {
	case PROBE_INT:
		if (units_parse_int(text, &ll, msg, len) < 0)
			return -1;
		*num = (double)ll;
		return 0;
	case PROBE_SIZE: return units_parse(text, UNIT_SIZE, num, msg, len);
	case PROBE_TIME: return units_parse(text, UNIT_TIME, num, msg, len);
	case PROBE_DOUBLE: return units_parse(text, UNIT_PERCENT, num, msg, len);
	case PROBE_STRING:
		if (pp->choices && !spec_choice(pp->choices, text)) {
			char names[512];

			snprintf(msg, len, "'%s' is not one of %s", text,
				 spec_choices_text(pp->choices, names, sizeof names));
			return -1;
		}
		return 0;
	case PROBE_BOOL:
		if (units_parse_bool(text, &bo, msg, len) < 0)
			return -1;
		*num = bo;
		return 0;
	}
	snprintf(msg, len, "the probe declares an unknown parameter type %d", (int)pp->type);
	return -1;
}

static int numeric(enum probe_param_type t)
{
	return t == PROBE_INT || t == PROBE_SIZE || t == PROBE_TIME || t == PROBE_DOUBLE;
}

static int out_of_bounds(const struct probe_param *pp, double v, const char *text, char *msg,
			 size_t len)
{
	char lo[48], hi[48];

	if (!numeric(pp->type) || pp->min == pp->max || (v >= pp->min && v <= pp->max))
		return 0;
	fmt_typed(pp->type, pp->min, lo, sizeof(lo));
	fmt_typed(pp->type, pp->max, hi, sizeof(hi));
	snprintf(msg, len, "%s is out of range [%s, %s]", text, lo, hi);
	return 1;
}

/* Parse and bounds-check one value; errors at pos as "PATH: ...". */
static int check_value(struct bctx *b, const struct probe_param *pp, const char *text,
		       struct spec_pos pos, const char *path, double *num)
{
	char msg[MSG];

	if (parse_typed(pp, text, num, msg, sizeof(msg)) < 0 ||
	    out_of_bounds(pp, *num, text, msg, sizeof(msg)))
		return bfail(b, pos, "%s: %s", path, msg);
	return 0;
}

static int push_val(struct bctx *b, struct spec_val **vals, size_t *n, size_t *cap,
		    const char *text, double num)
{
	if (*n == *cap) {
		struct spec_val *nv = realloc(*vals, (*cap = *cap ? *cap * 2 : 8) * sizeof(**vals));
		if (!nv)
			return bfail(b, nopos, "out of memory");
		*vals = nv;
	}
	if (!((*vals)[*n].text = strdup(text)))
		return bfail(b, nopos, "out of memory");
	(*vals)[(*n)++].num = num;
	return 0;
}

static const char *type_name(enum probe_param_type t)
{
	static const char *const names[] = {"?", "int", "size", "time", "double", "string", "bool"};
	return (unsigned)t < N(names) ? names[t] : "?";
}

/* Expand a range into sp->vals: geometric from, from*f, ... or linear from,
   from+step, ... while <= to (with a relative slack of 1e-9 so that float
   error does not drop the last value).  Ints and sizes are rounded to whole
   numbers (bytes); rounding duplicates are dropped. */
static int expand_range(struct bctx *b, struct spec_param *sp, const struct probe_param *pp,
			const char *path, size_t *cap)
{
	char msg[MSG], sub[192], text[64];
	double from, to, by, lim, v;
	int round_it = pp->type == PROBE_INT || pp->type == PROBE_SIZE;

	if (!numeric(pp->type))
		return bfail(b, sp->pos, "%s: a range needs a numeric parameter, '%s' is a %s", path,
			     sp->name, type_name(pp->type));
	snprintf(sub, sizeof(sub), "%s.from", path);
	if (parse_typed(pp, sp->from, &from, msg, sizeof(msg)) < 0)
		return bfail(b, sp->from_pos, "%s: %s", sub, msg);
	snprintf(sub, sizeof(sub), "%s.to", path);
	if (parse_typed(pp, sp->to, &to, msg, sizeof(msg)) < 0)
		return bfail(b, sp->to_pos, "%s: %s", sub, msg);
	if (sp->geometric) {
		snprintf(sub, sizeof(sub), "%s.factor", path);
		if (units_parse(sp->by, UNIT_NUMBER, &by, msg, sizeof(msg)) < 0 || !(by > 1))
			return bfail(b, sp->by_pos, "%s: expected a number > 1, got '%s'", sub, sp->by);
		if (!(from > 0))
			return bfail(b, sp->from_pos, "%s: a geometric range needs from > 0, got '%s'",
				     path, sp->from);
	} else {
		snprintf(sub, sizeof(sub), "%s.step", path);
		if (parse_typed(pp, sp->by, &by, msg, sizeof(msg)) < 0)
			return bfail(b, sp->by_pos, "%s: %s", sub, msg);
		if (!(by > 0))
			return bfail(b, sp->by_pos, "%s: expected a step > 0, got '%s'", sub, sp->by);
	}
	if (from > to)
		return bfail(b, sp->from_pos, "%s: empty range: from %s is above to %s", path, sp->from,
			     sp->to);
	lim = sp->geometric ? to * (1 + 1e-9) : to + 1e-9 * fmax(fabs(from), fabs(to));
	/* the iteration cap also bounds ranges whose values collapse when rounded */
	for (size_t i = 0; i < 10 * (size_t)SPEC_MAX_RANGE_VALUES; i++) {
		v = sp->geometric ? from * pow(by, (double)i) : from + (double)i * by;
		if (v > lim)
			return 0;
		if (!sp->geometric && fabs(v) < 1e-12 * fmax(fabs(from), fabs(to)))
			v = 0;	/* -1 + 10 * 0.1 is not quite 0 */
		if (round_it)
			v = round(v);
		if (sp->n_vals && v == sp->vals[sp->n_vals - 1].num)
			continue;
		if (sp->n_vals == SPEC_MAX_RANGE_VALUES)
			break;
		fmt_typed(pp->type, v, text, sizeof(text));
		if (out_of_bounds(pp, v, text, msg, sizeof(msg)))
			return bfail(b, i ? sp->to_pos : sp->from_pos, "%s: %s", path, msg);
		if (push_val(b, &sp->vals, &sp->n_vals, cap, text, v) < 0)
			return -1;
	}
	return bfail(b, sp->pos, "%s: range expands to more than %d values", path,
		     SPEC_MAX_RANGE_VALUES);
}

static int expand_param(struct bctx *b, struct spec_param *sp, const struct probe_param *pp)
{
	char path[160];
	size_t cap = 0;
	double num;

	snprintf(path, sizeof(path), "params.%s", sp->name);
	if (sp->form == SPEC_RANGE)
		return expand_range(b, sp, pp, path, &cap);
	for (size_t i = 0; i < sp->n_raw; i++)
		if (check_value(b, pp, sp->raw[i], sp->raw_pos[i], path, &num) < 0 ||
		    push_val(b, &sp->vals, &sp->n_vals, &cap, sp->raw[i], num) < 0)
			return -1;
	return 0;
}

static void free_vals(struct spec_val *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i].text);
	free(v);
}

void spec_unbind(struct spec *s)
{
	for (size_t i = 0; i < s->n_params; i++) {
		free_vals(s->params[i].vals, s->params[i].n_vals);
		s->params[i].vals = NULL;
		s->params[i].n_vals = 0;
		s->params[i].index = -1;
	}
	for (size_t i = 0; s->axis && i < s->n_axis; i++)
		free_vals(s->axis[i], s->axis_n[i]);
	free(s->axis);
	free(s->axis_n);
	free(s->axis_swept);
	s->axis = NULL;
	s->axis_n = NULL;
	s->axis_swept = NULL;
	s->n_axis = 0;
	s->bound = NULL;
}

static int bind_where(struct bctx *b, struct spec_where *w, size_t n, const char *path)
{
	char sub[256];

	for (size_t i = 0; i < n; i++) {
		int idx = param_index(b, w[i].param);
		if (idx < 0)
			return unknown_param(b, w[i].pos, path, w[i].param);
		snprintf(sub, sizeof(sub), "%s.%s", path, w[i].param);
		if (check_value(b, &b->p->params[idx], w[i].text, w[i].value_pos, sub, &w[i].num) < 0)
			return -1;
		w[i].bound = 1;
	}
	return 0;
}

static struct spec_pos values_pos(const struct spec_param *sp)
{
	return sp->form == SPEC_RANGE ? sp->from_pos : sp->raw_pos[0];
}

static int from_override(struct spec_pos pos)
{
	return pos.line == 0 && pos.col > 0;
}

/* `command:` belongs to the command probe, which needs one; its
   placeholders name that probe's parameters (or {bin}). */
static int bind_command(struct bctx *b)
{
	const struct spec_command *cmd = &b->s->command;
	int is_command = strcmp(b->p->name, SPEC_COMMAND_PROBE) == 0;
	struct spec_pos at;
	char bad[64];

	if (cmd->present && !is_command)
		return bfail(b, cmd->pos, "command: only the '%s' probe runs a command (this spec's probe is '%s')",
			     SPEC_COMMAND_PROBE, b->p->name);
	if (!cmd->present && is_command)
		return bfail(b, b->s->probe_pos, "probe '%s' needs a 'command:' key (the program to run, as a list like [sleep, \"0.05\"])",
			     SPEC_COMMAND_PROBE);
	if (!cmd->present || spec_command_check(cmd, b->names, b->n, &at, bad, sizeof bad) == 0)
		return 0;
	if (!bad[0])
		return bfail(b, nopos, "out of memory");
	const char *sug = suggest_word(bad, b->names, b->n);
	if (sug)
		return bfail(b, at, "command: placeholder '{%s}' names no parameter of probe '%s' (did you mean '{%s}'?; write {{ and }} for literal braces)",
			     bad, b->p->name, sug);
	return bfail(b, at, "command: placeholder '{%s}' names no parameter (give it values under params:, or write {{ and }} for literal braces)",
		     bad);
}

/* A formula's names: a machine fact, a constant of the per-family table
   (spec_expr_names) or one of the probe's parameters; anything else is an
   error at its column, with the closest name as a hint. */
static int bind_formula(struct bctx *b, const struct spec_formula *f, struct spec_pos pos,
			const char *key)
{
	size_t nn, nc = 0;
	const struct spec_expr_name *tab = spec_expr_names(&nn);

	for (size_t k = 0; f && k < f->nn; k++) {
		const struct spec_expr_node *n = &f->n[k];
		struct spec_pos at = pos;

		if (n->op != SPEC_X_NAME || spec_expr_name(n->name) || param_index(b, n->name) >= 0)
			continue;
		const char **cand = calloc(nn + b->n + 1, sizeof *cand);
		if (!cand)
			return bfail(b, nopos, "out of memory");
		nc = 0;
		for (size_t i = 0; i < nn; i++)
			cand[nc++] = tab[i].name;
		for (size_t i = 0; i < b->n; i++)
			cand[nc++] = b->names[i];
		const char *sug = suggest_word(n->name, cand, nc);
		char hint[160] = "";
		if (sug)
			snprintf(hint, sizeof hint, " (did you mean '%s'?)", sug);
		free(cand);
		if (at.line > 0 && !strchr(f->text, '\n') && b->s->text) {
			/* the scalar may be quoted: its first character is then the quote */
			const char *line = b->s->text;
			for (int l = 1; l < at.line && line; l++)
				line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL;
			int q = line && at.col >= 1 && (size_t)(at.col - 1) < strlen(line) &&
				(line[at.col - 1] == '"' || line[at.col - 1] == '\'');
			at.col += (int)n->off + q;
		}
		return bfail(b, at, "predict.%s: unknown name '%s'%s: a formula's names are machine "
			     "facts, the per-family constants (docs/spec-format.md) and this probe's "
			     "parameters", key, n->name, hint);
	}
	return 0;
}

static int bind_rest(struct bctx *b)
{
	struct spec *s = b->s;
	char msg[MSG], path[192];

	if (s->sweep == SWEEP_ZIP) {	/* named in the spec's order, as the user wrote them */
		const struct spec_param *first = NULL;
		for (size_t i = 0; i < s->n_params; i++) {
			const struct spec_param *sp = &s->params[i];
			struct spec_pos at = s->sweep_pos;
			if (sp->form == SPEC_SCALAR)
				continue;
			if (!first) {
				first = sp;
				continue;
			}
			if (sp->n_vals == first->n_vals)
				continue;
			/* when --set made the lists differ, name the --set, not the file */
			if (from_override(values_pos(sp)))
				at = values_pos(sp);
			else if (from_override(values_pos(first)))
				at = values_pos(first);
			return bfail(b, at, "sweep: zip needs lists of equal length (%s has %zu, %s has %zu)",
				     first->name, first->n_vals, sp->name, sp->n_vals);
		}
	}
	for (size_t i = 0; i < s->n_predict; i++) {
		struct spec_predict *pr = &s->predict[i];
		if (bind_where(b, pr->where, pr->n_where, "predict.where") < 0)
			return -1;
		pr->hw = pr->sw = pr->value = NAN;
		if (bind_formula(b, pr->fx[SPEC_FX_HW], pr->hw_pos, "hardware") < 0 ||
		    bind_formula(b, pr->fx[SPEC_FX_SW], pr->sw_pos, "software") < 0 ||
		    bind_formula(b, pr->fx[SPEC_FX_VALUE], pr->value_pos, "value") < 0)
			return -1;
		if (pr->hw_text && !pr->fx[SPEC_FX_HW] &&
		    units_parse_in(pr->hw_text, b->p->unit, &pr->hw, msg, sizeof(msg)) < 0)
			return bfail(b, pr->hw_pos, "predict.hardware: %s", msg);
		if (pr->sw_text && !pr->fx[SPEC_FX_SW] &&
		    units_parse_in(pr->sw_text, b->p->unit, &pr->sw, msg, sizeof(msg)) < 0)
			return bfail(b, pr->sw_pos, "predict.software: %s", msg);
		if (!pr->value_text)
			pr->value = pr->hw + pr->sw;	/* both given: the parser saw to it */
		else if (!pr->fx[SPEC_FX_VALUE] &&
			 units_parse_in(pr->value_text, b->p->unit, &pr->value, msg, sizeof(msg)) < 0)
			return bfail(b, pr->value_pos, "predict.value: %s", msg);
	}
	for (size_t i = 0; i < s->n_reference; i++) {
		struct spec_reference *r = &s->reference[i];
		snprintf(path, sizeof(path), "reference.%s.where", r->machine);
		if (bind_where(b, r->where, r->n_where, path) < 0)
			return -1;
		if (units_parse_in(r->value_text, b->p->unit, &r->value, msg, sizeof(msg)) < 0)
			return bfail(b, r->value_pos, "reference.%s.value: %s", r->machine, msg);
	}
	if (s->chart.x && param_index(b, s->chart.x) < 0)
		return unknown_param(b, s->chart.x_pos, "chart.x", s->chart.x);
	if (s->chart.series && param_index(b, s->chart.series) < 0)
		return unknown_param(b, s->chart.series_pos, "chart.series", s->chart.series);
	return bind_command(b);
}

static int bind_axes(struct bctx *b)
{
	struct spec *s = b->s;
	const struct probe_param *tab = b->p->params;
	size_t cap;
	char msg[MSG];
	double num;

	for (size_t i = 0; i < s->n_params; i++) {
		struct spec_param *sp = &s->params[i];
		int idx = param_index(b, sp->name);
		if (idx < 0)
			return unknown_param(b, sp->pos, "params", sp->name);
		sp->index = idx;
		if (expand_param(b, sp, &tab[idx]) < 0)
			return -1;
		cap = 0;
		for (size_t k = 0; k < sp->n_vals; k++)
			if (push_val(b, &s->axis[idx], &s->axis_n[idx], &cap, sp->vals[k].text,
				     sp->vals[k].num) < 0)
				return -1;
		s->axis_swept[idx] = sp->form != SPEC_SCALAR;
	}
	for (size_t i = 0; i < b->n; i++) {
		if (s->axis_n[i])
			continue;
		if (!tab[i].def)
			return bfail(b, s->probe_pos, "missing parameter '%s' (probe '%s' has no default for it)",
				     tab[i].name, b->p->name);
		if (parse_typed(&tab[i], tab[i].def, &num, msg, sizeof(msg)) < 0) {
			snprintf(b->err, b->errlen, "probe '%s': parameter '%s' has a bad default: %s",
				 b->p->name, tab[i].name, msg);
			return -1;
		}
		cap = 0;
		if (push_val(b, &s->axis[i], &s->axis_n[i], &cap, tab[i].def, num) < 0)
			return -1;
	}
	return 0;
}

int spec_bind_as(struct spec *s, const struct probe *p, size_t cur_ov, char *err, size_t errlen)
{
	struct bctx b = {s, p, cur_ov, err, errlen, NULL, 0};
	int rc = -1;

	spec_unbind(s);
	while (p->params && p->params[b.n].name)
		b.n++;
	b.names = calloc(b.n ? b.n : 1, sizeof(*b.names));
	s->axis = calloc(b.n ? b.n : 1, sizeof(*s->axis));
	s->axis_n = calloc(b.n ? b.n : 1, sizeof(*s->axis_n));
	s->axis_swept = calloc(b.n ? b.n : 1, sizeof(*s->axis_swept));
	s->n_axis = b.n;
	if (!b.names || !s->axis || !s->axis_n || !s->axis_swept) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < b.n; i++)
		b.names[i] = p->params[i].name;
	if (bind_axes(&b) < 0 || bind_rest(&b) < 0)
		goto out;
	s->bound = p;
	rc = 0;
out:
	free(b.names);
	if (rc < 0)
		spec_unbind(s);
	return rc;
}

int spec_bind(struct spec *s, const struct probe *p, char *err, size_t errlen)
{
	return spec_yaml_clean_err(spec_bind_as(s, p, 0, err, errlen), err, errlen);
}

