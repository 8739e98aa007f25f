/*
 * report_knees.c - the knees finding in the view (report_knees.h).
 */
#include "report/report_knees.h"
#include "report/report_points.h"
#include "report/report_view.h"
#include "lib/jsonutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "L1 32 KiB, L2 1 MiB, L3 32 MiB": the data/unified caches sysfs lists. */
static json_t *vsysfs_all(json_t *sysfs)
{
	char *buf = NULL, sz[64];
	size_t len = 0, i, n = 0;
	FILE *f = open_memstream(&buf, &len);
	json_t *sf, *out;

	json_array_foreach(sysfs, i, sf) {
		const char *type = jsonutil_str(sf, "type");

		if (type && strcmp(type, "Instruction") == 0)
			continue;
		report_view_size_text(jsonutil_num(sf, "size_bytes"), sz, sizeof sz);
		fprintf(f, "%sL%.0f %s", n++ ? ", " : "", jsonutil_num(sf, "level"), sz);
	}
	fclose(f);
	out = report_view_line(n ? buf : REPORT_VIEW_DASH);
	free(buf);
	return out;
}

/* One found level, with the size sysfs gives for the same level. */
static json_t *level_row(json_t *lvl, json_t *sysfs, const struct report_unit *d)
{
	json_t *r = json_object(), *sf;
	const char *name = jsonutil_str(lvl, "name");
	double lat = jsonutil_num(lvl, "latency");
	size_t j;
	int level = 0;

	double knee = jsonutil_num(lvl, "knee_bytes");
	const char *note = jsonutil_str(lvl, "note");

	report_view_put(r, "found", json_true());
	report_view_put(r, "level", report_view_line(name ? name : "?"));
	/* the knee (where the curve has risen a level's 1.5x) where there is
	   one: a cache of that size is full there */
	report_view_put(r, "size", report_view_size(isfinite(knee) ? knee : jsonutil_num(lvl, "size_bytes")));
	report_view_put(r, "note", report_view_line(note ? note : ""));
	report_view_put(r, "latency", report_view_num_unit(lat * d->scale, d->label));
	report_view_put(r, "cycles", isfinite(d->cyc) ? report_view_num(lat * d->cyc) : report_view_str(REPORT_VIEW_DASH));
	report_view_put(r, "sysfs", report_view_str(REPORT_VIEW_DASH));
	if (name && (name[0] == 'L' || name[0] == 'l'))
		level = atoi(name + 1);
	json_array_foreach(sysfs, j, sf) {
		const char *type = jsonutil_str(sf, "type");

		if (level > 0 && jsonutil_num(sf, "level") == level &&
		    (!type || strcmp(type, "Instruction") != 0)) {
			report_view_put(r, "sysfs", report_view_size(jsonutil_num(sf, "size_bytes")));
			break;
		}
	}
	return r;
}

json_t *report_knees_view(json_t *knees, json_t *spec, const struct report_unit *d)
{
	json_t *out = json_array(), *series = json_object_get(knees, "series"), *s;
	const char *key, *sparam = jsonutil_str(json_object_get(spec, "chart"), "series");
	const char *kparam = jsonutil_str(knees, "param");
	json_t *swept = report_points_swept(spec);
	size_t i;

	/* what the series values are values of: the chart's series, else the
	   first swept parameter that is not the knees' own */
	if (!sparam) {
		json_t *n;

		json_array_foreach(swept, i, n)
			if (!kparam || strcmp(json_string_value(n), kparam) != 0) {
				sparam = json_string_value(n);
				break;
			}
	}
	json_object_foreach(series, key, s) {
		json_t *k = json_object(), *rows = json_array(), *lvl;
		json_t *sysfs = json_object_get(s, "sysfs");

		/* keys are "64" or already "stride=64" */
		report_view_put(k, "series", sparam && !strchr(key, '=') ?
			 report_view_strf("%s=%s", sparam, key) : report_view_line(key));
		json_array_foreach(json_object_get(s, "levels"), i, lvl)
			jsonutil_append(rows, level_row(lvl, sysfs, d));
		json_array_foreach(json_object_get(s, "missing"), i, lvl) {
			json_t *r = json_object();

			report_view_put(r, "found", json_false());
			report_view_put(r, "level", report_view_strf("L%.0f", jsonutil_num(lvl, "level")));
			report_view_put(r, "size", report_view_str("not found"));
			report_view_put(r, "latency", report_view_str(REPORT_VIEW_DASH));
			report_view_put(r, "cycles", report_view_str(REPORT_VIEW_DASH));
			report_view_put(r, "sysfs", report_view_size(jsonutil_num(lvl, "size_bytes")));
			report_view_put(r, "note", report_view_str("no plateau of its own on this curve"));
			jsonutil_append(rows, r);
		}
		if (json_is_false(json_object_get(s, "memory_reached")) && json_array_size(rows)) {
			json_t *r = json_object();

			report_view_put(r, "found", json_false());
			report_view_put(r, "level", report_view_str("Memory"));
			report_view_put(r, "size", report_view_str("not reached"));
			report_view_put(r, "latency", report_view_str(REPORT_VIEW_DASH));
			report_view_put(r, "cycles", report_view_str(REPORT_VIEW_DASH));
			report_view_put(r, "sysfs", report_view_str(REPORT_VIEW_DASH));
			report_view_put(r, "note", report_view_str("no plateau at DRAM latency (50 ns or more) "
								   "within the sizes measured"));
			jsonutil_append(rows, r);
		}
		if (json_array_size(rows) == 0) {
			json_t *r = json_object();

			report_view_put(r, "found", json_false());
			report_view_put(r, "level", report_view_str("no knee found"));
			report_view_put(r, "size", report_view_str(REPORT_VIEW_DASH));
			report_view_put(r, "latency", report_view_str(REPORT_VIEW_DASH));
			report_view_put(r, "cycles", report_view_str(REPORT_VIEW_DASH));
			report_view_put(r, "sysfs", vsysfs_all(sysfs));
			report_view_put(r, "note", report_view_str(""));
			jsonutil_append(rows, r);
		}
		report_view_put(k, "rows", rows);
		jsonutil_append(out, k);
	}
	json_decref(swept);
	return out;
}
