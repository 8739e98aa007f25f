/*
 * scaling.c - N threads that beat N times one thread (results.h).
 *
 * A throughput that grows faster than its threads is not the memory's: the
 * threads' shares of a buffer fit a cache that one thread's did not, or a
 * library picked another method for the smaller size it got (glibc sizes
 * its non-temporal threshold from the cache it detects).  The point is
 * flagged, never corrected: the number is what was measured.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/jsonutil.h"
#include "results/results.h"

/* Every point above N x one thread is flagged: a reader must never see
   such a figure unexplained.  Within this margin the message says it may
   be noise (two runs of one thread differ by a few per cent); beyond it,
   that it is well past noise.  A Zen 5 guest's memset gave 2.06x. */
#define SCALING_MARGIN 0.10

/* Do two points agree on every parameter but `threads`? */
static int same_but_threads(json_t *a, json_t *b)
{
	const char *k;
	json_t *v;

	json_object_foreach(json_object_get(a, "params_text"), k, v)
		if (strcmp(k, "threads") != 0 &&
		    !json_equal(v, json_object_get(json_object_get(b, "params_text"), k)))
			return 0;
	return 1;
}

static json_int_t threads_of(json_t *p)
{
	json_t *t = json_object_get(json_object_get(p, "params"), "threads");

	return json_is_integer(t) ? json_integer_value(t) : 0;
}

size_t results_scaling_flags(json_t *result)
{
	json_t *pts = json_object_get(result, "points"), *p, *one = NULL;
	const char *unit = jsonutil_str(json_object_get(result, "probe"), "unit");
	size_t i, j, n = 0;

	if (!json_is_true(json_object_get(json_object_get(result, "probe"), "bigger_is_better")))
		return 0;
	json_array_foreach(pts, i, p) {
		json_int_t t = threads_of(p);
		double est = jsonutil_num(p, "estimate"), base;
		char msg[512];

		if (t < 2 || !isfinite(est))
			continue;
		json_array_foreach(pts, j, one)
			if (threads_of(one) == 1 && same_but_threads(p, one))
				break;
		if (j == json_array_size(pts))
			continue;
		base = jsonutil_num(one, "estimate");
		if (!(base > 0) || !(est > (double)t * base))
			continue;
		if (est > (double)t * base * (1 + SCALING_MARGIN))
			snprintf(msg, sizeof msg, "%lld threads gave %.3g %s, %.2fx one thread's %.3g %s "
				 "(more than %lld x): the threads' shares may fit a cache one thread's "
				 "did not, or the code took another path for the smaller share",
				 (long long)t, est, unit ? unit : "", est / base, base, unit ? unit : "",
				 (long long)t);
		else
			snprintf(msg, sizeof msg, "%lld threads gave %.3g %s, %.2fx one thread's %.3g %s "
				 "(more than %lld x, by less than the %.0f %% two runs of one thread can "
				 "differ): it may be noise, or the threads' shares fitting a cache one "
				 "thread's did not", (long long)t, est, unit ? unit : "", est / base,
				 base, unit ? unit : "", (long long)t, 100 * SCALING_MARGIN);
		json_t *sanity = json_object_get(p, "sanity");
		if (!json_is_array(sanity)) {
			sanity = json_array();
			jsonutil_set(p, "sanity", sanity);
		}
		jsonutil_append(sanity, json_pack("{s:s,s:o}", "flag", "superlinear_scaling",
						  "message", jsonutil_text(msg)));
		n++;
	}
	return n;
}
