/*
 * run.c - `runner [run] SPECS...` and `runner check SPECS...`.
 *
 * Everything that can be wrong with the input is found before anything is
 * written (exit 2, no run folder).  Then each point runs in its own child
 * (exec.c); each experiment's JSON is rewritten atomically after every
 * point, so a crash, a kill or Ctrl-C keeps every finished point.
 */
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "exec/exec.h"
#include "exec/loader.h"
#include "machine/machine.h"
#include "plan/plan.h"
#include "report/report.h"
#include "serve/serve.h"
#include "results/results.h"
#include "cli/resume.h"
#include "cli/run.h"
#include "spec/spec.h"
#include "lib/suggest.h"
#include "lib/units.h"
#include "lib/jsonutil.h"

/* One experiment of the run. */
struct exp {
	struct spec spec;
	struct loaded_probe lp;
	int probe_ok;
	char probe_err[512];		/* loader message when !probe_ok */
	struct plan_point *pts;
	size_t n_pts;
	json_t *result;			/* filled as rounds finish */
	int planned;			/* rounds per point (exec_rounds) */
	struct point_result **rounds;	/* per point: its rounds so far */
	size_t *n_rounds;
	int finished;			/* status, findings and summary done */
};

static volatile sig_atomic_t interrupted;
/* A write into the run folder failed: the run stops at once (through
   `interrupted`, which every loop and the point in progress watch), ends
   with EXIT_INTERNAL, keeps what was written and leaves out/latest alone. */
static int write_failed;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static void stop_on_write_error(const char *err)
{
	fprintf(stderr, "runner: cannot write %s: the run stops here; what was written before "
		"is kept\n", err);
	write_failed = 1;
	interrupted = 1;
}

static struct exp *find_exp(struct exp *e, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(e[i].spec.name, name) == 0)
			return &e[i];
	return NULL;
}

/* A probe name close to an unknown one, from the probe directory. */
static void suggest_probe(const char *name, char *buf, size_t len)
{
	char **names = NULL;
	size_t n = 0;
	buf[0] = 0;
	if (loader_list(&names, &n) < 0)
		return;
	const char *s = suggest_word(name, (const char *const *)names, n);
	if (s)
		snprintf(buf, len, " (did you mean '%s'?)", s);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* check: a prediction or reference band whose `where` no point of this run
   holds (after --set, --quick) would be dropped in silence: say so. */
static void warn_unmatched(const struct spec *s, const struct plan_point *pts, size_t n)
{
	for (size_t k = 0; k < s->n_predict; k++) {
		const struct spec_predict *pr = &s->predict[k];
		size_t i;

		for (i = 0; i < n && !plan_where_matches(s, pr->where, pr->n_where, &pts[i]); i++)
			;
		if (i == n)
			fprintf(stderr, "runner: %s:%d:%d: warning: this prediction matches no point of "
				"the run (after --set and --quick)\n", s->file, pr->pos.line, pr->pos.col);
	}
	for (size_t k = 0; k < s->n_reference; k++) {
		const struct spec_reference *rf = &s->reference[k];
		size_t i;

		for (i = 0; i < n && !plan_where_matches(s, rf->where, rf->n_where, &pts[i]); i++)
			;
		if (i == n)
			fprintf(stderr, "runner: %s:%d:%d: warning: this reference band matches no point "
				"of the run (after --set and --quick)\n", s->file, rf->pos.line, rf->pos.col);
	}
}

/* check: the probe's own judgement of every point (probe->check, in a
   child): what setup() would refuse (a stride of 100 bytes) is an error
   now, not a partial run later.  The position is the first swept
   parameter's (else the first parameter's, else the probe's). */
static int check_points(const struct spec *s, const struct loaded_probe *lp,
			const struct plan_point *pts, size_t n)
{
	void **cfgs = calloc(n + 1, sizeof *cfgs);
	char **msgs = calloc(n + 1, sizeof *msgs), err[512];
	int rc = 0;

	if (!cfgs || !msgs) {
		free(cfgs);
		free(msgs);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		if (!(cfgs[i] = loader_config(lp, (const struct spec_val *const *)pts[i].vals, err,
					      sizeof err)) && lp->p->config_size)
			goto out;	/* the run would say it; check has nothing to add */
	if (loader_check_configs(lp, cfgs, n, msgs, err, sizeof err) < 0) {
		fprintf(stderr, "runner: %s:%d:%d: %s\n", s->file, s->probe_pos.line, s->probe_pos.col,
			err);
		rc = -1;
		goto out;
	}
	struct spec_pos at = s->n_params ? s->params[0].pos : s->probe_pos;
	for (size_t k = 0; k < s->n_params; k++)
		for (size_t a = 0; a < s->n_axis; a++)
			if (s->axis_swept[a] && !strcmp(s->bound->params[a].name, s->params[k].name)) {
				at = s->params[k].pos;
				k = s->n_params;
				break;
			}
	for (size_t i = 0; i < n; i++) {
		char label[256] = "";
		size_t off = 0, same = 0;

		if (!msgs[i])
			continue;
		/* one line per distinct message: the first point, and how many more */
		for (size_t j = i + 1; j < n; j++)
			if (msgs[j] && !strcmp(msgs[j], msgs[i])) {
				free(msgs[j]);
				msgs[j] = NULL;
				same++;
			}
		for (size_t a = 0; a < s->n_axis && off < sizeof label; a++)
			if (s->axis_swept[a])
				off += (size_t)snprintf(label + off, sizeof label - off, "%s%s=%s",
							off ? "," : "", s->bound->params[a].name,
							pts[i].vals[a]->text);
		char more[48] = "";
		if (same)
			snprintf(more, sizeof more, " (and %zu more point%s)", same, same > 1 ? "s" : "");
		fprintf(stderr, "runner: %s:%d:%d: %s%s%s%s%s\n", s->file, at.line, at.col,
			label[0] ? "point " : "", label, more, label[0] ? ": " : "", msgs[i]);
		rc = -1;
	}
out:
	for (size_t i = 0; i < n; i++) {
		free(cfgs[i]);
		free(msgs[i]);
	}
	free(cfgs);
	free(msgs);
	return rc;
}

/* The plan's experiments, each with its probe resolved and its points
   expanded: everything that can reject the input.  Returns EXIT_OK or
   EXIT_USAGE (message printed). */
static int prepare(char **files, size_t nfiles, const struct cli_opts *o, struct exp **out,
		   size_t *nout)
{
	size_t n_bad = 0;
	struct plan_opts po = {.sets = o->sets, .n_sets = o->n_sets, .filters = o->filters,
			       .n_filters = o->n_filters, .quick = o->quick,
			       .keep_going = o->check_only, .n_bad = &n_bad};
	struct spec *specs;
	size_t n;
	char err[4096] = "";

	if (plan_specs(files, nfiles, &po, &specs, &n, err, sizeof err) < 0) {
		fprintf(stderr, "runner: %s\n", err);
		return EXIT_USAGE;
	}
	if (n_bad)	/* check: said now; the rest is checked too, then exit 2 */
		fprintf(stderr, "runner: %s\n", err);
	struct exp *e = calloc(n + 1, sizeof *e);
	for (size_t i = 0; i < n; i++)
		e[i].spec = specs[i];	/* moved: the exp owns it now */
	free(specs);
	/* Every experiment is checked: all the errors are said, not the first. */
	int bad = n_bad > 0;
	for (size_t i = 0; i < n; i++) {
		struct spec *s = &e[i].spec;
		if (loader_open(s->probe, &e[i].lp, e[i].probe_err, sizeof e[i].probe_err) < 0) {
			if (strstr(e[i].probe_err, "': not found in ")) {
				char hint[256];
				suggest_probe(s->probe, hint, sizeof hint);
				fprintf(stderr, "runner: %s:%d:%d: unknown probe '%s'%s\n", s->file,
					s->probe_pos.line, s->probe_pos.col, s->probe, hint);
				bad = 1;
			} else if (o->check_only) {
				fprintf(stderr, "runner: %s:%d:%d: %s\n", s->file, s->probe_pos.line,
					s->probe_pos.col, e[i].probe_err);
				bad = 1;
			}
			continue;	/* else recorded as a failed experiment when run */
		}
		e[i].probe_ok = 1;
		if (command_vars_add(&e[i].lp, s, err, sizeof err) < 0 ||
		    plan_bind(s, e[i].lp.p, o->quick, &e[i].pts, &e[i].n_pts, err, sizeof err) < 0) {
			fprintf(stderr, "runner: %s\n", err);
			bad = 1;
			continue;
		}
		if (o->check_only) {
			warn_unmatched(s, e[i].pts, e[i].n_pts);
			if (check_points(s, &e[i].lp, e[i].pts, e[i].n_pts) < 0)
				bad = 1;
		}
	}
	if (bad)
		goto bad;
	*out = e;
	*nout = n;
	return EXIT_OK;
bad:
	for (size_t i = 0; i < n; i++) {
		if (e[i].probe_ok)
			loader_close(&e[i].lp);
		plan_points_free(e[i].pts, e[i].n_pts);
		spec_free(&e[i].spec);
	}
	free(e);
	return EXIT_USAGE;
}

static void free_exps(struct exp *e, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (e[i].probe_ok)
			loader_close(&e[i].lp);
		for (size_t p = 0; e[i].rounds && p < e[i].n_pts; p++) {
			for (size_t k = 0; k < e[i].n_rounds[p]; k++)
				exec_result_free(&e[i].rounds[p][k]);
			free(e[i].rounds[p]);
		}
		free(e[i].rounds);
		free(e[i].n_rounds);
		plan_points_free(e[i].pts, e[i].n_pts);
		json_decref(e[i].result);
		spec_free(&e[i].spec);
	}
	free(e);
}

/* --- progress ---------------------------------------------------------- */

struct progress {
	const struct cli_opts *o;
	int tty;
	const struct exp *x;
	size_t point, npoints;		/* this experiment */
	int round;
	size_t done_all, total_all;	/* whole run */
	double t0;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void on_sample(void *arg, const struct point_result *r)
{
	struct progress *pg = arg;
	if (!pg->tty || pg->o->quiet)
		return;
	double vals[4096];
	size_t n = 0;
	for (size_t i = 0; i < r->n_samples && n < 4096; i++)
		if (!r->samples[i].warmup && r->samples[i].valid)
			vals[n++] = r->samples[i].value;
	double mean = 0, sd = 0;
	for (size_t i = 0; i < n; i++)
		mean += vals[i];
	mean = n ? mean / (double)n : NAN;
	for (size_t i = 0; i < n; i++)
		sd += (vals[i] - mean) * (vals[i] - mean);
	sd = n > 1 ? sqrt(sd / (double)(n - 1)) : NAN;
	double el = now_s() - pg->t0, per = pg->done_all ? el / (double)pg->done_all : NAN;
	double eta = per * (double)(pg->total_all - pg->done_all);
	char eta_txt[32] = "?", what[64] = "";
	if (isfinite(eta))
		snprintf(eta_txt, sizeof eta_txt, eta >= 90 ? "%.0fm%02.0fs" : "%.0fs",
			 eta >= 90 ? floor(eta / 60) : eta, fmod(eta, 60));
	/* the point's swept values, so a slow or odd point can be named */
	const struct spec *s = &pg->x->spec;
	size_t off = 0;
	for (size_t a = 0; pg->x->pts && a < s->n_axis && off < sizeof what; a++)
		if (s->axis_swept[a])
			off += (size_t)snprintf(what + off, sizeof what - off, "%s%s=%s", off ? "," : " ",
						s->bound->params[a].name,
						pg->x->pts[pg->point].vals[a]->text);
	if (n == 0)
		fprintf(stderr, "\r\033[Kround %d/%d  %s  point %zu/%zu%s  warming up  ETA %s",
			pg->round + 1, pg->x->planned, pg->x->spec.name, pg->point + 1, pg->npoints,
			what, eta_txt);
	else
		fprintf(stderr, "\r\033[Kround %d/%d  %s  point %zu/%zu%s  %.4g ± %.2g %s (n=%zu)  ETA %s",
			pg->round + 1, pg->x->planned, pg->x->spec.name, pg->point + 1, pg->npoints,
			what, mean, n > 1 ? 1.96 * sd / sqrt((double)n) : 0.0, pg->x->lp.p->unit, n,
			eta_txt);
	fflush(stderr);
}

/* --- the run folder ---------------------------------------------------- */

static int write_manifest(const char *dir, json_t *m)
{
	char path[4400], err[4600];
	if (write_failed)
		return -1;	/* stopped: the first failure was said */
	snprintf(path, sizeof path, "%s/manifest.json", dir);
	if (results_write_json(path, m, err, sizeof err) < 0) {
		stop_on_write_error(err);
		return -1;
	}
	return 0;
}

static int write_result(const char *dir, const struct exp *x)
{
	char path[4400], err[4600];
	if (write_failed)
		return -1;
	snprintf(path, sizeof path, "%s/results/%s.json", dir, x->spec.name);
	if (results_write_json(path, x->result, err, sizeof err) < 0) {
		stop_on_write_error(err);
		return -1;
	}
	return 0;
}

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb; (void)flag; (void)ftw;
	return remove(p);
}

static uint64_t mix64(uint64_t x)
{
	/* splitmix64 finaliser: well-spread per-point seeds from the run seed. */
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* "a=1,b=x" of a point's swept values (the spec's lists of two or more). */
static void point_label(const json_t *res, const json_t *p, char *buf, size_t len)
{
	const json_t *params = json_object_get(json_object_get(res, "spec"), "params");
	const char *k;
	json_t *v;
	size_t off = 0;

	buf[0] = '\0';
	json_object_foreach(json_object_get(p, "params_text"), k, v)
		if (off < len && json_array_size(json_object_get(params, k)) > 1)
			off += (size_t)snprintf(buf + off, len - off, "%s%s=%s", off ? "," : "", k,
						json_string_value(v) ? json_string_value(v) : "?");
}

/* The headline numbers of a multi-point experiment on its summary line:
   the smallest and largest estimate with their points, and what its
   findings found (cache levels, the file cache). */
static void print_headline(const json_t *res, const char *unit)
{
	const json_t *pts = json_object_get(res, "points"), *p, *lo = NULL, *hi = NULL;
	const json_t *f = json_object_get(res, "findings");
	size_t i;
	char label[32], a[64], b[64], la[256], lb[256];

	json_array_foreach(pts, i, p) {
		json_t *e = json_object_get(p, "estimate");
		if (!json_is_number(e))
			continue;
		if (!lo || json_number_value(e) < json_number_value(json_object_get(lo, "estimate")))
			lo = p;
		if (!hi || json_number_value(e) > json_number_value(json_object_get(hi, "estimate")))
			hi = p;
	}
	if (lo && hi && lo != hi) {
		double est = json_number_value(json_object_get(hi, "estimate"));
		double k = units_display(unit ? unit : "", est, label, sizeof label, NULL);

		units_format_number(json_number_value(json_object_get(lo, "estimate")) * k, a, sizeof a);
		units_format_number(est * k, b, sizeof b);
		point_label(res, lo, la, sizeof la);
		point_label(res, hi, lb, sizeof lb);
		printf("; %s %s (%s) to %s %s (%s)", a, label, la, b, label, lb);
	}
	const json_t *series = json_object_get(json_object_get(f, "knees"), "series"), *s, *lv;
	const char *key;
	json_object_foreach((json_t *)series, key, s) {
		size_t j, n = 0;
		json_array_foreach(json_object_get(s, "levels"), j, lv) {
			double sz = json_number_value(json_object_get(lv, "knee_bytes"));
			char szt[32] = "";

			if (json_is_number(json_object_get(lv, "knee_bytes")))
				units_format_size_short(sz, szt, sizeof szt);
			printf("%s%s %s%s%.3g", n++ ? ", " : "; levels (", json_string_value(json_object_get(lv, "name")),
			       szt, szt[0] ? " " : "", json_number_value(json_object_get(lv, "latency")));
		}
		if (n)
			printf(" %s, %s)", unit ? unit : "", key);
		break;	/* the first series is enough for a headline */
	}
	const json_t *fc = json_object_get(f, "file_cache");
	if (json_is_number(json_object_get(fc, "knee_bytes"))) {
		char szt[32];
		units_format_size_short(json_number_value(json_object_get(fc, "knee_bytes")), szt, sizeof szt);
		printf("; file cache about %s", szt);
	}
}

static void print_summary(const struct exp *x)
{
	const json_t *pts = json_object_get(x->result, "points"), *p;
	const char *st = json_string_value(json_object_get(x->result, "status"));
	const char *unit = json_string_value(json_object_get(json_object_get(x->result, "probe"), "unit"));
	size_t i;
	printf("%-20s %-11s", x->spec.name, st ? st : "?");
	if (json_array_size(pts) == 1 || !x->probe_ok) {
		p = json_array_get(pts, 0);
		json_t *est = json_object_get(p, "estimate"), *ci = json_object_get(p, "ci");
		if (json_is_number(est))
			printf(" %.4g %s", json_number_value(est), unit ? unit : "");
		if (json_is_array(ci) && json_is_number(json_array_get(ci, 0)))
			printf(" [%.4g, %.4g]", json_number_value(json_array_get(ci, 0)),
			       json_number_value(json_array_get(ci, 1)));
		const char *reason = json_string_value(json_object_get(p, "reason"));
		if (reason)
			printf(" %s", reason);
	} else {
		size_t ok = 0, skipped = 0;
		json_array_foreach(pts, i, p) {
			const char *pst = json_string_value(json_object_get(p, "status")) ?: "";
			ok += strcmp(pst, "ok") == 0;
			skipped += strcmp(pst, "skipped") == 0;
		}
		printf(" %zu/%zu points ok", ok, json_array_size(pts));
		if (skipped)
			printf(", %zu skipped", skipped);
		print_headline(x->result, unit);
		json_array_foreach(pts, i, p) {
			const char *reason = json_string_value(json_object_get(p, "reason"));
			if (reason) {
				printf(" (first problem: %s)", reason);
				break;
			}
		}
	}
	printf("\n");
}

/* --- the run ------------------------------------------------------------ */

/* One run of the plan, from the run folder to the report. */
struct run {
	const struct cli_opts *o;
	struct exp *e; size_t n;
	size_t *order;			/* run order: subtract: targets first */
	uint64_t seed;
	char run_id[256], dir[4096], scratch[4096];
	double tsc_hz;
	json_t *machine, *manifest, *all_results;
	struct progress pg;
	int any_failed;
	struct serve_peer peer;		/* --peer: HOST:PORT, or a namespace made here */
	struct serve_nfs *nfs;		/* --nfs: a URL, or a server made here; NULL */
	int lock;			/* the run folder's lock (results_lock_run), or -1 */
};

/* UTC time and a hash of the seed and pid: sorts by time, never collides
   between two runs started in the same second. */
static void make_run_id(struct run *r)
{
	if (r->o->run_id) {
		snprintf(r->run_id, sizeof r->run_id, "%s", r->o->run_id);
		return;
	}
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(r->run_id, sizeof r->run_id, "%Y%m%dT%H%M%SZ", &tm);
	size_t len = strlen(r->run_id);
	snprintf(r->run_id + len, sizeof r->run_id - len, "-%06llx",
		 (unsigned long long)(mix64(r->seed ^ (uint64_t)getpid()) & 0xffffff));
}

/* The run folder with results/ and the specs as given.  Returns EXIT_OK,
   EXIT_USAGE (it exists) or EXIT_INTERNAL (message printed). */
static int make_folder(struct run *r)
{
	char sub[4200], err[4600];

	snprintf(r->dir, sizeof r->dir, "%s/%s", r->o->out_dir, r->run_id);
	if (results_mkdirs(r->o->out_dir, err, sizeof err) < 0) {
		fprintf(stderr, "runner: %s\n", err);
		return EXIT_INTERNAL;
	}
	/* mkdir claims the folder atomically: of two runners given the same
	   --run-id, exactly one gets it (a test-then-create let both in) */
	if (mkdir(r->dir, 0755) < 0) {
		int e = errno;

		fprintf(stderr, "runner: %s: %s\n", r->dir,
			e == EEXIST ? "run folder already exists" : strerror(e));
		return e == EEXIST ? EXIT_USAGE : EXIT_INTERNAL;
	}
	snprintf(sub, sizeof sub, "%s/results", r->dir);
	if (results_mkdirs(sub, err, sizeof err) < 0) {
		fprintf(stderr, "runner: %s\n", err);
		return EXIT_INTERNAL;
	}
	snprintf(sub, sizeof sub, "%s/specs", r->dir);
	if (results_mkdirs(sub, err, sizeof err) < 0) {
		fprintf(stderr, "runner: %s\n", err);
		return EXIT_INTERNAL;
	}
	for (size_t i = 0; i < r->n; i++) {
		const struct spec *s = &r->e[i].spec;
		char p[4400];
		snprintf(p, sizeof p, "%s/specs/%s.yaml", r->dir, s->name);
		if (results_write_file(p, s->text, strlen(s->text), err, sizeof err) < 0) {
			fprintf(stderr, "runner: %s\n", err);
			return EXIT_INTERNAL;
		}
	}
	return EXIT_OK;
}

/* The machine, once, and the manifest listing every experiment as pending. */
static void start_manifest(struct run *r)
{
	const struct cli_opts *o = r->o;

	if (o->verbose)
		fprintf(stderr, "runner: calibrating the TSC against CLOCK_MONOTONIC_RAW\n");
	r->tsc_hz = machine_calibrate_tsc();
	r->machine = machine_describe(r->tsc_hz);
	struct results_run rr = {
		.run_id = r->run_id, .seed = r->seed, .argc = o->argc, .argv = o->argv,
		.sets = o->sets, .n_sets = o->n_sets, .filters = o->filters, .n_filters = o->n_filters,
		.quick = o->quick, .probe_dir = loader_dir(), .peer = o->peer, .origin = o->origin,
		.title = o->title, .author = o->author, .course = o->course,
	};
	r->manifest = results_manifest_new(&rr, r->machine);
	for (size_t k = 0; k < r->n; k++) {
		struct exp *x = &r->e[r->order[k]];
		results_manifest_add(r->manifest, &x->spec, x->probe_ok ? &x->lp : NULL, x->probe_err);
	}
	write_manifest(r->dir, r->manifest);
}

/* Round `round` of point pi of x in a child (a fresh process); the point's
   JSON is rebuilt from its rounds so far. */
static void run_round(struct run *r, struct exp *x, size_t pi, int round, json_t *const *deps)
{
	const struct cli_opts *o = r->o;
	json_t *points = json_object_get(x->result, "points");
	struct plan_point *pt = &x->pts[pi];
	struct point_result *res;
	uint64_t pseed = mix64(r->seed ^ hash_str(x->spec.name) ^ mix64(pt->index));
	struct exec_ctx ctx = {
		.seed = round ? mix64(pseed ^ mix64((uint64_t)round)) : pseed,
		.scratch_root = r->scratch, .peer = serve_peer_addr(&r->peer), .tsc_hz = r->tsc_hz,
		.nfs_url = serve_nfs_url(r->nfs), .nfs_local_dir = serve_nfs_local_dir(r->nfs),
		.nfs_label = serve_nfs_label(r->nfs), .nfs_error = serve_nfs_error(r->nfs),
		.nfs_cpu = serve_nfs_cpu(r->nfs),
		.quick = o->quick, .verbose = o->verbose, .probe_dir = loader_dir(),
		.interrupted = &interrupted, .on_sample = on_sample, .arg = &r->pg,
		.round = round, .rounds = x->planned,
		.iterations = round && x->n_rounds[pi] ? x->rounds[pi][0].iterations : 0,
		.run_dir = r->dir,
	};

	r->pg.point = pi;
	r->pg.round = round;
	if (o->verbose) {
		json_t *pt_text = results_params(&x->spec, pt, 1);
		char *t = json_dumps(pt_text, JSON_COMPACT | JSON_PRESERVE_ORDER);
		fprintf(stderr, "runner: '%s' point %zu/%zu round %d/%d %s\n", x->spec.name, pi + 1,
			x->n_pts, round + 1, x->planned, t ? t : "");
		free(t);
		json_decref(pt_text);
	}
	res = &x->rounds[pi][x->n_rounds[pi]];
	double started = now_s() - r->pg.t0;
	if (exec_point(&ctx, &x->spec, &x->lp, pt, res) < 0)
		fprintf(stderr, "runner: '%s': %s\n", x->spec.name, res->reason);
	res->started_s = started;
	x->n_rounds[pi]++;
	json_t *pj = results_point(&x->spec, &x->lp, pt, x->rounds[pi], x->n_rounds[pi], x->planned,
				   r->tsc_hz, pseed, deps);
	if (pi < json_array_size(points))
		json_array_set_new(points, pi, pj);
	else
		jsonutil_append(points, pj);
	r->pg.done_all++;
	if (o->resume)
		resume_measured(o->resume, x->spec.name, pt->index, round);
}

/* Room for every round of every point of x. */
static void alloc_rounds(struct exp *x)
{
	x->planned = exec_rounds(&x->spec);
	x->rounds = calloc(x->n_pts + 1, sizeof *x->rounds);
	x->n_rounds = calloc(x->n_pts + 1, sizeof *x->n_rounds);
	for (size_t p = 0; p < x->n_pts; p++)
		x->rounds[p] = calloc((size_t)x->planned, sizeof **x->rounds);
}

/* resume: an experiment restored from the run folder (resume_begin) needs
   no start; one that had finished is counted as done. */
static void restored_experiment(struct run *r, struct exp *x)
{
	for (size_t p = 0; p < x->n_pts; p++)
		r->pg.total_all -= x->finished ? (size_t)x->planned : x->n_rounds[p];
	if (!x->finished)
		return;
	json_array_append(r->all_results, x->result);
	if (!r->o->quiet)
		print_summary(x);
}

/* The experiment's result, "running", written before its first round. */
static void start_experiment(struct run *r, struct exp *x)
{
	if (x->result) {
		restored_experiment(r, x);
		return;
	}
	x->result = results_experiment_new(&x->spec, x->probe_ok ? &x->lp : NULL, r->tsc_hz);
	if (!x->rounds)
		alloc_rounds(x);
	if (!x->probe_ok) {
		/* A broken probe fails its experiment, not the run. */
		jsonutil_append(json_object_get(x->result, "points"),
				      results_failed_point(x->probe_err));
		fprintf(stderr, "runner: %s\n", x->probe_err);
		r->pg.done_all++;
	}
	write_result(r->dir, x);	/* visible as "running" from the start */
}

/* One round of every point of the k-th experiment in run order. */
static void run_pass(struct run *r, size_t k, int round)
{
	struct exp *x = &r->e[r->order[k]];
	json_t **deps = calloc(x->spec.n_subtract + 1, sizeof *deps);

	for (size_t d = 0; d < x->spec.n_subtract; d++) {
		struct exp *dx = find_exp(r->e, r->n, x->spec.subtract[d]);
		deps[d] = dx ? dx->result : NULL;
	}
	r->pg.x = x;
	r->pg.npoints = x->n_pts;
	for (size_t pi = 0; pi < x->n_pts && !interrupted; pi++)
		if (x->n_rounds[pi] <= (size_t)round)	/* resume: kept rounds are not run */
			run_round(r, x, pi, round, deps);
	free(deps);
	jsonutil_set(x->result, "status",
			    jsonutil_text(results_status(json_object_get(x->result, "points"), interrupted)));
	write_result(r->dir, x);
}

/* The k-th experiment after its last round (or the interrupt): findings,
   status, the manifest's entry and the summary line. */
static void finish_experiment(struct run *r, size_t k)
{
	struct exp *x = &r->e[r->order[k]];
	json_t *points = json_object_get(x->result, "points");
	int cut = x->probe_ok && interrupted;

	if (x->finished)
		return;
	x->finished = 1;
	if (r->pg.tty && !r->o->quiet)
		fprintf(stderr, "\r\033[K");
	if (x->probe_ok && x->spec.n_findings && !cut)
		results_findings(&x->spec, x->result, r->machine);
	const char *st = results_status(points, cut);
	jsonutil_set(x->result, "status", jsonutil_text(st));
	write_result(r->dir, x);
	if (strcmp(st, "ok") != 0 && strcmp(st, "skipped") != 0)
		r->any_failed = 1;
	results_manifest_set_status(r->manifest, k, st);
	write_manifest(r->dir, r->manifest);
	json_array_append(r->all_results, x->result);
	if (!r->o->quiet)
		print_summary(x);
}

/* Round 0 of every point of every experiment in run order, then round 1
   ...: host drift spreads over all points, and a `subtract:` target's round
   r runs just before its users' round r.  An experiment is finished after
   its last round; on an interrupt, every experiment not finished is. */
static void run_rounds(struct run *r)
{
	int most = 0;

	for (size_t k = 0; k < r->n; k++) {
		struct exp *x = &r->e[r->order[k]];
		start_experiment(r, x);
		if (x->probe_ok && x->planned > most)
			most = x->planned;
		if (!x->probe_ok)
			finish_experiment(r, k);
	}
	for (int round = 0; round < most && !interrupted; round++)
		for (size_t k = 0; k < r->n && !interrupted; k++) {
			struct exp *x = &r->e[r->order[k]];
			if (!x->probe_ok || round >= x->planned || x->finished)
				continue;
			run_pass(r, k, round);
			if (round == x->planned - 1 && !interrupted)
				finish_experiment(r, k);
		}
	for (size_t k = 0; k < r->n; k++)
		finish_experiment(r, k);
}

static int stale_quiet;
static json_t *stale_list;

static void say_stale(const char *line)
{
	if (!stale_quiet)
		fprintf(stderr, "runner: %s\n", line);
	jsonutil_append(stale_list, jsonutil_text(line));
}

/* Every experiment in order, until done or interrupted. */
static void run_all(struct run *r)
{
	const char *tmp = getenv("TMPDIR");

	tmp = tmp && *tmp ? tmp : "/tmp";
	/* what a runner killed by SIGKILL left: its points' processes, its
	   scratch folder */
	stale_quiet = r->o->quiet;
	stale_list = json_array();
	exec_clean_stale(tmp, say_stale);
	if (json_array_size(stale_list))
		json_object_set(r->manifest, "cleaned_up", stale_list);
	json_decref(stale_list);
	stale_list = NULL;
	const char *why = exec_point_cgroup_unavailable();
	jsonutil_set(r->manifest, "point_cgroup",
			    why ? json_pack("{s:b,s:s}", "available", 0, "why_not", why)
				: json_pack("{s:b}", "available", 1));
	if (why && r->o->verbose)
		fprintf(stderr, "runner: no cgroup per point (%s): a process a probe starts in "
			"another session is not guaranteed to die with its point\n", why);

	snprintf(r->scratch, sizeof r->scratch, "%s/sysmeter.XXXXXX", tmp);
	if (!mkdtemp(r->scratch)) {
		/* never the run folder itself: the scratch is removed at the end */
		snprintf(r->scratch, sizeof r->scratch, "%s/scratch", r->dir);
		mkdir(r->scratch, 0700);
	} else {
		exec_mark_scratch(r->scratch);
	}

	r->pg = (struct progress){.o = r->o, .tty = isatty(2), .t0 = now_s()};
	for (size_t i = 0; i < r->n; i++)
		r->pg.total_all += r->e[i].probe_ok ? r->e[i].n_pts * (size_t)exec_rounds(&r->e[i].spec) : 1;
	r->all_results = json_array();
	run_rounds(r);
	nftw(r->scratch, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* The servers the probes talk to (--peer, --nfs), the run, and the
   servers stopped and removed again.  Ctrl-C / SIGTERM (caught from the
   start of run_main) stop the running point (exec kills its process group)
   or a server's start, keep everything finished and still tear the
   servers down. */
static void run_with_servers(struct run *r)
{
	const struct cli_opts *o = r->o;

	if (!interrupted)
		serve_peer_up(&r->peer, o->peer, o->quiet);	/* failure: remote points skipped */
	if (!interrupted)
		r->nfs = serve_nfs_up(o->nfs, o->quiet, &interrupted);	/* failure: NFS points skip */
	if (o->resume)
		resume_servers(o->resume, r->manifest);
	results_manifest_set_nfs(r->manifest, o->nfs, serve_nfs_url(r->nfs),
				 serve_nfs_label(r->nfs), serve_nfs_local_dir(r->nfs),
				 serve_nfs_error(r->nfs));
	write_manifest(r->dir, r->manifest);
	run_all(r);
	serve_nfs_down(r->nfs);
	r->nfs = NULL;
	serve_peer_down(&r->peer);
}

/* results.csv, out/latest, the manifest's end, the report.  Returns the
   exit code. */
static int finish(struct run *r)
{
	const struct cli_opts *o = r->o;
	char err[4096];
	int exit_code;

	if (!write_failed && results_write_csv(r->dir, r->all_results, err, sizeof err) < 0)
		stop_on_write_error(err);
	exit_code = write_failed ? EXIT_INTERNAL : interrupted ? EXIT_INTERRUPTED
		  : r->any_failed ? EXIT_FAILED : EXIT_OK;
	if (o->resume)
		resume_end(o->resume, r->manifest, exit_code);
	results_manifest_finish(r->manifest, write_failed ? "write_failed"
				: interrupted ? "interrupted" : "complete", exit_code);
	if (write_failed) {
		/* one last try, so that a manifest that can be written says so */
		char path[4400];

		snprintf(path, sizeof path, "%s/manifest.json", r->dir);
		results_write_json(path, r->manifest, err, sizeof err);
	} else if (write_manifest(r->dir, r->manifest) < 0) {
		exit_code = EXIT_INTERNAL;
	}
	if (interrupted && !write_failed)
		fprintf(stderr, "runner: interrupted: finished points are saved in %s\n", r->dir);
	if (!o->no_report && !interrupted) {
		const char *tdir = o->templates ? o->templates : report_default_templates();
		if (o->verbose)
			fprintf(stderr, "runner: rendering the report from %s\n", tdir);
		report_set_interrupt(&interrupted);
		int rc = report_render(r->dir, tdir, REPORT_MD | REPORT_TEX | REPORT_PDF | REPORT_CHARTS,
				       o->verbose, err, sizeof err);
		report_set_interrupt(NULL);
		if (rc < 0) {
			fprintf(stderr, "runner: report: %s\n", err);
			/* the manifest says what the exit code says */
			if (interrupted)
				exit_code = EXIT_INTERRUPTED;
			else if (!exit_code)
				exit_code = EXIT_FAILED;
			jsonutil_set(r->manifest, "report_error", jsonutil_text(err));
			results_manifest_finish(r->manifest, interrupted ? "interrupted" : "complete",
						exit_code);
			if (write_manifest(r->dir, r->manifest) < 0)
				exit_code = EXIT_INTERNAL;
		}
	}
	/* out/latest moves only to a run whose folder is whole */
	if (exit_code != EXIT_INTERNAL &&
	    results_link_latest(o->out_dir, r->run_id, err, sizeof err) < 0) {
		fprintf(stderr, "runner: cannot point out/latest at the run: %s\n", err);
		exit_code = EXIT_INTERNAL;
	}
	printf("%s\n", r->dir);
	if (fflush(stdout) == EOF && exit_code == EXIT_OK)
		exit_code = EXIT_INTERNAL;
	return exit_code;
}

/* The experiments' run order (subtract: targets first) into r->order.
   Returns EXIT_OK or EXIT_USAGE (message printed). */
static int order_exps(struct run *r)
{
	char err[4096];
	struct spec **specs = calloc(r->n ? r->n : 1, sizeof *specs);
	int rc;

	r->order = calloc(r->n ? r->n : 1, sizeof *r->order);
	for (size_t i = 0; i < r->n; i++)
		specs[i] = &r->e[i].spec;
	rc = plan_order(specs, r->n, r->order, err, sizeof err);
	free(specs);
	if (rc < 0) {
		fprintf(stderr, "runner: %s\n", err);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

/* resume: the run goes on in its folder with its manifest, machine and TSC
   rate; each experiment's finished rounds are restored (resume.c).
   Returns EXIT_OK or EXIT_USAGE (said) before anything is written. */
static int resume_begin(struct run *r)
{
	struct cli_resume *rs = r->o->resume;
	json_t *m = rs->manifest;

	snprintf(r->run_id, sizeof r->run_id, "%s", json_string_value(json_object_get(m, "run_id")) ?
		 json_string_value(json_object_get(m, "run_id")) : "");
	snprintf(r->dir, sizeof r->dir, "%s", rs->dir);
	r->manifest = json_incref(m);
	r->machine = json_incref(json_object_get(m, "machine"));
	r->tsc_hz = json_number_value(json_object_get(r->machine, "tsc_hz"));
	if (json_array_size(json_object_get(m, "experiments")) != r->n) {
		fprintf(stderr, "runner: resume: %s: the saved specs plan %zu experiments, the manifest "
			"lists %zu\n", rs->dir, r->n, json_array_size(json_object_get(m, "experiments")));
		return EXIT_USAGE;
	}
	for (size_t k = 0; k < r->n; k++) {
		struct exp *x = &r->e[r->order[k]];
		int st;

		if (resume_check_experiment(rs, k, &x->spec) < 0)
			return EXIT_USAGE;
		if (!x->probe_ok)
			continue;	/* failed again, as a run would */
		alloc_rounds(x);
		st = resume_experiment(rs, k, &x->spec, &x->lp, x->pts, x->n_pts, x->planned,
				       x->rounds, x->n_rounds, &x->result);
		if (st < 0)
			return EXIT_USAGE;
		x->finished = st == 1;
	}
	return EXIT_OK;
}

int run_main(char **paths, size_t npaths, const struct cli_opts *o)
{
	struct run r = {.o = o, .lock = -1};
	char **files = NULL, err[4096];
	size_t nfiles = 0;
	int rc;
	struct sigaction sa, old_int, old_term;

	/* caught from the start: a Ctrl-C at any moment ends the run the same
	   way (before the folder exists: nothing written; after: a manifest
	   that says interrupted).  No SA_RESTART: poll() must wake. */
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	interrupted = 0;
	write_failed = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);

	if (plan_collect(paths, npaths, &files, &nfiles, err, sizeof err) < 0) {
		fprintf(stderr, "runner: %s\n", err);
		rc = EXIT_USAGE;
		goto out;
	}
	rc = prepare(files, nfiles, o, &r.e, &r.n);
	plan_files_free(files, nfiles);
	if (rc)
		goto out;
	if ((rc = order_exps(&r)) != EXIT_OK)
		goto out;
	if (o->check_only) {
		for (size_t i = 0; i < r.n; i++) {
			const struct exp *x = &r.e[i];
			printf("%s: ok (%s, probe '%s', %zu point%s)\n", x->spec.file, x->spec.name,
			       x->spec.probe, x->n_pts, x->n_pts == 1 ? "" : "s");
		}
		goto out;
	}
	r.seed = o->seed;
	if (!o->has_seed && getrandom(&r.seed, sizeof r.seed, 0) != sizeof r.seed)
		r.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	if (interrupted) {
		fprintf(stderr, "runner: interrupted before anything was measured: nothing written\n");
		rc = EXIT_INTERRUPTED;
		goto out;
	}
	if (o->resume) {	/* resume.c holds the folder's lock */
		if ((rc = resume_begin(&r)) != EXIT_OK)
			goto out;
	} else {
		make_run_id(&r);
		if ((rc = make_folder(&r)) != EXIT_OK)
			goto out;
		/* held until exit: `runner resume` will not touch a run still going */
		r.lock = results_lock_run(r.dir, err, sizeof err);
		start_manifest(&r);
	}
	run_with_servers(&r);
	rc = finish(&r);
out:
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (r.lock >= 0)
		close(r.lock);
	json_decref(r.all_results);
	json_decref(r.manifest);
	json_decref(r.machine);
	free(r.order);
	free_exps(r.e, r.n);
	return rc;
}
