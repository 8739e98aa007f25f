/*
 * report_fleet.c - the view of a folder `runner merge --hosts` made: the
 * same experiments run on several hosts, set side by side (report_fleet.h).
 *
 * Every host's run is under hosts/<name>/ in the folder, read as any run
 * folder is (results_manifest_read checks it).  Per experiment: a table of
 * every point on every host (estimate and CI in one unit), one chart with a
 * series per host (chart.c, from a result made of all the hosts' points with
 * the host as the series parameter), and the hosts whose result differs
 * clearly from the others'.  The rule (docs/methodology.md, "Hosts that
 * differ"): at a point, a host differs when the median of the other hosts'
 * estimates lies outside its CI and its own estimate lies outside every
 * other host's CI; a host is named for an experiment when it differs at
 * half of the points compared or more.
 */
#include "report/report.h"
#include "report/report_fleet.h"
#include "report/report_chart_view.h"
#include "report/report_run.h"
#include "report/report_unit.h"
#include "report/report_view.h"
#include "report/chart.h"
#include "lib/jsonutil.h"
#include "lib/text.h"
#include "lib/strf.h"
#include "results/results.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct fhost {
	const char *name;
	json_t *entry;			/* the manifest's hosts.runs[] entry */
	json_t *m;			/* hosts/<name>/manifest.json */
	json_t *by_name;		/* {experiment: result} */
};

static int in_list(json_t *a, const char *s)
{
	json_t *x;
	size_t i;

	json_array_foreach(a, i, x)
		if (!strcmp(json_string_value(x), s))
			return 1;
	return 0;
}

/* Load every host's manifest and results.  -1 with rm->err set. */
static int load_hosts(struct report_model *rm, json_t *runs, struct fhost *h, size_t *n)
{
	json_t *x, *e;
	size_t i, k;

	*n = 0;
	json_array_foreach(runs, i, x) {
		char dir[PATH_MAX], msg[1024];
		const char *name = jsonutil_str(x, "name");

		if (!text_host_name_ok(name)) {
			strf(rm->err, rm->errlen, "run '%s': manifest.json: hosts.runs[%zu].name: not a "
			     "host name", rm->run, i);
			return -1;
		}
		strf(dir, sizeof dir, "%s/hosts/%s", rm->run, name);
		h[*n] = (struct fhost){.name = name, .entry = x, .by_name = json_object()};
		if (!(h[*n].m = results_manifest_read(dir, msg, sizeof msg))) {
			json_decref(h[*n].by_name);
			strf(rm->err, rm->errlen, "run '%s': host %s: %s", rm->run, name, msg);
			return -1;
		}
		(*n)++;
		json_array_foreach(json_object_get(h[*n - 1].m, "experiments"), k, e) {
			char path[PATH_MAX + 300];
			int missing = 0;
			json_t *res;

			strf(path, sizeof path, "%s/%s", dir, jsonutil_str(e, "result"));
			res = jsonutil_load(path, msg, sizeof msg, &missing);
			if (res)
				json_object_set_new(h[*n - 1].by_name, jsonutil_str(e, "name"), res);
			else if (!missing) {
				strf(rm->err, rm->errlen, "run '%s': host %s: %s", rm->run, name, msg);
				return -1;
			}
		}
	}
	return 0;
}

/* The point's label: its swept parameters "k=v, ..." (in the spec's order);
   "" when nothing is swept. */
static void point_label(json_t *res, json_t *pt, char *buf, size_t len)
{
	json_t *params = json_object_get(json_object_get(res, "spec"), "params"), *vals;
	const char *key;
	size_t used = 0;

	buf[0] = '\0';
	json_object_foreach(params, key, vals) {
		const char *t = jsonutil_str(json_object_get(pt, "params_text"), key);

		if (!json_is_array(vals) || json_array_size(vals) < 2)
			continue;
		used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s=%s",
					 used ? ", " : "", key, t ? t : "?");
	}
}

static json_t *point_of(json_t *res, const char *label)
{
	json_t *pt;
	size_t i;
	char l[512];

	json_array_foreach(json_object_get(res, "points"), i, pt) {
		point_label(res, pt, l, sizeof l);
		if (!strcmp(l, label))
			return pt;
	}
	return NULL;
}

struct val {
	double est, lo, hi;
	int ok;
};

static struct val value_of(json_t *pt)
{
	struct val v = {NAN, NAN, NAN, 0};
	json_t *ci = json_object_get(pt, "ci");

	if (!pt || !jsonutil_str(pt, "status") || strcmp(jsonutil_str(pt, "status"), "ok") != 0)
		return v;
	v.est = jsonutil_num(pt, "estimate");
	v.lo = json_is_number(json_array_get(ci, 0)) ? json_number_value(json_array_get(ci, 0)) : v.est;
	v.hi = json_is_number(json_array_get(ci, 1)) ? json_number_value(json_array_get(ci, 1)) : v.est;
	v.ok = isfinite(v.est) && isfinite(v.lo) && isfinite(v.hi);
	return v;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Does host k differ from the others at this point (the rule above)?
   Needs at least two hosts with a value. */
static int differs(const struct val *v, size_t n, size_t k)
{
	double others[256], med;
	size_t m = 0;

	if (!v[k].ok)
		return 0;
	for (size_t j = 0; j < n && m < 256; j++) {
		if (j == k || !v[j].ok)
			continue;
		if (v[k].est >= v[j].lo && v[k].est <= v[j].hi)
			return 0;	/* inside another host's CI */
		others[m++] = v[j].est;
	}
	if (m == 0)
		return 0;
	qsort(others, m, sizeof *others, cmp_double);
	med = m % 2 ? others[m / 2] : (others[m / 2 - 1] + others[m / 2]) / 2;
	return med < v[k].lo || med > v[k].hi;
}

/* A result of all the hosts' points, the host a swept parameter that makes
   the series: what chart.c draws as one line (or bar) per host. */
static json_t *chart_result(struct fhost *h, size_t n, const char *exp, json_t *first)
{
	json_t *r = json_deep_copy(first), *pts = json_array(), *names = json_array();
	json_t *spec = json_object_get(r, "spec"), *chart;

	for (size_t k = 0; k < n; k++) {
		json_t *res = json_object_get(h[k].by_name, exp), *pt;
		size_t i;

		if (!res)
			continue;
		jsonutil_append(names, jsonutil_text(h[k].name));
		json_array_foreach(json_object_get(res, "points"), i, pt) {
			json_t *c = json_deep_copy(pt);

			jsonutil_set(json_object_get(c, "params"), "host", jsonutil_text(h[k].name));
			jsonutil_set(json_object_get(c, "params_text"), "host", jsonutil_text(h[k].name));
			jsonutil_append(pts, c);
		}
	}
	jsonutil_set(r, "points", pts);
	if (!json_is_object(json_object_get(spec, "params")))
		jsonutil_set(spec, "params", json_object());
	/* host last, so a real sweep stays the x axis; the series by host */
	jsonutil_set(json_object_get(spec, "params"), "host", names);
	chart = json_object_get(spec, "chart");
	if (!json_is_object(chart)) {
		jsonutil_set(spec, "chart", json_object());
		chart = json_object_get(spec, "chart");
	}
	jsonutil_set(chart, "series", jsonutil_text("host"));
	jsonutil_set(r, "title", json_sprintf("%s, per host", jsonutil_str(first, "title") ?
		jsonutil_str(first, "title") : exp));
	return r;
}

/* The experiment's chart across the hosts, charts/hosts-NAME.*; *fail
   when its script cannot be written. */
static json_t *fleet_chart(struct report_model *rm, json_t *res, const char *exp,
			   const struct report_unit *d, int *fail)
{
	char base[200], safe[160];
	json_t *c;

	report_view_safe_name(exp, safe, sizeof safe);
	strf(base, sizeof base, "hosts-%s", safe);
	if (!(c = report_chart_view(rm, res, base, base, d, 1))) {
		*fail = 1;
		return json_object();
	}
	return c;
}

/* One experiment across the hosts: rows, chart, the hosts that differ. */
static json_t *experiment_view(struct report_model *rm, struct fhost *h, size_t n, const char *exp)
{
	json_t *first = NULL, *labels = json_array(), *rows = json_array(), *lab, *e = json_object();
	json_t *absent = json_array(), *named = json_array(), *all_pts = json_array(), *cres;
	struct report_unit d;
	size_t i, nd[256] = {0}, compared = 0;
	int fail = 0;

	for (size_t k = 0; k < n; k++) {
		json_t *res = json_object_get(h[k].by_name, exp), *pt;

		if (!res) {
			jsonutil_append(absent, jsonutil_text(h[k].name));
			continue;
		}
		if (!first)
			first = res;
		json_array_foreach(json_object_get(res, "points"), i, pt) {
			char l[512];

			json_array_append(all_pts, pt);
			point_label(res, pt, l, sizeof l);
			if (!in_list(labels, l))
				jsonutil_append(labels, jsonutil_text(l));
		}
	}
	report_unit_pick(jsonutil_str(json_object_get(first, "probe"), "unit"), all_pts, NAN, 0, &d);
	json_array_foreach(labels, i, lab) {
		struct val v[256];
		json_t *pts[256];
		size_t nv = 0, got = 0;

		for (size_t k = 0; k < n && k < 256; k++) {
			json_t *res = json_object_get(h[k].by_name, exp);

			pts[k] = res ? point_of(res, json_string_value(lab)) : NULL;
			v[k] = value_of(pts[k]);
			got += v[k].ok;
			nv = k + 1;
		}
		compared += got >= 2;
		for (size_t k = 0; k < nv; k++) {
			int dif = got >= 2 && differs(v, nv, k);
			json_t *row = json_object();

			if (!pts[k])	/* not a point of this host's run */
				continue;
			nd[k] += dif;
			report_view_put(row, "point", report_view_line(*json_string_value(lab) ?
				json_string_value(lab) : REPORT_VIEW_DASH));
			report_view_put(row, "host", report_view_str(h[k].name));
			report_view_put(row, "measured", v[k].ok ? report_view_num_unit(v[k].est * d.scale,
				d.label) : report_view_str(REPORT_VIEW_DASH));
			report_view_put(row, "ci", v[k].ok ? report_view_ci(v[k].lo * d.scale,
				v[k].hi * d.scale) : report_view_str(REPORT_VIEW_DASH));
			report_view_put(row, "differs", json_boolean(dif));
			jsonutil_append(rows, row);
		}
	}
	for (size_t k = 0; k < n && k < 256; k++)
		if (compared && nd[k] && 2 * nd[k] >= compared)
			jsonutil_append(named, report_view_strf("%s (at %zu of %zu points)", h[k].name,
								nd[k], compared));
	cres = chart_result(h, n, exp, first);
	report_view_put(e, "chart", fleet_chart(rm, cres, exp, &d, &fail));
	json_decref(cres);
	if (fail) {
		json_decref(e);
		e = NULL;
		goto out;
	}
	report_view_put(e, "name", report_view_str(exp));
	report_view_put(e, "title", report_view_line(jsonutil_str(first, "title") ?
		jsonutil_str(first, "title") : exp));
	report_view_put(e, "unit", report_view_str(d.label));
	report_view_put(e, "rows", json_incref(rows));
	report_view_put(e, "differ", json_incref(named));
	report_view_put(e, "has_differ", json_boolean(json_array_size(named) > 0));
	report_view_put(e, "absent", json_incref(absent));
	report_view_put(e, "has_absent", json_boolean(json_array_size(absent) > 0));
out:
	json_decref(labels);
	json_decref(rows);
	json_decref(absent);
	json_decref(named);
	json_decref(all_pts);
	return e;
}

/* A host's row in the hosts table, with its machine facts. */
static json_t *host_view(const struct fhost *h)
{
	json_t *v = json_object(), *fl = json_object_get(h->entry, "fleet");
	json_t *clock = json_object_get(fl, "clock");
	double off = jsonutil_num(clock, "offset_s"), unc = jsonutil_num(clock, "uncertainty_s");
	const char *fp = jsonutil_str(json_object_get(fl, "fingerprint"), "ssh_host_key");

	report_view_put(v, "name", report_view_str(h->name));
	report_view_put(v, "run_id", report_view_line(jsonutil_str(h->m, "run_id")));
	report_view_put(v, "status", report_view_line(jsonutil_str(h->m, "status") ?
		jsonutil_str(h->m, "status") : "n/a"));
	report_view_put(v, "clock", isfinite(off) ? report_view_strf("%+.3f s (± %.3f s)", off,
		isfinite(unc) ? unc : 0) : report_view_str("n/a"));
	report_view_put(v, "fingerprint", report_view_line(fp ? fp : "n/a"));
	report_view_put(v, "machine", report_run_machine(json_object_get(h->m, "machine"), NULL));
	return v;
}

/* With `fleet --pairs`: which host answered as this host's network peer
   (its name only), or why none did.  NULL when the host had no peer asked. */
static json_t *peer_view(const struct fhost *h)
{
	json_t *p = json_object_get(json_object_get(h->entry, "fleet"), "peer");
	const char *name = jsonutil_str(p, "name"), *addr = jsonutil_str(p, "address");
	const char *why = jsonutil_str(p, "why_not");

	char none[600];

	if (!json_is_object(p))
		return NULL;
	snprintf(none, sizeof none, "none (%s): its remote points were skipped", why ? why : "n/a");
	return json_pack("{s:o,s:o}", "name", report_view_str(h->name), "peer",
		report_view_line(name && addr ? name : none));
}

json_t *report_fleet_view(struct report_model *rm, json_t *man)
{
	json_t *fleet = json_object_get(man, "hosts"), *runs = json_object_get(fleet, "runs");
	json_t *v, *exps, *hosts, *missing, *names, *x, *e, *peers, *pv;
	struct fhost *h;
	size_t n = 0, i, k;

	if (!json_is_object(fleet))
		return json_null();
	missing = json_array();
	names = json_array();
	h = calloc(json_array_size(runs) + 1, sizeof *h);
	v = json_object();
	exps = json_array();
	hosts = json_array();
	peers = json_array();
	if (!h || load_hosts(rm, runs, h, &n) < 0)
		goto fail;
	for (k = 0; k < n; k++) {
		const char *name;

		jsonutil_append(hosts, host_view(&h[k]));
		if ((pv = peer_view(&h[k])))
			jsonutil_append(peers, pv);
		json_array_foreach(json_object_get(h[k].m, "experiments"), i, e)
			if ((name = jsonutil_str(e, "name")) && json_object_get(h[k].by_name, name) &&
			    !in_list(names, name))
				jsonutil_append(names, jsonutil_text(name));
	}
	json_array_foreach(names, i, x) {
		json_t *ev = experiment_view(rm, h, n, json_string_value(x));

		if (!ev)
			goto fail;
		jsonutil_append(exps, ev);
	}
	json_array_foreach(json_object_get(fleet, "missing"), i, x)
		jsonutil_append(missing, json_pack("{s:o,s:o}",
			"name", report_view_line(jsonutil_str(x, "name")),
			"reason", report_view_line(jsonutil_str(x, "reason"))));
	report_view_put(v, "n_hosts", report_view_strf("%zu", n));
	report_view_put(v, "n_missing", report_view_strf("%zu", json_array_size(missing)));
	report_view_put(v, "hosts", hosts);
	report_view_put(v, "has_missing", json_boolean(json_array_size(missing) > 0));
	report_view_put(v, "missing", missing);
	report_view_put(v, "experiments", exps);
	report_view_put(v, "has_peers", json_boolean(json_array_size(peers) > 0));
	report_view_put(v, "peers", peers);
	for (k = 0; k < n; k++) {
		json_decref(h[k].m);
		json_decref(h[k].by_name);
	}
	free(h);
	json_decref(names);
	return v;
fail:
	for (k = 0; k < n; k++) {
		json_decref(h[k].m);
		json_decref(h[k].by_name);
	}
	free(h);
	json_decref(names);
	json_decref(missing);
	json_decref(hosts);
	json_decref(peers);
	json_decref(exps);
	json_decref(v);
	return NULL;
}
