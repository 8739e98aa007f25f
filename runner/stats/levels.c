/*
 * levels.c - naming and placing the levels of a latency-by-working-set
 * curve (stats_levels_name, stats.h).
 *
 * stats_knees finds plateaus; rank alone names them wrongly on real
 * machines: a stride-4096 curve on an Intel guest has an L3-plus-page-walk
 * plateau at 35-50 ns and never reaches a DRAM plateau inside 512 MiB, so
 * "the last plateau is Memory" called L3 memory; an AMD guest's stride-64
 * curve has no L3 plateau of its own (its share of the L3 ends at 4-8 MiB,
 * not 32), so the plateau after L2 is DRAM.  So:
 *  - Memory is a latency fact, not a rank: the first plateau at or above
 *    the DRAM floor; none, and the curve did not reach memory.
 *  - A level's size is its knee: where the curve has risen KNEE_RISE above
 *    the plateau, the rise stats_knees counts as a new level.  It depends
 *    on this level alone, so a missing next level does not move it (a
 *    "half-way to the next plateau" knee put an AMD L2 at 4.6 MiB, half-way
 *    to DRAM, because the L3 between them had no plateau).
 *  - Cache plateaus take the reported levels in order, as many as can be
 *    named; when there are fewer plateaus than levels, the assignment
 *    whose knees lie nearest the reported sizes (sum of |log ratio|) says
 *    which levels are missing, so a level with no plateau of its own is
 *    missing, not a neighbour renamed.  Sizes alone do not name a plateau:
 *    on a stride-4096 curve the AMD guest's L2 (with its TLB) holds 4 MiB
 *    of span, nearer the 32 MiB L3 than the 1 MiB L2, yet it is the second
 *    of three plateaus below DRAM.
 */
#include "stats/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The rise over a plateau that stats_knees counts as a new level (its
   KNEE_LEVEL). */
#define KNEE_RISE 1.5

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

/* The monotone assignment of plateaus 0..np-1 to reported levels 0..nc-1
   (both in ascending order) that names the most plateaus and, among those,
   puts knees nearest the reported sizes.  pick[i]: the level of plateau i,
   -1 unnamed.  Small tables (a curve has a handful of each): O(np nc). */
static void assign_levels(const double *at, size_t np, const struct stats_cache *c, size_t nc,
			  int *pick)
{
	/* cost[i][j]: best for plateaus i.. and levels j..; named[i][j]: how
	   many of those plateaus it names.  Lexicographic: more named first. */
	enum { MAXL = 16 };
	double cost[MAXL + 1][MAXL + 1];
	int named[MAXL + 1][MAXL + 1], move[MAXL + 1][MAXL + 1];

	np = np > MAXL ? MAXL : np;
	nc = nc > MAXL ? MAXL : nc;
	for (size_t i = np + 1; i-- > 0;)
		for (size_t j = nc + 1; j-- > 0;) {
			if (i == np) {
				cost[i][j] = 0, named[i][j] = 0, move[i][j] = 0;
				continue;
			}
			/* 0: plateau i unnamed; 1: level j missing; 2: i takes j */
			double bc = cost[i + 1][j];
			int bn = named[i + 1][j], bm = 0;

			if (j < nc) {
				if (named[i][j + 1] > bn ||
				    (named[i][j + 1] == bn && cost[i][j + 1] < bc))
					bc = cost[i][j + 1], bn = named[i][j + 1], bm = 1;
				double d = isfinite(at[i]) ? fabs(log(c[j].bytes / at[i])) : 0;
				if (named[i + 1][j + 1] + 1 > bn ||
				    (named[i + 1][j + 1] + 1 == bn && cost[i + 1][j + 1] + d < bc))
					bc = cost[i + 1][j + 1] + d, bn = named[i + 1][j + 1] + 1, bm = 2;
			}
			cost[i][j] = bc, named[i][j] = bn, move[i][j] = bm;
		}
	for (size_t i = 0, j = 0; i < np;) {
		if (move[i][j] == 2)
			pick[i++] = (int)j++;
		else if (move[i][j] == 1)
			j++;
		else
			pick[i++] = -1;
	}
}

static int by_level(const void *a, const void *b)
{
	return ((const struct stats_cache *)a)->level - ((const struct stats_cache *)b)->level;
}

size_t stats_levels_name(struct stats_level *lv, size_t n, const double *x, const double *y,
			 size_t m, double dram, const struct stats_cache *caches, size_t nc,
			 struct stats_cache *missing, size_t nmiss)
{
	struct xy *p = calloc(m + 1, sizeof *p);
	struct stats_cache *c = calloc(nc + 1, sizeof *c);
	double *at = calloc(n + 1, sizeof *at);
	int *pick = calloc(n + 1, sizeof *pick), *used = calloc(nc + 1, sizeof *used);
	size_t k = 0, mem = n, nmissing = 0, ncache = 0;

	if (!p || !c || !at || !pick || !used) {
		free(p), free(c), free(at), free(pick), free(used);
		return 0;
	}
	for (size_t i = 0; i < m; i++)
		if (isfinite(x[i]) && isfinite(y[i]) && x[i] > 0 && y[i] > 0)
			p[k++] = (struct xy){ x[i], y[i] };
	qsort(p, k, sizeof *p, by_x);
	for (size_t i = 0; i < nc; i++)
		if (caches[i].bytes > 0)
			c[ncache++] = caches[i];
	qsort(c, ncache, sizeof *c, by_level);
	for (size_t i = 0; i < n; i++) {
		if (mem == n && lv[i].latency >= dram)
			mem = i;
		lv[i].knee = i < mem ? crossing(p, k, lv[i].size, lv[i].latency * KNEE_RISE) : NAN;
		lv[i].sysfs = NAN;
		lv[i].within_step = 0;
		lv[i].note[0] = '\0';
		at[i] = isfinite(lv[i].knee) ? lv[i].knee : lv[i].size;
	}
	if (ncache > 0)
		assign_levels(at, mem, c, ncache, pick);
	for (size_t i = 0; i < n; i++) {
		if (i >= mem) {
			snprintf(lv[i].name, sizeof lv[i].name, i == mem ? "Memory" : "Memory+TLB");
			continue;
		}
		if (ncache == 0) {
			snprintf(lv[i].name, sizeof lv[i].name, "L%zu", i + 1);
			continue;
		}
		if (pick[i] < 0) {
			snprintf(lv[i].name, sizeof lv[i].name, "unnamed");
			snprintf(lv[i].note, sizeof lv[i].note,
				 "more plateaus than cache levels the machine reports (a TLB step?)");
			continue;
		}
		const struct stats_cache *L = &c[pick[i]];

		used[pick[i]] = 1;
		snprintf(lv[i].name, sizeof lv[i].name, "L%d", L->level);
		lv[i].sysfs = L->bytes;
		double step = step_at(p, k, at[i]);
		lv[i].within_step = isfinite(lv[i].knee) &&
				    fabs(log(lv[i].knee / lv[i].sysfs)) <= log(step) * 1.001;
		if (!lv[i].within_step && isfinite(lv[i].knee)) {
			char a[32], b[32];

			size_text(lv[i].knee, a, sizeof a);
			size_text(lv[i].sysfs, b, sizeof b);
			snprintf(lv[i].note, sizeof lv[i].note, "%s here against %s reported: %s", a, b,
				 lv[i].knee >= lv[i].sysfs
				 ? "the curve climbs late (prefetching, hashed set indices, or a smaller "
				   "next level)"
				 : pick[i] == (int)ncache - 1
				 ? "the level holds less for one thread than its size (shared with other "
				   "cores or, on a VM, the host's cache shared with other guests)"
				 : "the curve climbs before the level is full (TLB misses once the pages "
				   "outnumber the first-level TLB, or page colouring in a physically "
				   "indexed cache)");
		}
	}
	/* a close call of the level rule (stats_knees): a rerun may draw it
	   otherwise, which a reader comparing two runs should know */
	for (size_t i = 0; i < n; i++) {
		size_t used_len = strlen(lv[i].note);

		if (!(lv[i].close_step > 0))
			continue;
		if (lv[i].close_step < 1.5)
			snprintf(lv[i].note + used_len, sizeof lv[i].note - used_len,
				 "%sa plateau within this level lies %.3fx above its start, within 5 %% "
				 "of the 1.5x that makes two plateaus two levels: a rerun may end this "
				 "level there", used_len ? "; " : "", lv[i].close_step);
		else
			snprintf(lv[i].note + used_len, sizeof lv[i].note - used_len,
				 "%sthe next level lies %.3fx above this one, within 5 %% of the 1.5x "
				 "that makes two plateaus two levels: a rerun may draw the two as one",
				 used_len ? "; " : "", lv[i].close_step);
	}
	/* reported levels no plateau took, up to the last one the curve could
	   show: all of them when it reached memory */
	int last_named = 0;
	for (size_t i = 0; i < mem && ncache > 0; i++)
		if (pick[i] >= 0)
			last_named = pick[i];
	for (size_t j = 0; j < ncache && nmissing < nmiss; j++)
		if (!used[j] && (mem < n ? mem > 0 : (int)j < last_named))
			missing[nmissing++] = c[j];
	free(p), free(c), free(at), free(pick), free(used);
	return nmissing;
}
