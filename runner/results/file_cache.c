/*
 * file_cache.c - the `file_cache` finding (file_cache.h): where the
 * second-read time of a file turns from memory speed to device speed, read
 * from the whole curve, beside what the kernel said at the start.
 *
 * The kernel's two LRU lists make the knee soft (past the limit part of
 * the file stays cached, so the curve climbs over one or two sizes): a
 * single step between two sizes would place it by luck.  So the size is
 * fitted to the whole curve: with a cache of C bytes, a random block of a
 * file of F > C bytes misses with probability 1 - C/F, so the mean time per
 * block is y(F) = L + (D - L) max(0, 1 - C/F), L the cached time (the
 * smallest y) and D the device time.  For each C on a fine log grid the
 * best D is a weighted least-squares solution in closed form (weights
 * 1/y^2: relative errors, since y spans two orders of magnitude); the C
 * with the smallest residual is the finding.  The probe's own count of
 * cached pages (mincore before each pass, metric `resident`) gives a
 * second, direct estimate: the most of a file found cached.
 *
 * Where the probe also says which reads missed (metric `hit_share`: reads
 * slower than a split calibrated at setup between a cached and a device
 * read), C is fitted to the miss shares instead, max(0, 1 - C/F) against
 * 1 - hit_share: the device time then drops out of the fit.  It must: on a
 * virtual disk the device time is the host's and moves between sizes (a
 * fresh root measured 320 and 512 MiB at 11.8 and 14.4 us per block, where
 * one D fitted C = 124 MiB against 254 MiB counted cached).  Without shares
 * (order sequential, a device no slower than the cache) the time fit stays.
 */
#include "results/file_cache.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/units.h"
#include "results/results.h"

#define FC_MIN_RISE 3.0		/* slowest / fastest below this: no knee to find */

struct fc_pt {
	double x, y, resident, miss, split;	/* miss, split: NAN without hit_share */
};

static int by_x(const void *a, const void *b)
{
	double d = ((const struct fc_pt *)a)->x - ((const struct fc_pt *)b)->x;

	return (d > 0) - (d < 0);
}

static double extra_median(const json_t *p, const char *name)
{
	const json_t *v = json_object_get(json_object_get(json_object_get(p, "extra"), name), "median");

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static void size_text(double bytes, char *buf, size_t len)
{
	if (isfinite(bytes))
		units_format_size_short(bytes, buf, len);
	else
		snprintf(buf, len, "n/a");
}

/* The best D for a given miss share per point: weighted least squares of
   y - L = (D - L) miss in closed form. */
static double device_for(const struct fc_pt *pt, size_t m, double lo, const double *miss)
{
	double num = 0, den = 0;

	for (size_t i = 0; i < m; i++) {
		double w = 1 / (pt[i].y * pt[i].y);

		num += w * miss[i] * (pt[i].y - lo);
		den += w * miss[i] * miss[i];
	}
	return lo + (den > 0 ? num / den : 0);
}

/* The C that fits pt[] best on a log grid from F_min/4 to 4 F_max: to the
   measured miss shares where by_share (plain least squares: shares are
   0..1 at every size), else to the times (relative least squares, with
   the D of each C in closed form).  *device is the D of the best C. */
#define FC_GRID 2000
static double fit_cache(const struct fc_pt *pt, size_t m, double lo, int by_share,
			double *device)
{
	double c_lo = pt[0].x / 4, c_hi = pt[m - 1].x * 4, best = INFINITY, best_c = NAN;
	double *miss = calloc(m, sizeof *miss);

	*device = NAN;
	if (!miss)
		return NAN;
	for (int g = 0; g <= FC_GRID; g++) {
		double c = c_lo * pow(c_hi / c_lo, (double)g / FC_GRID), r = 0, d;

		for (size_t i = 0; i < m; i++)
			miss[i] = fmax(0, 1 - c / pt[i].x);
		d = by_share ? 0 : device_for(pt, m, lo, miss);
		for (size_t i = 0; i < m; i++) {
			double e = by_share ? pt[i].miss - miss[i]
					    : (pt[i].y - lo - (d - lo) * miss[i]) / pt[i].y;

			r += e * e;
		}
		if (r < best) {
			best = r;
			best_c = c;
		}
	}
	for (size_t i = 0; i < m; i++)
		miss[i] = by_share ? pt[i].miss : fmax(0, 1 - best_c / pt[i].x);
	*device = device_for(pt, m, lo, miss);
	free(miss);
	return best_c;
}

json_t *results_file_cache(const json_t *points, const char *xname, const char *unit)
{
	size_t n = json_array_size(points), m = 0, i;
	struct fc_pt *pt = calloc(n + 1, sizeof *pt);
	const json_t *p, *first = NULL;
	double lo = INFINITY, hi = 0, knee = NAN, from = NAN, to = NAN, best = NAN, best_at = NAN;
	double limit = NAN, total = NAN, avail = NAN, cached = NAN;
	double split_lo = INFINITY, split_hi = 0;
	int by_share = 1;
	char s1[32], s2[32], s3[32], s4[32], s5[32], s6[32], text[2000];
	json_t *out;

	if (!pt)
		return NULL;
	json_array_foreach(points, i, p) {
		const json_t *e = json_object_get(p, "estimate");
		const json_t *x = json_object_get(json_object_get(p, "params"), xname);
		/* a probe that sizes the file itself (fs_cache's size_avail, a
		   fraction of MemAvailable) says how many bytes it read */
		double xb = extra_median(p, "file_bytes");

		if (!first)
			first = p;
		if (!json_is_number(e) || !(json_is_number(x) || isfinite(xb)) ||
		    !(json_number_value(e) > 0))
			continue;
		pt[m++] = (struct fc_pt){ isfinite(xb) ? xb : json_number_value(x),
					  json_number_value(e), extra_median(p, "resident"),
					  1 - extra_median(p, "hit_share"),
					  sqrt(extra_median(p, "cal_cached_us") *
					       extra_median(p, "cal_device_us")) };
	}
	qsort(pt, m, sizeof *pt, by_x);
	if (first) {
		const json_t *l = json_object_get(json_object_get(first, "params"), "limit");

		limit = json_is_number(l) ? json_number_value(l) : NAN;
		total = extra_median(first, "mem_total");
		avail = extra_median(first, "mem_available");
		cached = extra_median(first, "cached");
	}
	for (i = 0; i < m; i++) {
		lo = fmin(lo, pt[i].y);
		hi = fmax(hi, pt[i].y);
		if (isfinite(pt[i].resident) && !(pt[i].resident * pt[i].x <= best)) {
			best = pt[i].resident * pt[i].x;
			best_at = pt[i].x;
		}
		by_share &= isfinite(pt[i].miss) && isfinite(pt[i].split);
		split_lo = fmin(split_lo, pt[i].split);
		split_hi = fmax(split_hi, pt[i].split);
	}

	size_text(total, s4, sizeof s4);
	size_text(avail, s5, sizeof s5);
	size_text(cached, s6, sizeof s6);
	if (m < 3 || !(hi >= FC_MIN_RISE * lo)) {
		snprintf(text, sizeof text,
			 "No knee: %s. The kernel at the start: MemTotal %s, MemAvailable %s, "
			 "Cached %s.",
			 m < 3 ? "fewer than three sizes have a number"
			       : "the second read is about as slow at every size (the largest is "
				 "less than 3x the smallest): every size fitted in the cache, or none did",
			 s4, s5, s6);
		out = json_pack("{s:s,s:o,s:o,s:o,s:o,s:o,s:s}", "param", xname,
				"knee_bytes", json_null(), "limit_bytes", results_num(limit),
				"mem_total", results_num(total), "mem_available", results_num(avail),
				"cached", results_num(cached), "summary", text);
		free(pt);
		return out;
	}
	double device;
	knee = fit_cache(pt, m, lo, by_share, &device);
	for (i = 0; i < m && pt[i].y <= 2 * lo; i++)
		from = pt[i].x;
	for (i = 0; i < m; i++)
		if (pt[i].y >= hi / 2) {
			to = pt[i].x;
			break;
		}
	/* Sizes the time fit says miss noticeably (its model at least twice
	   the cached time): one alone cannot separate C from D.  The miss
	   shares need no D, so one size past the knee places it. */
	size_t beyond = 0;
	for (i = 0; i < m && !by_share; i++)
		beyond += (1 - knee / pt[i].x) * (device - lo) > lo;
	if (beyond == 1 && isfinite(from) && isfinite(to)) {
		/* One size past the knee: C and D trade off exactly (any C below
		   that size fits with some D), so the curve only brackets it. */
		char a[32], b[32];

		size_text(from, a, sizeof a);
		size_text(to, b, sizeof b);
		size_text(best, s3, sizeof s3);
		snprintf(text, sizeof text,
			 "The second read turns from cached (%.3g %s) to device speed (%.3g %s per block) "
			 "between %s and %s; only one size lies past the knee, which cannot place it "
			 "closer (add sizes between them). Counted directly (mincore before each pass), "
			 "at most %s of a file stayed cached. The kernel at the start: MemTotal %s, "
			 "MemAvailable %s, Cached %s.", lo, unit, hi, unit, a, b, s3, s4, s5, s6);
		knee = NAN;
	} else if (!(knee < pt[m - 1].x) || !(knee > pt[0].x / 4)) {
		size_text(pt[0].x, s1, sizeof s1);
		size_text(pt[m - 1].x, s2, sizeof s2);
		snprintf(text, sizeof text,
			 "No cache size fits inside the sizes measured (%s to %s): the second read "
			 "%s. The kernel at the start: MemTotal %s, MemAvailable %s, Cached %s.", s1,
			 s2, knee >= pt[m - 1].x ? "is still mostly cached at the largest size"
						 : "misses already at the smallest size", s4, s5, s6);
		knee = NAN;
	} else {
		int has_limit = isfinite(limit) && limit > 0;
		double ref = has_limit ? limit : avail, q = knee / ref;
		char range[96] = "", direct[200] = "", why[600];

		size_text(knee, s1, sizeof s1);
		size_text(ref, s2, sizeof s2);
		if (isfinite(from) && isfinite(to)) {
			char a[32], b[32];

			size_text(from, a, sizeof a);
			size_text(to, b, sizeof b);
			snprintf(range, sizeof range, "; the curve climbs between %s and %s", a, b);
		}
		if (isfinite(best)) {
			char bat[32];

			size_text(best, s3, sizeof s3);
			size_text(best_at, bat, sizeof bat);
			snprintf(direct, sizeof direct,
				 " Counted directly (mincore before each pass), at most %s of a file "
				 "stayed cached (the %s file).", s3, bat);
		}
		if (has_limit)
			snprintf(why, sizeof why,
				 "The probe ran in a memory cgroup limited to %s, so this is that "
				 "cgroup's file cache, not the machine's. %s The machine's own page "
				 "cache is measured by specs/opt-in/file_cache_machine.yaml (make "
				 "run-opt-in), with sizes past MemAvailable.", s2,
				 q < 0.97 ? "It is below the limit because the cgroup also charges the "
					    "probe's own memory and kernel memory (page tables, slab)."
				 : q <= 1.03 ? "It is the limit, within 3 %."
					     : "It is above the limit, which the cgroup's cache cannot be: "
					       "the kernel's active and inactive lists keep more of a file "
					       "than the model assumes near the knee, so the fit is rough "
					       "there; trust the mincore count.");
		else
			snprintf(why, sizeof why,
				 "Without a limit the cache can take about MemAvailable (%s, the kernel's "
				 "own estimate of what the page cache can grow to without swapping), not "
				 "MemTotal: the kernel, other processes and their pages hold the rest.",
				 s2);
		char how[400];

		if (by_share)
			snprintf(how, sizeof how,
				 "fitted to the share of reads that missed at each size, a miss being a "
				 "read slower than %.3g-%.3g %s, between a cached and a device read timed "
				 "at each size's setup", split_lo, split_hi, unit);
		else
			snprintf(how, sizeof how, "fitted to the time per block at every size");
		snprintf(text, sizeof text,
			 "The file cache that explains the curve is about %s, %.2f times %s (%s: a random "
			 "block of a file larger than the cache C misses with probability 1 - C/size; "
			 "cached read %.3g %s, device read %.3g %s per block%s).%s %s The kernel at the "
			 "start: MemTotal %s, MemAvailable %s, Cached %s.",
			 s1, q, has_limit ? "the limit" : "MemAvailable", how, lo, unit, device, unit,
			 range, direct, why, s4, s5, s6);
		hi = device;
	}
	out = json_pack("{s:s,s:o,s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:s}",
			"param", xname, "knee_bytes", results_num(knee),
			"fitted_to", by_share ? "miss_share" : "time",
			"climb_from_bytes", results_num(from), "climb_to_bytes", results_num(to),
			"cached_level", results_num(lo), "device_level", results_num(hi),
			"most_cached_bytes", results_num(best), "most_cached_at", results_num(best_at),
			"limit_bytes", results_num(limit), "mem_total", results_num(total),
			"mem_available", results_num(avail), "cached", results_num(cached),
			"knee_over_reference",
			results_num(isfinite(knee) ? knee / (isfinite(limit) && limit > 0 ? limit : avail)
						   : NAN),
			"summary", text);
	free(pt);
	return out;
}
