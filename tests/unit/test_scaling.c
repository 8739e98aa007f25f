/*
 * test_scaling.c - results_scaling_flags (results/scaling.c): N threads
 * beating N x one thread is flagged, per point, against the one-thread
 * point with the same other parameters; within N x (+10 %) the message
 * says it may be noise; at or below N x it is not flagged.
 * The figures are shaped on the run that made the check: memset 23.5 GB/s
 * with one thread, 77.3 with two.
 */
#include <string.h>

#include <jansson.h>

#include "results/results.h"
#include "tap.h"

static json_t *point(const char *op, int threads, double est)
{
	return json_pack("{s:{s:s,s:i},s:{s:s,s:s},s:f,s:[]}", "params", "op", op, "threads",
			 threads, "params_text", "op", op, "threads", threads == 1 ? "1" : "2",
			 "estimate", est, "sanity");
}

static int flagged(json_t *p)
{
	json_t *f;
	size_t i;

	json_array_foreach(json_object_get(p, "sanity"), i, f)
		if (!strcmp(json_string_value(json_object_get(f, "flag")), "superlinear_scaling"))
			return 1;
	return 0;
}

int main(void)
{
	json_t *r = json_pack("{s:{s:b,s:s},s:[oooooooo]}", "probe", "bigger_is_better", 1, "unit",
			      "GB/s", "points",
			      point("memset", 1, 23.5), point("memset", 2, 77.3),	/* 3.3x: flagged */
			      point("read", 1, 26.5), point("read", 2, 53.6),	/* 2.02x: may be noise */
			      point("copy", 1, 10.0), point("copy", 2, 22.1),	/* 2.21x: flagged */
			      point("write", 1, 31.0), point("write", 2, 62.0));	/* 2.00x: not */
	json_t *pts = json_object_get(r, "points");

	ok(results_scaling_flags(r) == 3, "three points beat 2 x one thread");
	ok(!flagged(json_array_get(pts, 0)) && flagged(json_array_get(pts, 1)),
	   "memset: 77.3 against 23.5 is flagged, on the 2-thread point");
	ok(flagged(json_array_get(pts, 5)), "copy: 22.1 against 10.0 (2.21x) is");
	ok(!flagged(json_array_get(pts, 7)), "write: 62.0 against 31.0 (2.00x) is not");
	const char *near = json_string_value(json_object_get(
		json_array_get(json_object_get(json_array_get(pts, 3), "sanity"), 0), "message"));
	ok(near && strstr(near, "2.02x one thread's 26.5 GB/s (more than 2 x, by less than the 10 % "
			  "two runs of one thread can differ): it may be noise"),
	   "read: 53.6 against 26.5 (2.02x) is flagged, and may be noise: %s", near ? near : "(none)");
	const char *far = json_string_value(json_object_get(
		json_array_get(json_object_get(json_array_get(pts, 5), "sanity"), 0), "message"));
	ok(far && !strstr(far, "may be noise"), "copy at 2.21x is past noise: %s", far ? far : "(none)");
	const char *msg = json_string_value(json_object_get(
		json_array_get(json_object_get(json_array_get(pts, 1), "sanity"), 0), "message"));
	ok(msg && strstr(msg, "2 threads gave 77.3 GB/s, 3.29x one thread's 23.5 GB/s"),
	   "the message gives the figures: %s", msg ? msg : "(none)");
	json_decref(r);

	/* a time (smaller is better) is never a throughput that scales */
	r = json_pack("{s:{s:b},s:[oo]}", "probe", "bigger_is_better", 0, "points",
		      point("read", 1, 1.0), point("read", 2, 9.0));
	ok(results_scaling_flags(r) == 0, "a time is not checked");
	json_decref(r);
	return done_testing();
}
