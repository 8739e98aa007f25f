/*
 * compare.c - `runner compare A B`: for every point present in both runs
 * (same experiment, same parameters), the two estimates, their ratio, and
 * whether the difference is significant: Welch's t-test on the kept
 * samples and Mann-Whitney U (robust to the skew timing data has).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/compare.h"
#include "lib/exitcode.h"
#include "results/results.h"
#include "stats/stats.h"

static json_t *load_result(const char *run, const char *name)
{
	char path[4096], err[4400];
	snprintf(path, sizeof path, "%s/results/%s.json", run, name);
	return results_load(path, err, sizeof err);
}

static void param_text(const json_t *pt, char *buf, size_t len)
{
	const char *k;
	json_t *v;
	buf[0] = 0;
	json_object_foreach((json_t *)json_object_get(pt, "params_text"), k, v) {
		size_t used = strlen(buf);
		snprintf(buf + used, len - used, "%s%s=%s", used ? " " : "", k, json_string_value(v));
	}
	if (!buf[0])
		snprintf(buf, len, "-");
}

int compare_main(const char *run_a, const char *run_b)
{
	char path[4096], err[4400];
	snprintf(path, sizeof path, "%s/manifest.json", run_a);
	json_t *ma = results_load(path, err, sizeof err);
	if (!ma) {
		fprintf(stderr, "runner: compare: %s\n", err);
		return EXIT_USAGE;
	}
	snprintf(path, sizeof path, "%s/manifest.json", run_b);
	json_t *mb = results_load(path, err, sizeof err);
	if (!mb) {
		fprintf(stderr, "runner: compare: %s\n", err);
		json_decref(ma);
		return EXIT_USAGE;
	}
	const char *ca = json_string_value(json_object_get(json_object_get(ma, "machine"), "cpu_model"));
	const char *cb = json_string_value(json_object_get(json_object_get(mb, "machine"), "cpu_model"));
	if (ca && cb && strcmp(ca, cb) != 0)
		printf("note: different CPUs: A %s, B %s\n", ca, cb);
	printf("%-18s %-28s %12s %12s %8s %9s %9s  %s\n", "experiment", "point", "A", "B", "B/A",
	       "p(Welch)", "p(MW)", "verdict");
	size_t i, compared = 0;
	json_t *x;
	json_array_foreach(json_object_get(ma, "experiments"), i, x) {
		const char *name = json_string_value(json_object_get(x, "name"));
		json_t *ra = load_result(run_a, name), *rb = load_result(run_b, name);
		if (!ra || !rb) {
			if (ra && !rb)
				printf("%-18s only in A\n", name);
			json_decref(ra);
			json_decref(rb);
			continue;
		}
		const char *unit = json_string_value(json_object_get(json_object_get(ra, "probe"), "unit"));
		size_t k, l;
		json_t *pa, *pb;
		json_array_foreach(json_object_get(ra, "points"), k, pa) {
			char ta[512], tb[512];
			param_text(pa, ta, sizeof ta);
			json_array_foreach(json_object_get(rb, "points"), l, pb) {
				param_text(pb, tb, sizeof tb);
				if (strcmp(ta, tb) != 0)
					continue;
				double *va, *vb;
				size_t na = results_kept(pa, &va), nb = results_kept(pb, &vb);
				struct stats_compare sc;
				stats_compare(va, na, vb, nb, &sc);
				double ea = json_number_value(json_object_get(pa, "estimate"));
				double eb = json_number_value(json_object_get(pb, "estimate"));
				const char *verdict = "n/a";
				if (isfinite(sc.mw_p))
					verdict = sc.mw_p < 0.05 ? (eb > ea ? "B higher (p<0.05)" : "B lower (p<0.05)")
								 : "no significant difference";
				char sa[64], sb[64];
				snprintf(sa, sizeof sa, "%.4g %s", ea, unit ? unit : "");
				snprintf(sb, sizeof sb, "%.4g %s", eb, unit ? unit : "");
				printf("%-18s %-28s %12s %12s %8.3f %9.2g %9.2g  %s\n", name, ta, sa, sb,
				       ea != 0 ? eb / ea : NAN, sc.welch_p, sc.mw_p, verdict);
				compared++;
				free(va);
				free(vb);
				break;
			}
		}
		json_decref(ra);
		json_decref(rb);
	}
	json_decref(ma);
	json_decref(mb);
	if (!compared) {
		fprintf(stderr, "runner: compare: the two runs have no point in common\n");
		return EXIT_FAILED;
	}
	return EXIT_OK;
}
