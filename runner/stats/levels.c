/*
 * levels.c - naming and placing the levels of a latency-by-working-set
 * curve (stats_levels_name, stats.h).
 *
 * stats_knees finds plateaus; rank alone names them wrongly on real
 * machines: a stride-4096 curve on an Intel guest has an L3-plus-page-walk
 * plateau at 35-50 ns and never reaches a DRAM plateau inside 512 MiB, so
 * "the last plateau is Memory" called L3 memory; an L2 whose plateau
 * degrades early (physically indexed, random page colours) ends two sweep
 * steps before the size sysfs reports.  So:
 *  - Memory is a latency fact, not a rank: the first plateau at or above
 *    the DRAM floor; none, and the curve did not reach memory.
 *  - A cache plateau takes the reported level (above the previous one)
 *    whose size is nearest its knee, so a level with no plateau of its own
 *    is missing, not a neighbour renamed.
 *  - A level's size is its knee, where the curve has climbed half-way (in
 *    log) to the next level: half of the working set then misses, which is
 *    where a cache of that size sits on a curve sampled in steps.
 */
#include "stats/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct xy {
	double x, y;
};

static int by_x(const void *a, const void *b)
{
	double d = ((const struct xy *)a)->x - ((const struct xy *)b)->x;

	return (d > 0) - (d < 0);
}

static void size_text(double b, char *buf, size_t len)
{
	if (b >= 1024.0 * 1024 * 1024)
		snprintf(buf, len, "%.3g GiB", b / (1024.0 * 1024 * 1024));
	else if (b >= 1024.0 * 1024)
		snprintf(buf, len, "%.3g MiB", b / (1024.0 * 1024));
	else
		snprintf(buf, len, "%.3g KiB", b / 1024.0);
}

/* The first x past `from` where the curve reaches `target` (log-log
   interpolated between the neighbouring points); NaN when it does not. */
static double crossing(const struct xy *p, size_t m, double from, double target)
{
	for (size_t i = 1; i < m; i++) {
		if (p[i].x <= from || p[i - 1].y >= target || p[i].y < target)
			continue;
		double f = (log(target) - log(p[i - 1].y)) / (log(p[i].y) - log(p[i - 1].y));
		return exp(log(p[i - 1].x) + f * (log(p[i].x) - log(p[i - 1].x)));
	}
	return NAN;
}

/* The sweep step around x: the ratio of the sampled sizes that bracket it. */
static double step_at(const struct xy *p, size_t m, double x)
{
	for (size_t i = 1; i < m; i++)
		if (p[i].x >= x)
			return p[i].x / p[i - 1].x;
	return m >= 2 ? p[m - 1].x / p[m - 2].x : 2;
}

size_t stats_levels_name(struct stats_level *lv, size_t n, const double *x, const double *y,
			 size_t m, double dram, const struct stats_cache *caches, size_t nc,
			 struct stats_cache *missing, size_t nmiss)
{
	struct xy *p = calloc(m + 1, sizeof *p);
	size_t k = 0, mem = n, nmissing = 0;
	int prev = 0, *used = calloc(nc + 1, sizeof *used);

	if (!p || !used) {
		free(p);
		free(used);
		return 0;
	}
	for (size_t i = 0; i < m; i++)
		if (isfinite(x[i]) && isfinite(y[i]) && x[i] > 0 && y[i] > 0)
			p[k++] = (struct xy){ x[i], y[i] };
	qsort(p, k, sizeof *p, by_x);
	for (size_t i = 0; i < n; i++) {
		lv[i].knee = i + 1 < n ? crossing(p, k, lv[i].size, sqrt(lv[i].latency * lv[i + 1].latency))
				       : NAN;
		lv[i].sysfs = NAN;
		lv[i].within_step = 0;
		lv[i].note[0] = '\0';
		if (mem == n && lv[i].latency >= dram)
			mem = i;
	}
	for (size_t i = 0; i < n; i++) {
		if (i == mem) {
			snprintf(lv[i].name, sizeof lv[i].name, "Memory");
			continue;
		}
		if (i > mem) {
			snprintf(lv[i].name, sizeof lv[i].name, "Memory+TLB");
			continue;
		}
		double at = isfinite(lv[i].knee) ? lv[i].knee : lv[i].size, best = INFINITY;
		int pick = -1;

		for (size_t c = 0; c < nc; c++) {
			double d = fabs(log(caches[c].bytes / at));

			if (caches[c].level > prev && caches[c].bytes > 0 && d < best) {
				best = d;
				pick = (int)c;
			}
		}
		if (nc == 0) {
			snprintf(lv[i].name, sizeof lv[i].name, "L%zu", i + 1);
			continue;
		}
		if (pick < 0) {
			snprintf(lv[i].name, sizeof lv[i].name, "unnamed");
			snprintf(lv[i].note, sizeof lv[i].note,
				 "a plateau past the last cache level the machine reports (a TLB step?)");
			continue;
		}
		/* a reported level skipped over has no plateau of its own */
		for (size_t c = 0; c < nc; c++)
			if (caches[c].level > prev && caches[c].level < caches[pick].level && !used[c] &&
			    nmissing < nmiss) {
				used[c] = 1;
				missing[nmissing++] = caches[c];
			}
		used[pick] = 1;
		prev = caches[pick].level;
		snprintf(lv[i].name, sizeof lv[i].name, "L%d", caches[pick].level);
		lv[i].sysfs = caches[pick].bytes;
		double step = step_at(p, k, at);
		lv[i].within_step = isfinite(lv[i].knee) &&
				    fabs(log(lv[i].knee / lv[i].sysfs)) <= log(step) * 1.001;
		if (!lv[i].within_step && isfinite(lv[i].knee)) {
			char a[32], b[32];

			size_text(lv[i].knee, a, sizeof a);
			size_text(lv[i].sysfs, b, sizeof b);
			snprintf(lv[i].note, sizeof lv[i].note, "%s here against %s reported: %s", a, b,
				 lv[i].knee < lv[i].sysfs
				 ? "the level holds less for one thread than its size (shared with other "
				   "cores or, on a VM, the host's cache shared with other guests)"
				 : "the curve climbs late (prefetching, or a smaller next level)");
		}
	}
	/* cache levels above the last named one that no plateau took */
	for (size_t c = 0; c < nc; c++)
		if (!used[c] && caches[c].level > prev && nmissing < nmiss && mem > 0)
			missing[nmissing++] = caches[c];
	free(p);
	free(used);
	return nmissing;
}
