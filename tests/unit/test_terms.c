/*
 * test_terms.c - a prediction's terms (results/predict.c over
 * spec_expr_eval_node): each part split at its top-level + and -, each
 * term evaluated alone, the terms summing to the prediction; and a rate's
 * parts as times per byte, the rate 1 / (hw + sw).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "tap.h"
#include "spec/spec.h"
#include "results/results.h"

static const char *machine_json =
	"{\"cpu\": {\"vendor\": \"GenuineIntel\", \"family\": 6, \"model\": 140},"
	" \"core_clock\": {\"hz\": 2e9, \"holds\": true}, \"tsc_hz\": 2e9}";

/* One point of a probe in `unit` with the formulas hw, sw (NULL: none),
   predicted over the machine above; the point's prediction. */
static json_t *predict(json_t **res, const char *unit, const char *hw, const char *sw, double est)
{
	json_error_t je;
	json_t *machine = json_loads(machine_json, 0, &je), *by = json_object();

	*res = json_pack("{s:{s:s,s:[]},s:[{s:{s:i},s:{s:s},s:f,s:s,s:[],"
			 "s:{s:s,s:{s:n,s:o,s:o}}}]}",
			 "probe", "unit", unit, "params", "points", "params", "msg_size", 4096,
			 "params_text", "msg_size", "4KiB", "estimate", est, "status", "ok", "sanity",
			 "prediction", "value_text", "", "formula", "value", "hardware",
			 hw ? json_string(hw) : json_null(), "software", sw ? json_string(sw) : json_null());
	results_predict(*res, machine, by);
	json_decref(machine);
	json_decref(by);
	return json_object_get(json_array_get(json_object_get(*res, "points"), 0), "prediction");
}

static double sum_of(json_t *terms, const char *key)
{
	double s = 0;
	json_t *t;
	size_t i;

	json_array_foreach(terms, i, t)
		s += json_number_value(json_object_get(t, key));
	return s;
}

static const char *term_str(json_t *pred, size_t i, const char *key)
{
	return json_string_value(json_object_get(json_array_get(json_object_get(pred, "terms"), i), key));
}

int main(void)
{
	json_t *res, *pred, *terms;

	/* a time: 4 terms over two parts, one of them subtracted */
	pred = predict(&res, "ns", "100cycles / core_hz + 2 * (50cycles + 10cycles) / core_hz",
		       "(300cycles - 100cycles) / core_hz - 20ns", 150);
	terms = json_object_get(pred, "terms");
	ok(json_array_size(terms) == 4, "four terms (got %zu)", json_array_size(terms));
	is_num(sum_of(terms, "value"), json_number_value(json_object_get(pred, "value")), 1e-9,
	       "the terms sum to the prediction");
	is_num(sum_of(terms, "share"), 1, 1e-12, "their shares sum to 1");
	is_num(json_number_value(json_object_get(pred, "value")), 50 + 60 + 100 - 20, 1e-9,
	       "the prediction: 50 + 60 + 100 - 20 ns");
	is_str(term_str(pred, 1, "text"), "2 * (50cycles + 10cycles) / core_hz",
	       "a term keeps its parentheses");
	is_str(term_str(pred, 1, "filled"), "2 * (50cycles + 10cycles) / 2 GHz = 60.0 ns",
	       "  and its filled text its value");
	is_str(term_str(pred, 2, "part"), "software", "the third is the software's");
	is_str(term_str(pred, 3, "text"), "- 20ns", "a subtracted term is negative");
	is_num(json_number_value(json_object_get(json_array_get(terms, 3), "value")), -20, 1e-9,
	       "  its value -20 ns");
	is_str(json_string_value(json_array_get(json_object_get(json_array_get(terms, 0), "names"), 0)),
	       "core_hz", "a term's names");
	json_decref(res);

	/* a rate: hw and sw are times per byte; the rate 1 / (hw + sw) */
	pred = predict(&res, "GB/s", "1 / (8B * core_hz)", "(1000cycles + 2 * 500cycles) / core_hz / msg_size",
		       5);
	{
		double hw = 1 / (8 * 2e9), sw = 2000 / 2e9 / 4096;
		json_t *pb = json_object_get(pred, "per_byte");

		is_num(json_number_value(json_object_get(pb, "hardware")), hw, 1e-20, "per byte: hardware s/B");
		is_num(json_number_value(json_object_get(pb, "software")), sw, 1e-20, "per byte: software s/B");
		is_num(json_number_value(json_object_get(pred, "value")), 1e-9 / (hw + sw), 1e-9,
		       "a rate's value is 1 / (hw + sw) per byte, in GB/s");
		is_num(json_number_value(json_object_get(pred, "hardware")), 1e-9 / hw, 1e-9,
		       "hardware: what it alone would allow");
		is_num(json_number_value(json_object_get(pred, "software")), 1e-9 / sw, 1e-9,
		       "software: what it alone would allow");
		terms = json_object_get(pred, "terms");
		ok(json_array_size(terms) == 2, "two terms (got %zu)", json_array_size(terms));
		is_num(sum_of(terms, "value"), hw + sw, 1e-20, "the terms sum to the time per byte");
		is_num(sum_of(terms, "share"), 1, 1e-12, "  their shares to 1");
		is_str(json_string_value(json_object_get(json_object_get(pred, "filled"), "hardware")),
		       "1 / (8B * 2 GHz) = 0.0625 ns/B", "the time per byte reads as ns/B");
		is_num(json_number_value(json_object_get(pred, "ratio")), 5 / (1e-9 / (hw + sw)), 1e-9,
		       "ratio: measured over the rate");
	}
	json_decref(res);

	/* evaluated again over other facts (runner report after a --machine
	   FILE), the total follows its parts: the first pass's value is not kept */
	pred = predict(&res, "ns", "100cycles / core_hz", "0ns", 50);
	{
		json_error_t je;
		json_t *machine = json_loads("{\"cpu\": {\"vendor\": \"GenuineIntel\", \"family\": 6, \"model\": 140},"
					     " \"core_clock\": {\"hz\": 4e9, \"holds\": true}}", 0, &je);
		json_t *by = json_object();

		is_num(json_number_value(json_object_get(pred, "value")), 50, 1e-9, "100 cycles at 2 GHz: 50 ns");
		results_predict(res, machine, by);
		is_num(json_number_value(json_object_get(pred, "value")), 25, 1e-9,
		       "  again at 4 GHz: 25 ns, not the first pass's 50");
		is_num(json_number_value(json_object_get(pred, "ratio")), 2, 1e-9, "  and the ratio with it");
		json_decref(machine);
		json_decref(by);
	}
	json_decref(res);

	/* a rate with a written value keeps its parts as rates */
	pred = predict(&res, "GB/s", "8B * core_hz", NULL, 5);
	json_object_set_new(json_object_get(pred, "formula"), "value", json_string("8B * core_hz / 2"));
	{
		json_error_t je;
		json_t *machine = json_loads(machine_json, 0, &je), *by = json_object();

		results_predict(res, machine, by);
		json_decref(machine);
		json_decref(by);
	}
	is_num(json_number_value(json_object_get(pred, "value")), 8, 1e-9, "a written value: 8 GB/s");
	is_num(json_number_value(json_object_get(pred, "hardware")), 16, 1e-9, "  hardware a rate, 16 GB/s");
	ok(!json_object_get(pred, "per_byte"), "  no per_byte");
	ok(json_is_null(json_object_get(json_array_get(json_object_get(pred, "terms"), 0), "share")),
	   "  rates do not add: no share");
	json_decref(res);
	return done_testing();
}
