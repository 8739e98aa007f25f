/*
 * predict.c - predictions as models (docs/methodology.md, "Predictions"):
 * each point's `prediction.formula` (hardware, software, value; recorded by
 * results_point from the spec's predict: entry) evaluated over the
 * manifest's machine facts, the per-family constants table
 * (machine/model_table.c), the point's own parameters and the other
 * experiments' results of the same run.  It reads JSON only, so a run and
 * `runner report` evaluate the same way.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine/machine.h"
#include "results/results.h"
#include "spec/spec.h"
#include "lib/jsonutil.h"
#include "lib/units.h"

struct pctx {
	const json_t *machine, *by_name, *point, *probe;
	const struct machine_model *row;
	int pti;
	json_t *sources;		/* [{name, value, source}] */
};

/* How many of the probe's unit make one base unit (s, B/s, B); *q the
   base unit's kind. */
static double unit_factor(const char *unit, enum spec_qty *q)
{
	char e[128];
	double f;

	*q = SPEC_Q_NUM;
	if (!unit)
		return 1;
	if (units_is_time(unit, NULL) && units_parse_in("1s", unit, &f, e, sizeof e) == 0) {
		*q = SPEC_Q_SECONDS;
		return f;
	}
	if (units_parse_in("1B/s", unit, &f, e, sizeof e) == 0) {
		*q = SPEC_Q_RATE;
		return f;
	}
	if (units_parse_in("1B", unit, &f, e, sizeof e) == 0) {
		*q = SPEC_Q_BYTES;
		return f;
	}
	return 1;
}

static void source(struct pctx *c, const char *name, double v, enum spec_qty q, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void source(struct pctx *c, const char *name, double v, enum spec_qty q, const char *fmt, ...)
{
	char text[512], val[64];
	va_list ap;
	size_t i;
	json_t *s;

	json_array_foreach(c->sources, i, s)
		if (strcmp(jsonutil_str(s, "name") ?: "", name) == 0)
			return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	spec_expr_format(v, q, val, sizeof val);
	jsonutil_append(c->sources, json_pack("{s:s,s:s,s:o}", "name", name, "value", val, "source",
					      jsonutil_text(text)));
}

/* A number at machine.NAME: a number, or an object with `value` (a fact
   given with --machine FILE may carry its source). */
static int fact(const json_t *m, const char *name, double *v)
{
	const json_t *j = json_object_get(m, name);

	if (json_is_object(j))
		j = json_object_get(j, "value");
	if (!json_is_number(j))
		return -1;
	*v = json_number_value(j);
	return 0;
}

static int cache_size(const json_t *m, int level, double *v, double *line)
{
	const json_t *c;
	size_t i;

	json_array_foreach(json_object_get(m, "caches"), i, c) {
		const char *t = json_string_value(json_object_get(c, "type"));
		if (t && strcmp(t, "Instruction") == 0)
			continue;
		if (json_integer_value(json_object_get(c, "level")) != level ||
		    !json_is_number(json_object_get(c, "size_bytes")))
			continue;
		*v = json_number_value(json_object_get(c, "size_bytes"));
		if (line && json_is_number(json_object_get(c, "line_bytes")))
			*line = json_number_value(json_object_get(c, "line_bytes"));
		return 0;
	}
	return -1;
}

struct mit_text { char buf[1024]; size_t used; int per_switch; };

static void mit_term(void *ctx, const struct machine_mitigation *row, double cycles, int per_switch)
{
	struct mit_text *t = ctx;

	if (per_switch != t->per_switch || t->used >= sizeof t->buf)
		return;
	t->used += (size_t)snprintf(t->buf + t->used, sizeof t->buf - t->used, "%s%s \"%s\" %.0f",
				    t->used ? "; " : "", row->file, row->match, cycles);
}

/* The cycles the kernel's listed mitigations add to each kernel entry and
   exit (mitigation_cycles) or to each switch (switch_mitigation_cycles):
   one term per mitigation that machine.vulnerabilities names, each from
   the table's sourced rows, 0 when it names none. */
static int mitigation(struct pctx *c, const char *name, double *v, enum spec_qty q)
{
	const json_t *vuln = json_object_get(c->machine, "vulnerabilities");
	struct mit_text t = {.per_switch = strcmp(name, "switch_mitigation_cycles") == 0};
	double entry, sw;

	if (!json_is_object(vuln)) {
		*v = 0;
		source(c, name, *v, q, "machine.vulnerabilities not recorded: no mitigation counted");
		return 0;
	}
	machine_model_mitigations(c->row, vuln, &entry, &sw, mit_term, &t);
	*v = t.per_switch ? sw : entry;
	source(c, name, *v, q, "table: the mitigations machine.vulnerabilities names%s%s",
	       t.used ? ": " : " (none that runs on this path)", t.buf);
	return 0;
}

static int table(struct pctx *c, const char *name, double *v, enum spec_qty q)
{
	if (!strcmp(name, "mitigation_cycles") || !strcmp(name, "switch_mitigation_cycles"))
		return mitigation(c, name, v, q);
	if (machine_model_value(c->row, name, c->pti, v) < 0)
		return -1;
	if (strstr(name, "cycles") && strcmp(name, "copy_bytes_per_cycle") != 0 &&
	    (!strncmp(name, "switch", 6) || !strncmp(name, "mm_", 3) || !strncmp(name, "pipe", 4) ||
	     !strncmp(name, "futex", 5) || !strncmp(name, "fork", 4) || !strncmp(name, "thread", 6) ||
	     !strncmp(name, "exit", 4) || !strncmp(name, "exec", 4) || !strncmp(name, "fault", 5) ||
	     !strncmp(name, "pagecache", 9) || !strncmp(name, "block", 5) || !strncmp(name, "tcp", 3) ||
	     !strncmp(name, "stdio", 5)))
		source(c, name, *v, q, "table: Linux path lengths (every family)");
	else if (!strcmp(name, "wakeup_latency"))
		source(c, name, *v, q, "table: Linux path lengths (every family)");
	else if (!strcmp(name, "syscall_cycles"))
		source(c, name, *v, q, "table: %s, no mitigation (mitigation_cycles adds them)", c->row->name);
	else
		source(c, name, *v, q, "table: %s", c->row->name);
	return 0;
}

static int machine_name(struct pctx *c, const char *name, double *v, enum spec_qty q, char *missing,
			size_t mlen)
{
	const json_t *m = c->machine, *cc = json_object_get(m, "core_clock");
	const struct machine_kernel *k = machine_model_kernel();
	double line = 64, x;

	if (!strcmp(name, "core_hz")) {
		if (json_is_true(json_object_get(cc, "holds")) && fact(cc, "hz", v) == 0) {
			source(c, name, *v, q, "measured core clock (machine.core_clock)");
			return 0;
		}
		/* a clock given with --machine FILE: nobody measured it (so the
		   report does not count cycles in it), but it is the user's
		   word for the machine the prediction is for */
		if (!strcmp(jsonutil_str((json_t *)cc, "source") ? jsonutil_str((json_t *)cc, "source") : "", "given") &&
		    fact(cc, "hz", v) == 0) {
			source(c, name, *v, q, "given: machine.core_clock");
			return 0;
		}
		if (fact(m, "tsc_hz", v) == 0) {
			source(c, name, *v, q, "the TSC frequency: the core clock %s",
			       json_is_object(cc) ? "did not hold" : "was not measured");
			return 0;
		}
		snprintf(missing, mlen, "core_hz (neither machine.core_clock nor machine.tsc_hz)");
		return -1;
	}
	if (!strcmp(name, "tsc_hz") || !strcmp(name, "cpus") || !strcmp(name, "memory_size")) {
		const char *key = !strcmp(name, "cpus") ? "cpus_online" :
				  !strcmp(name, "memory_size") ? "memory_bytes" : name;
		if (fact(m, key, v) == 0) {
			source(c, name, *v, q, "machine.%s", key);
			return 0;
		}
		snprintf(missing, mlen, "%s (machine.%s)", name, key);
		return -1;
	}
	if (!strcmp(name, "l1d_size") || !strcmp(name, "l2_size") || !strcmp(name, "l3_size")) {
		if (cache_size(m, name[1] - '0', v, NULL) == 0) {
			source(c, name, *v, q, "machine.caches (level %c)", name[1]);
			return 0;
		}
		snprintf(missing, mlen, "%s (machine.caches has no level %c)", name, name[1]);
		return -1;
	}
	if (!strcmp(name, "llc_size")) {
		if (fact(json_object_get(m, "llc"), "size_bytes", v) == 0) {
			source(c, name, *v, q, "machine.llc");
			return 0;
		}
		snprintf(missing, mlen, "llc_size (machine.llc)");
		return -1;
	}
	if (!strcmp(name, "line_size")) {
		*v = cache_size(m, 1, &x, &line) == 0 ? line : 64;
		source(c, name, *v, q, "%s", cache_size(m, 1, &x, NULL) == 0 ? "machine.caches (level 1)"
									 : "64 bytes (x86-64)");
		return 0;
	}
	if (!strcmp(name, "page_size")) {
		if (fact(m, "page_size", v) == 0) {
			source(c, name, *v, q, "machine.page_size");
		} else {
			*v = 4096;
			source(c, name, *v, q, "4 KiB (the x86-64 base page)");
		}
		return 0;
	}
	if (!strcmp(name, "pti")) {
		*v = c->pti;
		source(c, name, *v, q, "machine.pti");
		return 0;
	}
	if (!strcmp(name, "busy_cpus")) {
		const json_t *pp = json_object_get(c->point, "params");
		const json_t *t = json_object_get(pp, "threads") ?: json_object_get(pp, "readers");
		double n = json_is_number(t) ? json_number_value(t) : 1, cpus;

		if (fact(m, "cpus_online", &cpus) < 0) {
			snprintf(missing, mlen, "busy_cpus (machine.cpus_online)");
			return -1;
		}
		*v = n < cpus ? n : cpus;
		source(c, name, *v, q, "min(%s %.0f, machine.cpus_online %.0f)",
		       json_object_get(pp, "threads") ? "threads" : json_object_get(pp, "readers") ? "readers"
												    : "one worker", n, cpus);
		return 0;
	}
	if (!strcmp(name, "ws_latency") || !strcmp(name, "ws_tlb")) {
		const json_t *sz = json_object_get(json_object_get(c->point, "params"), "size");
		double size, hz, pages, page = 4096;
		char miss[128];

		if (!json_is_number(sz)) {
			snprintf(missing, mlen, "%s (this point has no size parameter)", name);
			return -1;
		}
		size = json_number_value(sz);
		if (machine_name(c, "core_hz", &hz, SPEC_Q_HZ, miss, sizeof miss) < 0) {
			snprintf(missing, mlen, "%s", miss);
			return -1;
		}
		if (!strcmp(name, "ws_tlb")) {
			/* a guest's page walk is two-dimensional: each of the guest's
			   four page-table references is a guest-physical address the
			   host's tables translate, up to 24 references against 4
			   (AMD, "AMD-V Nested Paging", 2008; Bhargava et al.,
			   "Accelerating two-dimensional page walks for virtualized
			   systems", ASPLOS 2008) */
			const char *virt = jsonutil_str((json_t *)m, "virtualization");
			int guest = virt && strncmp(virt, "guest", 5) == 0;
			fact(m, "page_size", &page);
			pages = size / page;
			*v = pages <= 64 ? 0 : pages <= 1536 ? c->row->stlb / hz
			     : c->row->tlb_miss * (guest ? 24 / 4.0 : 1) / hz;
			source(c, name, *v, q, "%.0f pages: %s (table: %s)%s", pages, pages <= 64 ? "the L1 TLB holds them"
			       : pages <= 1536 ? "stlb_hit_cycles" : "tlb_miss_cycles", c->row->name,
			       pages > 1536 && guest ? " x 24/4, a guest's nested page walk (machine.virtualization)" : "");
			return 0;
		}
		for (int l = 1; l <= 3; l++) {
			double cs;
			/* a last-level cache the machine section found implausible (a
			   host's socket seen from a guest) is not this system's */
			if (l == 3 && json_is_false(json_object_get(json_object_get(m, "llc"), "plausible")))
				break;
			if (cache_size(m, l, &cs, NULL) == 0 && size <= cs) {
				*v = (l == 1 ? c->row->l1 : l == 2 ? c->row->l2 : c->row->l3) / hz;
				source(c, name, *v, q, "fits L%d (machine.caches): l%d_cycles (table: %s) / core_hz", l, l,
				       c->row->name);
				return 0;
			}
		}
		*v = c->row->dram_ns * 1e-9;
		source(c, name, *v, q, "larger than the caches%s: dram_latency (table: %s)",
		       json_is_false(json_object_get(json_object_get(m, "llc"), "plausible"))
			       ? " (an implausible last-level cache not counted: machine.llc)" : "", c->row->name);
		return 0;
	}
	if (!strcmp(name, "mem_bandwidth")) {
		if (fact(m, "memory_bus_bandwidth", v) == 0) {
			source(c, name, *v, q, "given: machine.memory_bus_bandwidth");
			return 0;
		}
		cache_size(m, 1, &x, &line);
		*v = c->row->fills * line / (c->row->dram_ns * 1e-9);
		source(c, name, *v, q, "table: %s, one core by Little's law (%.0f fills x %.0f B / %.0f ns); "
		       "give memory_bus_bandwidth with --machine FILE", c->row->name, c->row->fills, line,
		       c->row->dram_ns);
		return 0;
	}
	if (!strcmp(name, "disk_latency")) {
		if (fact(m, "disk_rand_read_iops", &x) == 0 && x > 0) {
			*v = 1 / x;
			source(c, name, *v, q, "given: 1 / machine.disk_rand_read_iops");
		} else {
			*v = k->disk_latency_s;
			source(c, name, *v, q, "table: an NVMe 4 KiB random read; give disk_rand_read_iops "
			       "with --machine FILE");
		}
		return 0;
	}
	if (!strcmp(name, "disk_bandwidth")) {
		if (fact(m, "disk_seq_read", v) == 0) {
			source(c, name, *v, q, "given: machine.disk_seq_read");
		} else {
			*v = k->disk_bandwidth;
			source(c, name, *v, q, "table: an NVMe sequential read; give disk_seq_read with "
			       "--machine FILE");
		}
		return 0;
	}
	/* the facts only a user gives */
	if (fact(m, name, v) == 0) {
		source(c, name, *v, q, "given: machine.%s", name);
		return 0;
	}
	snprintf(missing, mlen, "%s (give it with --machine FILE)", name);
	return -1;
}

/* A selector value against a point's parameter: as text, else as numbers
   (64 against 64, 4KiB against 4096). */
static int param_is(const json_t *pt, const char *name, const char *text)
{
	const char *t = jsonutil_str(json_object_get(pt, "params_text"), name);
	const json_t *v = json_object_get(json_object_get(pt, "params"), name);
	char e[128];
	double x;

	if (t && strcmp(t, text) == 0)
		return 1;
	if (!json_is_number(v))
		return 0;
	if (units_parse(text, UNIT_SIZE, &x, e, sizeof e) < 0 &&
	    units_parse(text, UNIT_NUMBER, &x, e, sizeof e) < 0)
		return 0;
	return fabs(json_number_value(v) - x) <= 1e-9 * fmax(1, fabs(x));
}

static int ref(struct pctx *c, const struct spec_expr_node *n, double *v, enum spec_qty *q,
	       char *missing, size_t mlen)
{
	const json_t *res = json_object_get(c->by_name, n->name), *pt, *best = NULL;
	const json_t *probe = json_object_get(res, "probe");
	const char *unit = jsonutil_str((json_t *)probe, "unit");
	int bigger = json_is_true(json_object_get(probe, "bigger_is_better"));
	size_t i;

	if (!res) {
		snprintf(missing, mlen, "@%s (experiment '%s' is not in this run)", n->name, n->name);
		return -1;
	}
	json_array_foreach(json_object_get(res, "points"), i, pt) {
		const char *st = jsonutil_str((json_t *)pt, "status") ?: "";
		const char *key;
		json_t *mine;
		int ok = 1;

		if ((strcmp(st, "ok") && strcmp(st, "partial")) || !json_is_number(json_object_get(pt, "estimate")))
			continue;
		for (size_t s = 0; s < n->n_sel && ok; s++)
			ok = param_is(pt, n->sel_param[s], n->sel_text[s]);
		/* the parameters both have, not fixed by [...], agree with ours */
		json_object_foreach(json_object_get(c->point, "params"), key, mine) {
			const json_t *theirs = json_object_get(json_object_get(pt, "params"), key);
			int fixed = 0;
			for (size_t s = 0; s < n->n_sel; s++)
				fixed |= strcmp(n->sel_param[s], key) == 0;
			if (ok && theirs && !fixed && !json_equal(mine, (json_t *)theirs))
				ok = 0;
		}
		if (!ok)
			continue;
		double e = json_number_value(json_object_get(pt, "estimate"));
		if (!best || (bigger ? e > json_number_value(json_object_get(best, "estimate"))
				     : e < json_number_value(json_object_get(best, "estimate"))))
			best = pt;
	}
	char label[256] = "";
	if (!best) {
		snprintf(missing, mlen, "@%s (no measured point of '%s' fits this one)", n->name, n->name);
		return -1;
	}
	{
		const char *key;
		json_t *t;
		size_t used = 0;
		json_object_foreach(json_object_get(best, "params_text"), key, t)
			if (used < sizeof label)
				used += (size_t)snprintf(label + used, sizeof label - used, "%s%s=%s",
							 used ? ", " : "", key, json_string_value(t) ?: "?");
	}
	char nm[256];
	if (n->metric) {
		/* a secondary value the probe recorded: its median, a count
		   or a ratio (what the probe's metric says), not the estimate */
		const json_t *x = json_object_get(json_object_get(json_object_get(best, "extra"), n->metric),
						  "median");

		if (!json_is_number(x)) {
			snprintf(missing, mlen, "@%s.%s (the point of '%s' recorded no %s)", n->name, n->metric,
				 n->name, n->metric);
			return -1;
		}
		*q = SPEC_Q_NUM;
		*v = json_number_value(x);
		snprintf(nm, sizeof nm, "@%s.%s", n->name, n->metric);
		source(c, nm, *v, *q, "measured: %s (%s), its %s", n->name, label, n->metric);
		return 0;
	}
	double f = unit_factor(unit, q);
	*v = json_number_value(json_object_get(best, "estimate")) / f;
	snprintf(nm, sizeof nm, "@%s", n->name);
	source(c, nm, *v, *q, "measured: %s (%s)", n->name, label);
	return 0;
}

static int lookup(void *ctx, const struct spec_expr_node *n, double *v, enum spec_qty *q, char *missing,
		  size_t mlen)
{
	struct pctx *c = ctx;
	const struct spec_expr_name *known;
	const json_t *pp, *par;
	size_t i;

	if (n->op == SPEC_X_REF)
		return ref(c, n, v, q, missing, mlen);
	/* the point's own parameters first: a probe's `size` is this point's */
	par = json_object_get(json_object_get(c->point, "params"), n->name);
	if (par) {
		const char *type = NULL;
		json_array_foreach(json_object_get(c->probe, "params"), i, pp)
			if (!strcmp(jsonutil_str((json_t *)pp, "name") ?: "", n->name))
				type = jsonutil_str((json_t *)pp, "type");
		if (!json_is_number(par) && !json_is_boolean(par)) {
			snprintf(missing, mlen, "%s (this point's '%s' is not a number)", n->name, n->name);
			return -1;
		}
		*v = json_is_boolean(par) ? json_is_true(par) : json_number_value(par);
		*q = type && !strcmp(type, "size") ? SPEC_Q_BYTES : type && !strcmp(type, "time") ? SPEC_Q_SECONDS
											: SPEC_Q_NUM;
		source(c, n->name, *v, *q, "this point's parameter");
		return 0;
	}
	known = spec_expr_name(n->name);
	/* then a secondary value the probe recorded: extra.NAME's median
	   (task_create's parent_mappings, parent_rss_bytes) */
	par = json_object_get(json_object_get(c->point, "extra"), n->name);
	if (json_is_object(par))
		par = json_object_get(par, "median");
	if (json_is_number(par)) {
		*v = json_number_value(par);
		*q = known ? known->qty : SPEC_Q_NUM;
		source(c, n->name, *v, *q, "this point's %s (recorded by the probe)", n->name);
		return 0;
	}
	if (known && !strcmp(known->group, "point")) {
		snprintf(missing, mlen, "%s (not recorded by this point's probe)", n->name);
		return -1;
	}
	if (!known) {
		snprintf(missing, mlen, "%s (no such name or parameter)", n->name);
		return -1;
	}
	*q = known->qty;
	if (!strcmp(known->group, "table"))
		return table(c, n->name, v, *q) == 0 ? 0
			: (snprintf(missing, mlen, "%s (not in the table)", n->name), -1);
	return machine_name(c, n->name, v, *q, missing, mlen);
}

static const char *parts[3] = {"value", "hardware", "software"};

static void flag_far(json_t *pt, double est, double pv, const char *unit)
{
	json_t *san = json_object_get(pt, "sanity"), *f;
	size_t i;

	if (!json_is_array(san))
		return;
	for (i = json_array_size(san); i-- > 0;) {
		f = json_array_get(san, i);
		if (!strcmp(jsonutil_str(f, "flag") ?: "", "far_from_prediction"))
			json_array_remove(san, i);
	}
	if (isfinite(est) && pv > 0 && (est / pv > 10 || est / pv < 0.1)) {
		char msg[256];
		snprintf(msg, sizeof msg, "measured %.4g %s is %.3gx the prediction %.4g %s", est, unit,
			 est / pv, pv, unit);
		jsonutil_append(san, json_pack("{s:s,s:s}", "flag", "far_from_prediction", "message", msg));
	}
}

/* The names and @references of the sub-tree at k, once each, in order. */
static void term_names(const struct spec_formula *form, int k, json_t *names)
{
	const struct spec_expr_node *n = &form->n[k];
	char nm[256];
	json_t *v;
	size_t i;

	if (n->op == SPEC_X_NAME || n->op == SPEC_X_REF) {
		snprintf(nm, sizeof nm, "%s%s", n->op == SPEC_X_REF ? "@" : "", n->name);
		json_array_foreach(names, i, v)
			if (!strcmp(json_string_value(v), nm))
				return;
		jsonutil_append(names, jsonutil_text(nm));
		return;
	}
	if (n->a >= 0)
		term_names(form, n->a, names);
	if (n->b >= 0)
		term_names(form, n->b, names);
}

/* How to write a term's value: per byte (a rate's part), else in the
   probe's unit (f of them to one base unit). */
struct term_unit {
	double f;
	const char *unit;
	int per_byte;
};

/* Appends to terms one entry per term of the sub-tree at k: the formula
   split at its top-level + and - (a '-' negates its right side); below a
   *, / or unary '-' the sub-tree is one term.  Each term is evaluated on
   its own with the same lookup, so a term's value is what it adds to its
   part.  Share is set later, once the total is known. */
static void split_terms(struct pctx *c, const struct spec_formula *form, int k, int sign,
			const char *part, const struct term_unit *u, json_t *terms)
{
	const struct spec_expr_node *n = &form->n[k];
	char text[1024], fill[1024], miss[256], res[64];
	double v;

	if (n->op == SPEC_X_ADD || n->op == SPEC_X_SUB) {
		split_terms(c, form, n->a, sign, part, u, terms);
		split_terms(c, form, n->b, n->op == SPEC_X_SUB ? -sign : sign, part, u, terms);
		return;
	}
	if (spec_expr_eval_node(form, k, lookup, c, &v, text, sizeof text, fill, sizeof fill, miss,
				sizeof miss) < 0)
		return;
	v *= sign;
	if (u->per_byte) {
		spec_expr_format(v, SPEC_Q_SPB, res, sizeof res);
	} else {
		v *= u->f;
		units_format_number(v, res, sizeof res - 20);
		snprintf(res + strlen(res), 20, " %s", u->unit);
	}
	json_t *names = json_array();
	term_names(form, k, names);
	jsonutil_append(terms, json_pack("{s:s,s:s+,s:s+++,s:o,s:n,s:o}", "part", part,
					 "text", sign < 0 ? "- " : "", text,
					 "filled", sign < 0 ? "- " : "", fill, " = ", res,
					 "value", results_num(v), "share", "names", names));
}

/* Each term's share of total (NAN total: no shares). */
static void term_shares(json_t *terms, double total)
{
	json_t *t;
	size_t i;

	json_array_foreach(terms, i, t)
		json_object_set_new(t, "share", results_num(isfinite(total) && total != 0
				    ? jsonutil_num(t, "value") / total : NAN));
}

static void predict_point(const json_t *result, json_t *pt, const json_t *machine, const json_t *by_name)
{
	json_t *pred = json_object_get(pt, "prediction"), *fx = json_object_get(pred, "formula");
	const json_t *probe = json_object_get(result, "probe"), *cpu = json_object_get(machine, "cpu");
	const char *unit = jsonutil_str((json_t *)probe, "unit");
	struct pctx c = {machine, by_name, pt, probe, NULL, 0, json_array()};
	double val[3], f;
	enum spec_qty q;
	char missing[512] = "";
	json_t *filled = json_object(), *terms = json_array();

	if (!json_is_object(pred) || !json_is_object(fx)) {
		json_decref(c.sources);
		json_decref(filled);
		json_decref(terms);
		return;
	}
	c.row = machine_model_find(jsonutil_str((json_t *)cpu, "vendor"),
				   (int)json_integer_value(json_object_get(cpu, "family")),
				   (int)json_integer_value(json_object_get(cpu, "model")));
	c.pti = !strcmp(jsonutil_str(json_object_get(machine, "pti"), "state") ?: "", "on");
	f = unit_factor(unit, &q);
	/* a rate's hardware and software formulas are times per byte
	   (docs/spec-format.md, "Predictions as formulas"), unless the spec
	   writes the value itself */
	int has_parts = jsonutil_str(fx, "hardware") || jsonutil_str(fx, "software");
	int rate = q == SPEC_Q_RATE && !jsonutil_str(fx, "value") && has_parts;
	struct term_unit tu = {f, unit ? unit : "", 0};
	for (int k = 0; k < 3; k++) {
		const char *text = jsonutil_str(fx, parts[k]);
		struct spec_formula form;
		char err[256], fill[1024], res[64];
		size_t off;

		val[k] = rate ? NAN : jsonutil_num(pred, parts[k]);
		if (!text) {
			json_object_set_new(filled, parts[k], json_null());
			continue;
		}
		val[k] = NAN;
		if (spec_expr_parse(text, &form, &off, err, sizeof err) < 0) {
			if (!missing[0])
				snprintf(missing, sizeof missing, "%s: column %zu: %s", parts[k], off + 1, err);
			json_object_set_new(filled, parts[k], json_null());
			continue;
		}
		char miss[256];
		if (spec_expr_eval(&form, lookup, &c, &val[k], fill, sizeof fill, miss, sizeof miss) < 0) {
			if (!missing[0])
				snprintf(missing, sizeof missing, "%s", miss);
			val[k] = NAN;
			json_object_set_new(filled, parts[k], json_null());
		} else {
			if (rate && k > 0) {
				spec_expr_format(val[k], SPEC_Q_SPB, res, sizeof res);
			} else {
				val[k] *= f;
				units_format_number(val[k], res, sizeof res - 20);
				snprintf(res + strlen(res), 20, " %s", unit ? unit : "");
			}
			json_object_set_new(filled, parts[k], json_pack("s++", fill, " = ", res));
			/* the terms of the parts; of the value only when it is the
			   whole model */
			tu.per_byte = rate && k > 0;
			if (k > 0 || !has_parts)
				split_terms(&c, &form, form.root, 1, parts[k], &tu, terms);
		}
		spec_expr_free(&form);
	}
	if (rate) {
		/* the time per byte is the sum of the parts; each part alone
		   would allow 1 / its time */
		double spb = (isfinite(val[1]) ? val[1] : 0) + (isfinite(val[2]) ? val[2] : 0);

		json_object_set_new(pred, "per_byte", json_pack("{s:o,s:o}", "hardware", results_num(val[1]),
								"software", results_num(val[2])));
		term_shares(terms, spb > 0 ? spb : NAN);
		val[0] = spb > 0 ? f / spb : NAN;
		for (int k = 1; k < 3; k++)
			val[k] = isfinite(val[k]) && val[k] > 0 ? f / val[k] : NAN;
	} else {
		/* without a written value the model is the sum of its parts,
		   recomputed each time (a report evaluates the run's again) */
		if (!jsonutil_str(fx, "value") && has_parts && !(jsonutil_str(pred, "value_text") ?: "")[0])
			val[0] = val[1] + val[2];
		else if (!jsonutil_str(fx, "value") && !isfinite(val[0]))
			val[0] = val[1] + val[2];
		json_object_del(pred, "per_byte");
		/* a rate's terms written as rates do not add up: no shares */
		term_shares(terms, q == SPEC_Q_RATE ? NAN : val[0]);
	}
	double est = jsonutil_num(pt, "estimate");
	json_object_set_new(pred, "value", results_num(missing[0] ? NAN : val[0]));
	json_object_set_new(pred, "hardware", results_num(val[1]));
	json_object_set_new(pred, "software", results_num(val[2]));
	json_object_set_new(pred, "terms", terms);
	json_object_set_new(pred, "filled", filled);
	json_object_set_new(pred, "sources", c.sources);
	json_object_set_new(pred, "table_row", json_string(c.row->name));
	json_object_set_new(pred, "missing", missing[0] ? jsonutil_text(missing) : json_null());
	json_object_set_new(pred, "ratio", results_num(!missing[0] && val[0] != 0 ? est / val[0] : NAN));
	flag_far(pt, missing[0] ? NAN : est, missing[0] ? NAN : val[0], unit ? unit : "");
}

void results_predict(json_t *result, const json_t *machine, const json_t *by_name)
{
	json_t *pt;
	size_t i;

	json_array_foreach(json_object_get(result, "points"), i, pt)
		predict_point(result, pt, machine, by_name);
}

const char *results_predict_row(const json_t *machine)
{
	const json_t *cpu = json_object_get(machine, "cpu");

	return machine_model_find(jsonutil_str((json_t *)cpu, "vendor"),
				  (int)json_integer_value(json_object_get(cpu, "family")),
				  (int)json_integer_value(json_object_get(cpu, "model")))->name;
}

struct entry_names { char *buf; size_t len, used, n; double cycles; };

static void entry_name(void *ctx, const struct machine_mitigation *row, double cycles, int per_switch)
{
	struct entry_names *t = ctx;

	if (per_switch || !strcmp(row->file, "meltdown") || t->used >= t->len)
		return;
	t->cycles += cycles;
	t->n++;
	t->used += (size_t)snprintf(t->buf + t->used, t->len - t->used, "%s%s", t->used ? ", " : "",
				    row->match);
}

size_t results_entry_mitigations(const json_t *machine, char *names, size_t len, double *cycles)
{
	const json_t *cpu = json_object_get(machine, "cpu");
	struct entry_names t = {names, len, 0, 0, 0};
	double entry, sw;

	names[0] = '\0';
	machine_model_mitigations(machine_model_find(jsonutil_str((json_t *)cpu, "vendor"),
							 (int)json_integer_value(json_object_get(cpu, "family")),
							 (int)json_integer_value(json_object_get(cpu, "model"))),
				      json_object_get(machine, "vulnerabilities"), &entry, &sw, entry_name, &t);
	*cycles = t.cycles;
	return t.n;
}
