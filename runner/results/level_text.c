/*
 * level_text.c - a run's speed against the machine's other runs in words
 * (results.h): one phrase for the summary line, the report's sentences
 * and its environment row, so that they never say it differently.
 */
#include "results/results.h"

#include <stdio.h>
#include <string.h>

const char *results_level_ratios(const json_t *o, char *buf, size_t len)
{
	json_t *c = json_object_get(o, "canary_ratio"), *k = json_object_get(o, "core_ratio");
	int n = 0;

	if (!len)
		return buf;
	buf[0] = 0;
	if (json_is_number(c))
		n = snprintf(buf, len, "canary %.2fx", json_number_value(c));
	if (json_is_number(k) && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "%score clock %.2fx", n ? ", " : "",
			      json_number_value(k));
	/* the cross-CPU wake-up: said where it is known */
	json_t *w = json_object_get(o, "wake_ratio");
	if (json_is_number(w) && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "%scross-CPU wake-up %.2fx", n ? ", " : "",
			 json_number_value(w));
	return buf;
}

const char *results_level_bands(const json_t *o, char *buf, size_t len)
{
	json_t *w = json_object_get(o, "wake_threshold");

	snprintf(buf, len, "threshold %.0f %%", 100 * json_number_value(json_object_get(o, "threshold")));
	if (json_is_number(w) && json_is_number(json_object_get(o, "wake_ratio"))) {
		size_t n = strlen(buf);

		snprintf(buf + n, len - n, ", %.0f %% for the cross-CPU wake-up",
			 100 * json_number_value(w));
	}
	return buf;
}
