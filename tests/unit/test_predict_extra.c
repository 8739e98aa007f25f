/*
 * test_predict_extra.c - a prediction formula may name a value the point's
 * probe recorded (the median of a secondary value in the point's `extra`,
 * as task_create's parent_mappings and parent_rss_bytes), with its source
 * said; a point without it names it as missing; and those names are known
 * to the formula language, so a spec using them validates.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "tap.h"
#include "spec/spec.h"
#include "results/results.h"

/* A result of one point with `software` as its formula and `extra` as its
   recorded secondary values (NULL: none). */
static json_t *one_point(const char *software, json_t *extra)
{
	json_t *res = json_pack("{s:{s:s,s:[]},s:[{s:{s:s},s:{s:s},s:f,s:s,s:[],"
				"s:{s:{s:s,s:s,s:n}}}]}",
		"probe", "unit", "us", "params",
		"points", "params", "method", "fork", "params_text", "method", "fork",
		"estimate", 100.0, "status", "ok", "sanity",
		"prediction", "formula", "hardware", "0ns", "software", software, "value");

	if (extra)
		json_object_set_new(json_array_get(json_object_get(res, "points"), 0), "extra", extra);
	return res;
}

static const json_t *source_of(const json_t *pred, const char *name)
{
	size_t i;
	const json_t *s;

	json_array_foreach(json_object_get(pred, "sources"), i, s)
		if (!strcmp(json_string_value(json_object_get(s, "name")) ?: "", name))
			return s;
	return NULL;
}

int main(void)
{
	json_t *machine = json_pack("{s:{s:s,s:i,s:i},s:f}", "cpu", "vendor", "AuthenticAMD",
				    "family", 25, "model", 33, "tsc_hz", 3e9);
	json_t *by = json_object();

	/* the names are known: a spec formula using them binds */
	ok(spec_expr_name("parent_mappings") != NULL, "parent_mappings is a formula name");
	ok(spec_expr_name("parent_rss_bytes") != NULL, "parent_rss_bytes is a formula name");
	ok(spec_expr_name("parent_rss_bytes") &&
	   spec_expr_name("parent_rss_bytes")->qty == SPEC_Q_BYTES, "  rss is in bytes");

	/* the point's recorded value: extra.NAME.median */
	{
		json_t *extra = json_pack("{s:{s:f,s:f},s:{s:f,s:f}}",
			"parent_mappings", "median", 12.0, "mean", 12.5,
			"parent_rss_bytes", "median", 724992.0, "mean", 7e5);
		json_t *res = one_point("parent_mappings * 2us + parent_rss_bytes / 1GB * 1s", extra);
		json_t *pred;
		const json_t *src;

		results_predict(res, machine, by);
		pred = json_object_get(json_array_get(json_object_get(res, "points"), 0), "prediction");
		is_num(json_number_value(json_object_get(pred, "value")),
		       12 * 2 + 724992.0 / 1e9 * 1e6, 1e-9, "the formula uses the recorded medians");
		ok(json_is_null(json_object_get(pred, "missing")), "  nothing missing");
		src = source_of(pred, "parent_mappings");
		is_str(src ? json_string_value(json_object_get(src, "source")) : NULL,
		       "this point's parent_mappings (recorded by the probe)", "  its source is said");
		json_decref(res);
	}
	/* a point whose probe did not record it: named as missing, no value */
	{
		json_t *res = one_point("parent_mappings * 2us", NULL);
		json_t *pred;

		results_predict(res, machine, by);
		pred = json_object_get(json_array_get(json_object_get(res, "points"), 0), "prediction");
		is_str(json_string_value(json_object_get(pred, "missing")),
		       "parent_mappings (not recorded by this point's probe)", "an unrecorded value is missing");
		ok(json_is_null(json_object_get(pred, "value")), "  and there is no value");
		json_decref(res);
	}
	json_decref(by);
	json_decref(machine);
	return done_testing();
}
