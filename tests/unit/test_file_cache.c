/*
 * test_file_cache.c - results_file_cache (results/file_cache.c): the file
 * cache's size fitted to the miss shares where the probe reports them, and
 * to the times where it does not.
 * The figures are those of a fresh root where the device time moved
 * between sizes (the host's cache of the disk image): 320 and 512 MiB at
 * 11.8 and 14.4 us per block with 79 % and 49 % of each file cached, under
 * a 256 MiB limit.  One device time fitted to those times puts the cache
 * near 124 MiB; the reads that missed put it at the 254 MiB mincore counted.
 */
#include <math.h>
#include <string.h>

#include <jansson.h>

#include "results/file_cache.h"
#include "tap.h"

#define MiB (1024.0 * 1024.0)

/* A point of `mib` MiB: its estimate (us per block), the share cached
   before the pass, and the share of reads that hit (< 0: not reported). */
static json_t *point(double mib, double us, double resident, double hit)
{
	json_t *extra = json_pack("{s:{s:f},s:{s:f},s:{s:f},s:{s:f}}", "resident", "median",
				  resident, "mem_total", "median", 24e9, "mem_available", "median",
				  23e9, "cached", "median", 5e7);

	if (hit >= 0) {
		json_object_set_new(extra, "hit_share", json_pack("{s:f}", "median", hit));
		json_object_set_new(extra, "cal_cached_us", json_pack("{s:f}", "median", 0.4));
		json_object_set_new(extra, "cal_device_us", json_pack("{s:f}", "median", 20.0));
	}
	return json_pack("{s:{s:f,s:f},s:f,s:o}", "params", "size", mib * MiB, "limit", 256 * MiB,
			 "estimate", us, "extra", extra);
}

static double knee_mib(json_t *f)
{
	json_t *k = json_object_get(f, "knee_bytes");

	return json_is_number(k) ? json_number_value(k) / MiB : NAN;
}

static const char *fitted(json_t *f)
{
	const char *s = json_string_value(json_object_get(f, "fitted_to"));

	return s ? s : "";
}

int main(void)
{
	json_t *pts, *f;

	/* the fresh root's curve, with the reads that hit */
	pts = json_pack("[oooo]", point(64, 0.655, 1, 1), point(128, 0.66, 1, 1),
			point(320, 11.8, 0.79, 0.79), point(512, 14.4, 0.49, 0.49));
	f = results_file_cache(pts, "size", "us");
	ok(f != NULL, "a finding");
	ok(!strcmp(fitted(f), "miss_share"), "fitted to the miss shares (%s)", fitted(f));
	ok(fabs(knee_mib(f) - 252) < 6, "the cache near what mincore counted: %.1f MiB",
	   knee_mib(f));
	ok(strstr(json_string_value(json_object_get(f, "summary")), "share of reads that missed") !=
	   NULL, "the summary says how it was fitted");
	json_decref(f);
	json_decref(pts);

	/* the same times without shares: one device time for both sizes
	   places the cache far below the limit (what the shares correct) */
	pts = json_pack("[oooo]", point(64, 0.655, 1, -1), point(128, 0.66, 1, -1),
			point(320, 11.8, 0.79, -1), point(512, 14.4, 0.49, -1));
	f = results_file_cache(pts, "size", "us");
	ok(!strcmp(fitted(f), "time"), "without shares, fitted to the times (%s)", fitted(f));
	ok(knee_mib(f) > 100 && knee_mib(f) < 150, "the time fit: %.1f MiB", knee_mib(f));
	json_decref(f);
	json_decref(pts);

	/* one size past the knee: the shares place it; the times only bracket */
	pts = json_pack("[ooo]", point(64, 0.7, 1, 1), point(128, 0.7, 1, 1),
			point(320, 12.0, 0.79, 0.79));
	f = results_file_cache(pts, "size", "us");
	ok(fabs(knee_mib(f) - 252.8) < 3, "one size past the knee, by shares: %.1f MiB",
	   knee_mib(f));
	json_decref(f);
	json_decref(pts);
	pts = json_pack("[ooo]", point(64, 0.7, 1, -1), point(128, 0.7, 1, -1),
			point(320, 12.0, 0.79, -1));
	f = results_file_cache(pts, "size", "us");
	ok(isnan(knee_mib(f)), "one size past the knee, by times: bracketed, no size");
	ok(strstr(json_string_value(json_object_get(f, "summary")), "only one size") != NULL,
	   "and the summary says so");
	json_decref(f);
	json_decref(pts);

	/* a point without shares (a calibration that could not split) sends
	   the whole curve back to the times */
	pts = json_pack("[oooo]", point(64, 0.655, 1, 1), point(128, 0.66, 1, 1),
			point(320, 11.8, 0.79, -1), point(512, 14.4, 0.49, 0.49));
	f = results_file_cache(pts, "size", "us");
	ok(!strcmp(fitted(f), "time"), "one point without a share: the times (%s)", fitted(f));
	json_decref(f);
	json_decref(pts);
	return done_testing();
}
