/*
 * reload.c - a saved point's finished rounds back as point_results, so that
 * a run that goes on in its folder (`runner resume`) can continue a point where an interrupted run stopped and
 * analyse its old and new rounds together, exactly as an uninterrupted run
 * would (results_point).  What results_point recomputes (outlier marks,
 * estimates, status) is not read back; what only the child knew (samples,
 * placement, warm-up, timings, the probe's sanity message) is.
 *
 * Sample values come back as written (10 significant digits): a point's
 * recomputed figures can differ from an uninterrupted run's in the last
 * digit, its samples cannot.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "exec/loader.h"
#include "plan/plan.h"
#include "results/results.h"
#include "spec/spec.h"

static int status_of(const char *s, enum point_status *st)
{
	static const enum point_status all[] = {PT_OK, PT_FAILED, PT_SKIPPED, PT_TIMEOUT,
						PT_INTERRUPTED, PT_PARTIAL};
	for (size_t i = 0; s && i < sizeof all / sizeof all[0]; i++)
		if (strcmp(s, exec_status_name(all[i])) == 0) {
			*st = all[i];
			return 0;
		}
	return -1;
}

static double num_or_nan(const json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static void copy_str(char *dst, size_t len, const json_t *v)
{
	snprintf(dst, len, "%s", json_is_string(v) ? json_string_value(v) : "");
}

/* Round r's samples, in order, from the point's samples array. */
static int load_samples(const json_t *point, int r, const struct loaded_probe *lp,
			struct point_result *out)
{
	const json_t *samples = json_object_get(point, "samples"), *sm;
	size_t i, n = 0;

	json_array_foreach(samples, i, sm)
		n += json_integer_value(json_object_get(sm, "round")) == r;
	out->samples = calloc(n + 1, sizeof *out->samples);
	if (!out->samples)
		return -1;
	json_array_foreach(samples, i, sm) {
		struct sample_rec *sr;
		const json_t *ex = json_object_get(sm, "extra");

		if (json_integer_value(json_object_get(sm, "round")) != r)
			continue;
		sr = &out->samples[out->n_samples++];
		sr->value = num_or_nan(json_object_get(sm, "value"));
		for (size_t m = 0; m < PROBE_MAX_EXTRA; m++)
			sr->extra[m] = NAN;
		for (size_t m = 0; m < lp->n_metrics && m < PROBE_MAX_EXTRA; m++)
			sr->extra[m] = num_or_nan(json_object_get(ex, lp->p->metrics[m].name));
		sr->warmup = json_is_true(json_object_get(sm, "warmup"));
		sr->valid = json_is_true(json_object_get(sm, "valid"));
		sr->round = r;
		copy_str(sr->note, sizeof sr->note, json_object_get(sm, "note"));
	}
	return 0;
}

/* Placement is recorded once per point (round 0's): every restored round
   gets it, with its own CPU. */
static void load_placement(const json_t *point, struct point_result *out)
{
	const json_t *pl = json_object_get(point, "placement"), *v, *f;
	size_t i;

	v = json_object_get(pl, "cpu_requested");
	out->cpu_requested = json_is_integer(v) ? (int)json_integer_value(v) : -1;
	out->pinned = json_is_true(json_object_get(pl, "pinned"));
	v = json_object_get(pl, "priority_requested");
	out->has_prio_req = json_is_integer(v);
	out->prio_requested = (int)json_integer_value(v);
	out->priority = (int)json_integer_value(json_object_get(pl, "priority"));
	out->prio_applied = json_is_true(json_object_get(pl, "priority_applied"));
	copy_str(out->placement_note, sizeof out->placement_note, json_object_get(pl, "note"));
	json_array_foreach(json_object_get(point, "sanity"), i, f)
		if (!strcmp(json_string_value(json_object_get(f, "flag")) ? json_string_value(json_object_get(f, "flag")) : "", "probe_sanity")) {
			out->sanity_failed = 1;
			copy_str(out->sanity_msg, sizeof out->sanity_msg, json_object_get(f, "message"));
		}
}

int results_point_rounds(const json_t *point, const struct loaded_probe *lp,
			 struct point_result *out, size_t cap, char *err, size_t errlen)
{
	const json_t *rounds = json_object_get(point, "rounds"), *rj;
	size_t i, n = 0;

	json_array_foreach(rounds, i, rj) {
		struct point_result *r = &out[n];
		enum point_status st;
		const json_t *cpu = json_object_get(rj, "cpu");

		if (status_of(json_string_value(json_object_get(rj, "status")), &st) < 0) {
			snprintf(err, errlen, "round %zu: unknown status '%s'", i,
				 json_string_value(json_object_get(rj, "status")) ? json_string_value(json_object_get(rj, "status")) : "(none)");
			goto bad;
		}
		if (st == PT_INTERRUPTED)	/* cut short: measured again */
			break;
		if (json_integer_value(json_object_get(rj, "round")) != (json_int_t)i || n >= cap) {
			snprintf(err, errlen, "round %zu: rounds out of order or more than planned (%zu)",
				 i, cap);
			goto bad;
		}
		memset(r, 0, sizeof *r);
		r->status = st;
		copy_str(r->reason, sizeof r->reason, json_object_get(rj, "reason"));
		r->iterations = (unsigned long long)json_integer_value(json_object_get(point, "iterations"));
		load_placement(point, r);
		r->cpu = json_is_integer(cpu) ? (int)json_integer_value(cpu) : -1;
		r->elapsed_s = num_or_nan(json_object_get(rj, "elapsed_s"));
		r->started_s = num_or_nan(json_object_get(rj, "started_s"));
		r->round = (int)i;
		r->warmup_taken = (int)json_integer_value(json_object_get(rj, "warmup_taken"));
		copy_str(r->warmup_reason, sizeof r->warmup_reason, json_object_get(rj, "warmup_reason"));
		n++;
		if (load_samples(point, (int)i, lp, r) < 0) {
			snprintf(err, errlen, "out of memory");
			goto bad;
		}
	}
	return (int)n;
bad:
	for (size_t k = 0; k < n; k++)
		exec_result_free(&out[k]);
	return -1;
}

/* The saved point p must be the plan's point p: same index, same values. */
static int same_point(const struct spec *s, const struct plan_point *pt, const json_t *pj)
{
	json_t *want = results_params(s, pt, 1);
	int same = json_integer_value(json_object_get(pj, "index")) == (json_int_t)pt->index &&
		   json_equal(want, json_object_get(pj, "params_text"));

	json_decref(want);
	return same;
}

int results_restore_rounds(const json_t *saved, const struct spec *s,
			   const struct loaded_probe *lp, const struct plan_point *pts,
			   size_t n_pts, int planned, struct point_result **rounds,
			   size_t *n_rounds, char *err, size_t errlen)
{
	const json_t *points = json_object_get(saved, "points");
	char why[512];
	size_t kept = 0;

	for (size_t p = 0; p < n_pts && p < json_array_size(points); p++) {
		const json_t *pj = json_array_get(points, p);
		int n;

		if (!same_point(s, &pts[p], pj)) {
			snprintf(err, errlen, "point %zu of '%s' is not the one the saved spec plans now",
				 p, s->name);
			goto bad;
		}
		if ((n = results_point_rounds(pj, lp, rounds[p], (size_t)planned, why,
					      sizeof why)) < 0) {
			snprintf(err, errlen, "point %zu: %s", p, why);
			goto bad;
		}
		n_rounds[p] = (size_t)n;
		kept += (size_t)n;
	}
	return (int)kept;
bad:
	for (size_t p = 0; p < n_pts; p++) {
		for (size_t r = 0; r < n_rounds[p]; r++)
			exec_result_free(&rounds[p][r]);
		n_rounds[p] = 0;
	}
	return -1;
}
