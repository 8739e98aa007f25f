/*
 * engine.c - a run request measured into its run folder (engine.h).
 *
 * Everything that can be wrong with the input is found before anything is
 * written (exit 2, no run folder).  Then each point runs in its own child
 * (exec/), in rounds; each experiment's JSON is rewritten atomically after
 * every round, so a crash, a kill or Ctrl-C keeps every finished round.
 */
#include <errno.h>
#include <math.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine/canary.h"
#include "engine/level.h"
#include "engine/engine.h"
#include "engine/experiments.h"
#include "engine/progress.h"
#include "lib/exitcode.h"
#include "lib/jsonutil.h"
#include "lib/monotonic.h"
#include "machine/machine.h"
#include "report/report.h"
#include "results/results.h"
#include "serve/serve.h"
#include "store/store.h"

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

/* SIGINT and SIGTERM set `interrupted` from here until the process exits:
   never restored, so a signal that arrives after the manifest is final
   cannot turn the exit status into 130 or 143 against it.  No SA_RESTART:
   poll() must wake. */
static void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	interrupted = 0;
	write_failed = 0;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* One run of the request, from the run folder to the report. */
struct run {
	const struct engine_request *rq;
	const struct engine_options *o;
	struct experiment *e; size_t n;
	size_t *order;			/* run order: subtract: targets first */
	uint64_t seed;
	char run_id[256], dir[4096], scratch[4096];
	double tsc_hz;
	uint64_t llc_bytes;		/* the machine's last-level cache, for probes; 0 */
	json_t *machine, *manifest, *all_results;
	struct progress pg;
	int any_failed;
	struct serve_servers srv;	/* --peer, --nfs */
	struct canary canary;		/* the drift check */
	int passes;			/* passes of rounds begun */
	int lock;			/* the run folder's lock (results_lock_run), or -1 */
	struct machine_facts facts;	/* --machine FILE; facts.values NULL: none */
	struct store *history;		/* the store, read for earlier runs' spread; NULL */
};

/* The copy of --machine FILE in the run folder (rerun gives it again). */
#define FACTS_COPY "machine-facts.yaml"

/* --machine FILE read and checked before anything is written: EXIT_OK, or
   EXIT_USAGE (said). */
static int load_facts(const char *file, int copy, struct machine_facts *f)
{
	char err[4600];

	if (!file)
		return EXIT_OK;
	if ((copy ? machine_facts_load_copy(file, f, err, sizeof err)
		  : machine_facts_load(file, NULL, f, err, sizeof err)) < 0) {
		fprintf(stderr, "runner: %s\n", err);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

static void stop_on_write_error(const char *err)
{
	fprintf(stderr, "runner: cannot write %s: the run stops here; what was written before "
		"is kept\n", err);
	write_failed = 1;
	interrupted = 1;
}

static int write_manifest(struct run *r)
{
	char err[4600];

	if (write_failed)
		return -1;	/* stopped: the first failure was said */
	if (results_write_manifest(r->dir, r->manifest, err, sizeof err) < 0) {
		stop_on_write_error(err);
		return -1;
	}
	return 0;
}

static int write_result(struct run *r, const struct experiment *x)
{
	char err[4600];

	if (write_failed)
		return -1;
	if (results_write_experiment(r->dir, x->spec.name, x->result, err, sizeof err) < 0) {
		stop_on_write_error(err);
		return -1;
	}
	return 0;
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

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb; (void)flag; (void)ftw;
	return remove(p);
}

/* The machine description's last-level cache (machine.llc), unless it
   calls it implausible (a socket's L3 reported to a small guest); 0 when
   none is known. */
static uint64_t llc_of(json_t *machine)
{
	json_t *llc = json_object_get(machine, "llc");
	json_int_t size = json_integer_value(json_object_get(llc, "size_bytes"));

	if (!json_is_true(json_object_get(llc, "plausible")) || size <= 0)
		return 0;
	return (uint64_t)size;
}

/* --- the folder ------------------------------------------------------------ */

/* A new run folder with the specs as given.  EXIT_OK, EXIT_USAGE (it
   exists) or EXIT_INTERNAL (said). */
static int new_folder(struct run *r)
{
	const struct spec **specs = calloc(r->n + 1, sizeof *specs);
	char err[4600];
	int rc;

	if (r->o->run_id)
		snprintf(r->run_id, sizeof r->run_id, "%s", r->o->run_id);
	else
		results_run_id(r->run_id, sizeof r->run_id, "", mix64(r->seed ^ (uint64_t)getpid()));
	for (size_t i = 0; specs && i < r->n; i++)
		specs[i] = &r->e[i].spec;
	rc = specs ? results_folder_create(r->o->out_dir, r->run_id, specs, r->n, r->dir,
					   sizeof r->dir, err, sizeof err) : -ENOMEM;
	free(specs);
	if (rc < 0) {
		fprintf(stderr, "runner: %s\n", rc == -ENOMEM ? "out of memory" : err);
		return rc == -EEXIST ? EXIT_USAGE : EXIT_INTERNAL;
	}
	/* held until exit: a resume will not touch a run still going */
	r->lock = results_lock_run(r->dir, err, sizeof err);
	return EXIT_OK;
}

/* The machine, once, and the manifest listing every experiment as pending. */
static void new_manifest(struct run *r)
{
	const struct engine_options *o = r->o;

	if (o->verbose)
		fprintf(stderr, "runner: calibrating the TSC against CLOCK_MONOTONIC_RAW\n");
	r->tsc_hz = machine_calibrate_tsc();
	r->machine = machine_describe(r->tsc_hz);
	if (r->facts.values) {
		char path[4200], err[4600];

		snprintf(path, sizeof path, "%s/" FACTS_COPY, r->dir);
		if (results_write_file(path, r->facts.text, r->facts.len, err, sizeof err) < 0)
			stop_on_write_error(err);
		machine_facts_apply(r->machine, &r->facts, FACTS_COPY);
	}
	struct results_run rr = {
		.run_id = r->run_id, .seed = r->seed, .argc = o->argc, .argv = (char **)o->argv,
		.sets = o->sets, .n_sets = o->n_sets, .filters = o->filters, .n_filters = o->n_filters,
		.quick = o->quick, .probe_dir = loader_dir(), .peer = o->peer,
		.origin = r->rq->origin, .title = o->title, .author = o->author, .course = o->course,
	};
	r->manifest = results_manifest_new(&rr, r->machine);
	for (size_t k = 0; k < r->n; k++) {
		struct experiment *x = &r->e[r->order[k]];
		results_manifest_add(r->manifest, &x->spec, x->probe_ok ? &x->lp : NULL, x->probe_err);
	}
	write_manifest(r);
}

/* The k-th experiment's saved result and rounds, in a folder the run goes
   on in.  EXIT_OK or EXIT_USAGE (said). */
static int keep_experiment(struct run *r, size_t k, struct experiment *x)
{
	const json_t *me = json_array_get(json_object_get(r->manifest, "experiments"), k);
	const char *name = json_string_value(json_object_get(me, "name"));
	const char *sha = json_string_value(json_object_get(me, "spec_sha256"));
	const json_t *saved = json_object_get(r->rq->kept, x->spec.name);
	json_t *kept = json_object_get(r->rq->account, "kept");
	char err[1024];
	int n;

	if (!name || strcmp(name, x->spec.name) != 0) {
		fprintf(stderr, "runner: %s: the saved specs plan experiment %zu as '%s', the "
			"manifest says '%s'\n", r->dir, k + 1, x->spec.name, name ? name : "(none)");
		return EXIT_USAGE;
	}
	if (sha && strcmp(sha, x->spec.sha256) != 0) {
		fprintf(stderr, "runner: %s: %s changed since the run (its sha256 is not the "
			"manifest's): the rest would not be measured with the same spec\n", r->dir,
			x->spec.file);
		return EXIT_USAGE;
	}
	if (!x->probe_ok || !saved)
		return EXIT_OK;	/* failed again, as a run would; or never started */
	experiments_alloc_rounds(x);
	if (results_status_finished(json_string_value(json_object_get(me, "status")))) {
		x->result = json_deep_copy(saved);
		x->finished = 1;
		x->kept_whole = 1;
		jsonutil_set(kept, x->spec.name, jsonutil_text("finished"));
		return EXIT_OK;
	}
	n = results_restore_rounds(saved, &x->spec, &x->lp, x->pts, x->n_pts, x->max_rounds,
				   x->rounds, x->n_rounds, err, sizeof err);
	if (n < 0) {
		fprintf(stderr, "runner: %s/results/%s.json: %s\n", r->dir, x->spec.name, err);
		return EXIT_USAGE;
	}
	x->result = json_deep_copy(saved);
	x->n_kept = calloc(x->n_pts + 1, sizeof *x->n_kept);
	for (size_t p = 0; x->n_kept && p < x->n_pts; p++)
		x->n_kept[p] = x->n_rounds[p];
	jsonutil_set(kept, x->spec.name, json_pack("{s:I}", "rounds", (json_int_t)n));
	return EXIT_OK;
}

/* The run goes on in the request's folder with its manifest, machine and
   TSC rate, keeping the rounds already kept.  EXIT_OK or EXIT_USAGE (said)
   before anything is written. */
static int keep_folder(struct run *r)
{
	const struct engine_request *rq = r->rq;
	json_t *m = rq->manifest;
	const char *id = json_string_value(json_object_get(m, "run_id"));

	snprintf(r->run_id, sizeof r->run_id, "%s", id ? id : "");
	snprintf(r->dir, sizeof r->dir, "%s", rq->dir);
	r->manifest = json_incref(m);
	r->machine = json_incref(json_object_get(m, "machine"));
	r->tsc_hz = json_number_value(json_object_get(r->machine, "tsc_hz"));
	if (json_array_size(json_object_get(m, "experiments")) != r->n) {
		fprintf(stderr, "runner: %s: the saved specs plan %zu experiments, the manifest "
			"lists %zu\n", rq->dir, r->n, json_array_size(json_object_get(m, "experiments")));
		return EXIT_USAGE;
	}
	if (rq->account) {
		if (!json_object_get(rq->account, "kept"))
			jsonutil_set(rq->account, "kept", json_object());
		if (!json_object_get(rq->account, "measured"))
			jsonutil_set(rq->account, "measured", json_object());
	}
	for (size_t k = 0; k < r->n; k++) {
		int rc = keep_experiment(r, k, &r->e[r->order[k]]);
		if (rc != EXIT_OK)
			return rc;
	}
	return EXIT_OK;
}

/* The account of a run in a kept folder: one more round of `experiment`'s
   point `point` measured. */
static void account_measured(struct run *r, const char *experiment, size_t point)
{
	json_t *measured = json_object_get(r->rq->account, "measured");
	json_t *e = json_object_get(measured, experiment), *pts, *v;
	size_t i;

	if (!measured)
		return;
	if (!e) {
		e = json_pack("{s:[],s:i}", "points", "rounds", 0);
		jsonutil_set(measured, experiment, e);
	}
	jsonutil_set(e, "rounds", json_integer(json_integer_value(json_object_get(e, "rounds")) + 1));
	pts = json_object_get(e, "points");
	json_array_foreach(pts, i, v)
		if (json_integer_value(v) == (json_int_t)point)
			return;
	jsonutil_append(pts, json_integer((json_int_t)point));
}

/* --- rounds ---------------------------------------------------------------- */

/* Round `round` of point pi of x in a child (a fresh process); the point's
   JSON is rebuilt from its rounds so far.  A round's seed depends only on
   the run's seed, the experiment, the point and the round, so a run that
   goes on in its folder measures what one uninterrupted run would have. */
static void run_round(struct run *r, struct experiment *x, size_t pi, int round, json_t *const *deps)
{
	const struct engine_options *o = r->o;
	json_t *points = json_object_get(x->result, "points");
	struct plan_point *pt = &x->pts[pi];
	struct point_result *res;
	uint64_t pseed = mix64(r->seed ^ hash_str(x->spec.name) ^ mix64(pt->index));
	const struct serve_nfs *nfs = r->srv.nfs;
	struct exec_ctx ctx = {
		.seed = round ? mix64(pseed ^ mix64((uint64_t)round)) : pseed,
		.scratch_root = r->scratch, .peer = serve_peer_addr(&r->srv.peer),
		.peer_token = r->srv.token, .tsc_hz = r->tsc_hz, .llc_bytes = r->llc_bytes,
		.nfs_url = serve_nfs_url(nfs), .nfs_local_dir = serve_nfs_local_dir(nfs),
		.nfs_label = serve_nfs_label(nfs), .nfs_error = serve_nfs_error(nfs),
		.nfs_cpu = serve_nfs_cpu(nfs),
		.quick = o->quick, .verbose = o->verbose, .probe_dir = loader_dir(),
		.interrupted = &interrupted, .on_sample = progress_on_sample, .arg = &r->pg,
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
			x->n_pts, round + 1, round < x->planned ? x->planned : x->max_rounds, t ? t : "");
		free(t);
		json_decref(pt_text);
	}
	res = &x->rounds[pi][x->n_rounds[pi]];
	double started = monotonic_s() - r->pg.t0;
	if (exec_point(&ctx, &x->spec, &x->lp, pt, res) < 0)
		fprintf(stderr, "runner: '%s': %s\n", x->spec.name, res->reason);
	res->started_s = started;
	x->n_rounds[pi]++;
	/* an adaptive point past its min rounds planned each one it took */
	int planned = (size_t)x->planned > x->n_rounds[pi] ? x->planned : (int)x->n_rounds[pi];
	json_t *pj = results_point(&x->spec, &x->lp, pt, x->rounds[pi], x->n_rounds[pi], planned,
				   r->tsc_hz, pseed, deps);
	if (pi < json_array_size(points))
		json_array_set_new(points, pi, pj);
	else
		jsonutil_append(points, pj);
	r->pg.done_all++;
	account_measured(r, x->spec.name, pt->index);
}

/* A kept experiment needs no start; one that had finished is counted as done. */
static void kept_experiment(struct run *r, struct experiment *x)
{
	for (size_t p = 0; p < x->n_pts; p++)
		r->pg.total_all -= x->finished || x->n_rounds[p] > (size_t)x->planned
				   ? (size_t)x->planned : x->n_rounds[p];
	if (!x->finished)
		return;
	json_array_append(r->all_results, x->result);
	if (!r->o->quiet)
		progress_summary(x);
}

/* The experiment's result, "running", written before its first round. */
static void start_experiment(struct run *r, struct experiment *x)
{
	if (x->result) {
		kept_experiment(r, x);
		return;
	}
	x->result = results_experiment_new(&x->spec, x->probe_ok ? &x->lp : NULL, r->tsc_hz);
	if (!x->rounds)
		experiments_alloc_rounds(x);
	if (!x->probe_ok) {
		/* A broken probe fails its experiment, not the run. */
		jsonutil_append(json_object_get(x->result, "points"),
				results_failed_point(x->probe_err));
		fprintf(stderr, "runner: %s\n", x->probe_err);
		r->pg.done_all++;
	}
	write_result(r, x);	/* visible as "running" from the start */
}

/* One round of every point of the k-th experiment in run order. */
static void run_pass(struct run *r, size_t k, int round)
{
	struct experiment *x = &r->e[r->order[k]];
	json_t **deps = calloc(x->spec.n_subtract + 1, sizeof *deps);

	for (size_t d = 0; d < x->spec.n_subtract; d++) {
		struct experiment *dx = experiments_find(r->e, r->n, x->spec.subtract[d]);
		deps[d] = dx ? dx->result : NULL;
	}
	r->pg.x = x;
	r->pg.npoints = x->n_pts;
	for (size_t pi = 0; pi < x->n_pts && !interrupted; pi++)
		if (x->n_rounds[pi] <= (size_t)round &&	/* kept rounds are not run again */
		    x->stop[pi] == STATS_ROUNDS_MORE)	/* nor a point that stopped */
			run_round(r, x, pi, round, deps);
	free(deps);
	jsonutil_set(x->result, "status",
		     jsonutil_text(results_status(json_object_get(x->result, "points"), interrupted)));
	write_result(r, x);
}

static void record_rounds(struct experiment *x, int cut);

/* The store, opened as the run begins for what earlier runs on this
   machine say: how far whole runs move (store_rerun_history).  A store
   that cannot be opened or read costs the points that widening only; the
   run's own record at the end says what is wrong with it. */
static void open_history(struct run *r)
{
	char err[4096];

	if (!r->o->no_store)
		r->history = store_open_read(r->o->store, r->o->out_dir, STORE_MISSING_EMPTY, err,
					     sizeof err);	/* read only; none yet: empty */
}

static void rerun_history(struct run *r, struct experiment *x)
{
	char err[4096];

	if (r->history && store_rerun_history(r->history, x->result, r->machine, r->run_id, err,
					      sizeof err) < 0) {
		if (r->o->verbose)
			fprintf(stderr, "runner: earlier runs not read from the store: %s\n", err);
		store_close(r->history);
		r->history = NULL;
	}
}

/* The k-th experiment after its last round (or the interrupt): findings,
   status, the manifest's entry and the summary line. */
/* Rounds interleave, so an experiment can end before one its model reads
   (@name) has measured its last round: its prediction was made from that
   one's estimate at the time.  Once every experiment has ended, each
   prediction is made again from the final estimates, the ones the report
   prints, and the result written again when it changed. */
static void predict_again(struct run *r)
{
	json_t *by_name = json_object();

	for (size_t i = 0; i < r->n; i++)
		if (r->e[i].result)
			json_object_set(by_name, r->e[i].spec.name, r->e[i].result);
	for (size_t i = 0; i < r->n && !write_failed; i++) {
		struct experiment *x = &r->e[i];
		json_t *before;

		if (!x->probe_ok || !x->result || !x->finished || !x->spec.n_uses)
			continue;
		before = json_deep_copy(json_object_get(x->result, "points"));
		results_predict(x->result, r->machine, by_name);
		if (!json_equal(before, json_object_get(x->result, "points")))
			write_result(r, x);
		json_decref(before);
	}
	json_decref(by_name);
}

static void finish_experiment(struct run *r, size_t k)
{
	struct experiment *x = &r->e[r->order[k]];
	json_t *points = json_object_get(x->result, "points");
	int cut = x->probe_ok && interrupted;

	if (x->finished)
		return;
	x->finished = 1;
	if (x->probe_ok && x->result)
		record_rounds(x, cut);
	if (r->pg.tty && !r->o->quiet)
		fprintf(stderr, "\r\033[K");
	if (x->probe_ok && x->spec.n_findings && !cut)
		results_findings(&x->spec, x->result, r->machine);
	if (x->probe_ok)
		results_scaling_flags(x->result);
	if (x->probe_ok) {
		/* prediction formulas read the machine and the other results of
		   the run: those run before this one (plan_order) are done */
		json_t *by_name = json_object();
		for (size_t i = 0; i < r->n; i++)
			if (r->e[i].result)
				json_object_set(by_name, r->e[i].spec.name, r->e[i].result);
		results_predict(x->result, r->machine, by_name);
		json_decref(by_name);
	}
	if (x->probe_ok)
		rerun_history(r, x);
	const char *st = results_status(points, cut);
	jsonutil_set(x->result, "status", jsonutil_text(st));
	write_result(r, x);
	if (strcmp(st, "ok") != 0 && strcmp(st, "skipped") != 0)
		r->any_failed = 1;
	results_manifest_set_status(r->manifest, k, st);
	write_manifest(r);
	json_array_append(r->all_results, x->result);
	if (!r->o->quiet)
		progress_summary(x);
}

/* The experiment's "rounds" record, and each adaptive point's
   "rounds_stopped" (docs/results-format.md). */
static void record_rounds(struct experiment *x, int cut)
{
	const struct spec_rounds *rule = &x->spec.rounds_rule;
	json_t *points = json_object_get(x->result, "points"), *count = json_object(), *pj;
	size_t run = 0, i;

	for (size_t p = 0; p < x->n_pts; p++) {
		if (x->n_rounds[p] > run)
			run = x->n_rounds[p];
		if (cut && x->stop[p] == STATS_ROUNDS_MORE)
			x->stop[p] = STATS_ROUNDS_INTERRUPTED;
	}
	x->stopped = cut ? STATS_ROUNDS_INTERRUPTED : !x->adaptive ? STATS_ROUNDS_FIXED
		     : stats_rounds_overall(x->stop, x->n_pts);
	json_array_foreach(points, i, pj) {
		const char *name;
		if (!x->adaptive || i >= x->n_pts)
			continue;
		name = stats_rounds_stop_name(x->stop[i]);
		jsonutil_set(pj, "rounds_stopped", jsonutil_text(name));
		jsonutil_set(pj, "rounds_rel_half_width", results_num(x->rel_half[i]));
		jsonutil_set(count, name, json_integer(json_integer_value(json_object_get(count, name)) + 1));
	}
	jsonutil_set(x->result, "rounds", json_pack("{s:b,s:i,s:i,s:o,s:o,s:o,s:o,s:I,s:s,s:o}",
		"adaptive", x->adaptive, "min", x->planned, "max", x->max_rounds,
		"target", x->adaptive ? results_num(rule->target) : json_null(),
		"budget_s", x->adaptive && rule->budget > 0 ? json_real(rule->budget) : json_null(),
		"budget_used_s", x->adaptive ? results_num(x->budget_s) : json_null(),
		"extra_s", x->adaptive ? results_num(x->extra_s) : json_null(),
		"run", (json_int_t)run, "stopped", stats_rounds_stop_name(x->stopped),
		"points", x->adaptive ? count : (json_decref(count), json_null())));
}

/* The estimate of round k of point p as analysed (null: none). */
static double round_estimate(const struct experiment *x, size_t p, size_t k)
{
	const json_t *pj = json_array_get(json_object_get(x->result, "points"), p);
	const json_t *v = json_object_get(json_array_get(json_object_get(pj, "rounds"), k), "estimate");

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Before pass `round` (>= min) of an adaptive experiment: which of its
   points take another round (stats_rounds_decide over the rounds so far,
   the passes the drift check flags now, the time its extra rounds took and
   may take).  A point that stops is done for the run, so round k of a
   point is always measured in pass k.  Returns how many points take it. */
static size_t decide_rounds(struct run *r, struct experiment *x, int round, const int *drifted)
{
	struct stats_rounds_point *pts = calloc(x->n_pts + 1, sizeof *pts);
	size_t *who = calloc(x->n_pts + 1, sizeof *who), n = 0, take = 0;
	double *est = calloc((x->n_pts + 1) * (size_t)x->max_rounds, sizeof *est);
	unsigned char *dr = calloc((x->n_pts + 1) * (size_t)x->max_rounds, 1);
	double min_s = 0;
	struct stats_rounds_rule rule = {x->planned, x->max_rounds, x->spec.rounds_rule.target, 0};

	if (!pts || !who || !est || !dr) {
		for (size_t p = 0; p < x->n_pts; p++)
			if (x->stop[p] == STATS_ROUNDS_MORE && x->n_rounds[p] <= (size_t)round)
				x->stop[p] = STATS_ROUNDS_NO_ESTIMATE;	/* out of memory: no more */
		goto out;
	}
	x->extra_s = 0;
	for (size_t p = 0; p < x->n_pts; p++)
		for (size_t k = 0; k < x->n_rounds[p]; k++) {
			double e = x->rounds[p][k].elapsed_s;
			if (!isfinite(e))
				continue;
			if (k < (size_t)x->planned)
				min_s += e;
			else
				x->extra_s += e;
		}
	x->budget_s = rule.budget_s = x->spec.rounds_rule.budget > 0 ? x->spec.rounds_rule.budget : min_s;
	for (size_t p = 0; p < x->n_pts; p++) {
		if (x->stop[p] != STATS_ROUNDS_MORE)
			continue;
		if (x->n_rounds[p] > (size_t)round) {	/* a kept round: measured before */
			take++;
			continue;
		}
		struct stats_rounds_point *sp = &pts[n];
		double *e = est + n * (size_t)x->max_rounds;
		unsigned char *d = dr + n * (size_t)x->max_rounds;
		double cost = 0;
		size_t costed = 0, kept = x->n_kept ? x->n_kept[p] : 0;

		for (size_t k = 0; k < x->n_rounds[p]; k++) {
			e[k] = round_estimate(x, p, k);
			/* passes of this run only: a kept round's pass was another run's */
			d[k] = k >= kept && (int)k < round && drifted[k];
			if (isfinite(x->rounds[p][k].elapsed_s)) {
				cost += x->rounds[p][k].elapsed_s;
				costed++;
			}
		}
		*sp = (struct stats_rounds_point){.est = e, .drifted = d, .n = x->n_rounds[p],
						   .cost_s = costed ? cost / (double)costed : 0};
		who[n++] = p;
	}
	take += stats_rounds_decide(pts, n, &rule, x->extra_s);
	for (size_t i = 0; i < n; i++) {
		x->stop[who[i]] = pts[i].stop;
		x->rel_half[who[i]] = pts[i].rel_half;
		if (pts[i].stop == STATS_ROUNDS_MORE)
			r->pg.total_all++;
	}
out:
	free(pts);
	free(who);
	free(est);
	free(dr);
	return take;
}

/* Does the k-th experiment take pass `round`?  A fixed one up to its
   planned rounds; an adaptive one its first min passes, then while
   decide_rounds wants more (when it wants none, it is finished here). */
static int takes_pass(struct run *r, size_t k, int round, const int *drifted)
{
	struct experiment *x = &r->e[r->order[k]];

	if (!x->probe_ok || x->finished)
		return 0;
	if (round < x->planned)
		return 1;
	if (x->adaptive && round < x->max_rounds && decide_rounds(r, x, round, drifted) > 0)
		return 1;
	if (x->adaptive && round >= x->max_rounds)
		for (size_t p = 0; p < x->n_pts; p++)
			if (x->stop[p] == STATS_ROUNDS_MORE)
				x->stop[p] = STATS_ROUNDS_MAX;
	finish_experiment(r, k);
	return 0;
}

/* Round 0 of every point of every experiment in run order, then round 1
   ...: host drift spreads over all points, and a `subtract:` target's round
   r runs just before its users' round r.  The drift check's canary is timed
   before every pass and after the last.  An experiment is finished after
   its last round: a fixed one's `rounds`, an adaptive one's when none of
   its points wants more (decided before the pass, with the canary timing
   just taken); on an interrupt, every experiment not finished is. */
static void run_rounds(struct run *r)
{
	int *drifted = NULL, ended = 0;
	unsigned char *takes = calloc(r->n + 1, 1);

	for (size_t k = 0; k < r->n; k++) {
		struct experiment *x = &r->e[r->order[k]];
		start_experiment(r, x);
		if (!x->probe_ok)
			finish_experiment(r, k);
	}
	for (int round = 0; !interrupted && takes; round++) {
		int any = 0;

		if (round == 0) {
			for (size_t k = 0; k < r->n; k++)
				any |= r->e[r->order[k]].probe_ok && !r->e[r->order[k]].finished;
			if (!any)
				break;
		}
		canary_take(&r->canary, round);
		free(drifted);
		if (!(drifted = calloc((size_t)round + 1, sizeof *drifted)))
			break;
		canary_drifted(&r->canary, round, drifted);
		any = 0;
		for (size_t k = 0; k < r->n; k++)
			any |= takes[k] = (unsigned char)takes_pass(r, k, round, drifted);
		if (!any) {
			canary_last(&r->canary);	/* it was the timing after the last pass */
			ended = 1;
			break;
		}
		r->passes = round + 1;
		for (size_t k = 0; k < r->n && !interrupted; k++) {
			struct experiment *x = &r->e[r->order[k]];
			if (!takes[k])
				continue;
			run_pass(r, k, round);
			if (!x->adaptive && round == x->planned - 1 && !interrupted)
				finish_experiment(r, k);
		}
	}
	if (r->passes && !ended)
		canary_take(&r->canary, -1);
	for (size_t k = 0; k < r->n; k++)
		finish_experiment(r, k);
	predict_again(r);
	free(drifted);
	free(takes);
}

/* The rounds a point measured during a drifted pass of this run (not the
   first `kept` rounds, measured before it), flagged in its JSON
   ("host_drift"); returns 1 when the point was flagged. */
static int flag_point(json_t *pj, size_t kept, const int *drifted, int passes, double spread)
{
	json_t *rounds = json_object_get(pj, "rounds"), *rj, *sanity;
	char list[256] = "", msg[512];
	size_t i, off = 0, n = 0;

	json_array_foreach(rounds, i, rj) {
		json_int_t k = json_integer_value(json_object_get(rj, "round"));
		if (k < (json_int_t)kept || k >= passes || !drifted[k] || off >= sizeof list)
			continue;
		off += (size_t)snprintf(list + off, sizeof list - off, "%s%lld", n ? ", " : "",
					(long long)k);
		n++;
	}
	if (!n)
		return 0;
	snprintf(msg, sizeof msg, "round%s %s ran while the host changed speed (a fixed canary "
		 "workload varied %.2fx over the run): this point's spread and estimate may be the "
		 "host's", n > 1 ? "s" : "", list, spread);
	sanity = json_object_get(pj, "sanity");
	if (!json_is_array(sanity)) {
		sanity = json_array();
		jsonutil_set(pj, "sanity", sanity);
	}
	jsonutil_append(sanity, json_pack("{s:s,s:o}", "flag", "host_drift", "message",
					  jsonutil_text(msg)));
	return 1;
}

/* The run's level against the earlier runs on this machine (level.h):
   drift.history in the manifest, and a line when this run or an earlier
   one ran at another speed than the rest. */
static void compare_level(struct run *r, json_t *d)
{
	char err[4096], a[128], b[96];
	json_t *h, *e;
	size_t i;

	if (!r->history) {
		jsonutil_set(d, "history", json_pack("{s:s,s:s}", "verdict", "not compared", "why",
						     r->o->no_store ? "no results store (--no-store)"
						     : "the results store could not be read"));
		return;
	}
	if (!(h = level_verdict(r->history, d, r->machine, r->run_id, err, sizeof err))) {
		jsonutil_set(d, "history", json_pack("{s:s,s:o}", "verdict", "not compared", "why",
						     jsonutil_text(err)));
		return;
	}
	jsonutil_set(d, "history", h);
	if (r->o->quiet)
		return;
	if (!strcmp(jsonutil_str(h, "verdict"), "shifted"))
		printf("%-20s %-11s this whole run ran at another speed than this machine's %lld "
		       "earlier runs (%s the median of their levels and its own, %s): "
		       "compare it with them with care\n", "(host)", "shifted",
		       (long long)json_integer_value(json_object_get(h, "runs")),
		       results_level_ratios(h, a, sizeof a), results_level_bands(h, b, sizeof b));
	json_array_foreach(json_object_get(h, "earlier_off"), i, e)
		printf("%-20s %-11s the earlier run %s ran at another speed than the rest (%s the "
		       "median)\n", "(host)", "shifted", jsonutil_str(e, "run"),
		       results_level_ratios(e, a, sizeof a));
}

/* The drift check's verdict: in the manifest; when the host changed
   speed, every point measured in a pass it touched is flagged (its result
   written again) and the run says so. */
static void check_drift(struct run *r)
{
	int *drifted = calloc((size_t)r->passes + 1, sizeof *drifted);
	json_t *d;
	size_t flagged = 0, exps = 0;

	if (!drifted)
		return;
	d = canary_verdict(&r->canary, r->passes, drifted);
	jsonutil_set(r->manifest, "drift", d);
	if (strcmp(json_string_value(json_object_get(d, "verdict")), "drifted") == 0) {
		double spread = json_number_value(json_object_get(d, "spread"));

		for (size_t k = 0; k < r->n; k++) {
			struct experiment *x = &r->e[r->order[k]];
			json_t *pj;
			size_t i, here = 0;

			if (!x->probe_ok || !x->result || x->kept_whole)
				continue;	/* a finished experiment kept is left as it was */
			json_array_foreach(json_object_get(x->result, "points"), i, pj)
				here += (size_t)flag_point(pj, x->n_kept && i < x->n_pts ? x->n_kept[i] : 0,
							   drifted, r->passes, spread);
			if (here)
				write_result(r, x);
			flagged += here;
			exps += here > 0;
		}
		char rounds[256] = "";
		size_t off = 0;
		for (int p = 0; p < r->passes && off < sizeof rounds; p++)
			if (drifted[p])
				off += (size_t)snprintf(rounds + off, sizeof rounds - off, "%s%d",
							off ? ", " : "", p);
		jsonutil_set(d, "flagged_points", json_integer((json_int_t)flagged));
		if (!r->o->quiet)
			printf("%-20s %-11s the host changed speed: a fixed canary workload varied "
			       "%.2fx (threshold %.0f %%); %zu points of %zu experiments measured in "
			       "round%s %s are flagged host_drift\n", "(host)", "drifted", spread,
			       100 * CANARY_THRESHOLD, flagged, exps, strchr(rounds, ',') ? "s" : "",
			       rounds);
	}
	free(drifted);
	compare_level(r, d);
	write_manifest(r);
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

	r->pg = (struct progress){.quiet = r->o->quiet, .tty = isatty(2), .t0 = monotonic_s()};
	for (size_t i = 0; i < r->n; i++)
		r->pg.total_all += r->e[i].probe_ok ? r->e[i].n_pts * (size_t)exec_rounds(&r->e[i].spec) : 1;
	r->all_results = json_array();
	canary_init(&r->canary);
	run_rounds(r);
	check_drift(r);
	canary_free(&r->canary);
	nftw(r->scratch, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* The peer's machine (--peer): asked of the peer (serve INFO), recorded in
   the manifest's "peer"; a peer that cannot say is recorded with why. */
static void peer_machine(struct run *r)
{
	const char *addr = serve_peer_addr(&r->srv.peer);
	char err[1024] = "";
	json_t *pm = NULL;

	if (!r->o->peer || interrupted)
		return;
	if (!addr)
		snprintf(err, sizeof err, "no peer");
	else if (addr[0] == '!')
		snprintf(err, sizeof err, "%s", addr + 1);
	else if (serve_peer_machine(addr, r->srv.token, 10, &pm, err, sizeof err) < 0 &&
		 r->o->verbose)
		fprintf(stderr, "runner: %s\n", err);
	results_manifest_set_peer(r->manifest, r->o->peer, addr && addr[0] != '!' ? addr : NULL,
				  pm, err);
	json_decref(pm);
}

/* The servers the probes talk to (--peer, --nfs), the run, and the servers
   stopped and removed again.  Ctrl-C / SIGTERM stop the running point
   (exec kills its process group) or a server's start, keep everything
   finished and still tear the servers down. */
static void run_with_servers(struct run *r)
{
	const struct engine_options *o = r->o;

	serve_servers_up(&r->srv, o->peer, o->nfs, o->token, o->quiet, &interrupted);
	/* the server the kept points read from, before the entry describes
	   this run's */
	json_t *nfs_before = json_object_get(r->manifest, "nfs");
	if (r->rq->account && nfs_before && !json_object_get(r->rq->account, "nfs_before"))
		jsonutil_set(r->rq->account, "nfs_before", json_deep_copy(nfs_before));
	results_manifest_set_nfs(r->manifest, o->nfs, serve_nfs_url(r->srv.nfs),
				 serve_nfs_label(r->srv.nfs), serve_nfs_local_dir(r->srv.nfs),
				 serve_nfs_error(r->srv.nfs));
	peer_machine(r);
	write_manifest(r);
	run_all(r);
	serve_servers_down(&r->srv);
}

/* This run's account onto the manifest's list (a run in a kept folder). */
static void append_account(struct run *r, int exit_code)
{
	const struct engine_request *rq = r->rq;
	json_t *list;
	char now[64];

	if (!rq->account || !rq->account_key)
		return;
	list = json_object_get(r->manifest, rq->account_key);
	results_iso_now(now, sizeof now);
	jsonutil_set(rq->account, "finished", jsonutil_text(now));
	jsonutil_set(rq->account, "exit_code", json_integer(exit_code));
	if (!json_is_array(list)) {
		list = json_array();
		jsonutil_set(r->manifest, rq->account_key, list);
	}
	json_array_append(list, rq->account);
}

/* The report at the end of a run; a failure is said and recorded in the
   manifest, and the exit code says it too.  Returns the exit code. */
static int render_report(struct run *r, int exit_code)
{
	const struct engine_options *o = r->o;
	const char *tdir = o->templates ? o->templates : report_default_templates();
	char err[4096];
	int rc;

	if (o->verbose)
		fprintf(stderr, "runner: rendering the report from %s\n", tdir);
	report_set_interrupt(&interrupted);
	rc = report_render(r->dir, tdir, REPORT_ALL,
			   o->verbose, err, sizeof err);
	report_set_interrupt(NULL);
	if (rc >= 0)
		return exit_code;
	fprintf(stderr, "runner: report: %s\n", err);
	/* the manifest says what the exit code says */
	if (interrupted)
		exit_code = EXIT_INTERRUPTED;
	else if (!exit_code)
		exit_code = EXIT_FAILED;
	jsonutil_set(r->manifest, "report_error", jsonutil_text(err));
	results_manifest_finish(r->manifest, interrupted ? "interrupted" : "complete", exit_code);
	if (write_manifest(r) < 0)
		exit_code = EXIT_INTERNAL;
	return exit_code;
}

/* The manifest's "store": where the run is recorded (a URL without its
   password), whether it is (false until the store has committed: the
   record rewrites it, store_record), and the error when it could not be;
   null with --no-store. */
static void manifest_store(struct run *r, const char *error)
{
	const struct engine_options *o = r->o;
	char path[4200], *where;

	if (o->no_store) {
		jsonutil_set(r->manifest, "store", json_null());
		return;
	}
	snprintf(path, sizeof path, "%s/sysmeter.db", o->out_dir ? o->out_dir : "out");
	where = store_redacted(o->store ? o->store : path);
	jsonutil_set(r->manifest, "store", json_pack("{s:s,s:b,s:o}", "where", where, "recorded", 0,
						      "error", error ? jsonutil_text(error)
						      : json_null()));
	free(where);
}

/* The finished run (whole, interrupted or not) into the store.  A store
   that cannot take it (damaged, locked past the busy timeout, a server
   that does not answer) leaves the folder as it is, says so, records the
   error in the manifest and makes a run that would exit 0 exit 1
   (docs/cli.md, "Exit codes").  Returns the exit code. */
static int record_run(struct run *r, int exit_code)
{
	const struct engine_options *o = r->o;
	char err[4096];
	struct store *s;
	int n = -1;

	if (o->no_store)
		return exit_code;
	if ((s = store_open(o->store, o->out_dir, err, sizeof err)))
		n = store_record(s, r->dir, err, sizeof err);
	if (n >= 0 && o->verbose)
		fprintf(stderr, "runner: recorded %d points in %s\n", n, store_where(s));
	store_close(s);
	if (n >= 0) {
		/* store_record rewrote the pending manifest so: the copy here agrees */
		if (!write_failed)
			jsonutil_set(json_object_get(r->manifest, "store"), "recorded", json_true());
		return exit_code;
	}
	if (n == -2)	/* its run id is another run's: an import would be refused too */
		fprintf(stderr, "runner: the store: %s\nrunner: the run folder %s is complete\n", err,
			r->dir);
	else
		fprintf(stderr, "runner: the store: %s\nrunner: the run folder %s is complete; record "
			"it later with: runner store import %s\n", err, r->dir, r->dir);
	if (exit_code == EXIT_OK)
		exit_code = EXIT_FAILED;
	manifest_store(r, err);
	jsonutil_set(r->manifest, "exit_code", json_integer(exit_code));
	if (!write_failed && write_manifest(r) < 0)
		exit_code = EXIT_INTERNAL;
	return exit_code;
}

/* results.csv, out/latest, the manifest's end, the report, the store.
   Returns the exit code. */
static int finish(struct run *r)
{
	const struct engine_options *o = r->o;
	char err[4096];
	int exit_code;

	if (!write_failed && results_write_csv(r->dir, r->all_results, err, sizeof err) < 0)
		stop_on_write_error(err);
	/* one reading of the flag for both the status and the exit code: a
	   signal between two readings made a manifest say "interrupted" of a
	   run that exited 0 */
	int cut = interrupted;
	exit_code = write_failed ? EXIT_INTERNAL : cut ? EXIT_INTERRUPTED
		  : r->any_failed ? EXIT_FAILED : EXIT_OK;
	append_account(r, exit_code);
	manifest_store(r, NULL);
	results_manifest_finish(r->manifest, write_failed ? "write_failed"
				: cut ? "interrupted" : "complete", exit_code);
	if (write_failed)	/* one last try, so that a manifest that can be written says so */
		results_write_manifest(r->dir, r->manifest, err, sizeof err);
	else if (write_manifest(r) < 0)
		exit_code = EXIT_INTERNAL;
	if (interrupted && !write_failed)
		fprintf(stderr, "runner: interrupted: finished points are saved in %s\n", r->dir);
	if (!o->no_report && !interrupted)
		exit_code = render_report(r, exit_code);
	/* out/latest moves only to a run whose folder is whole */
	if (exit_code != EXIT_INTERNAL &&
	    results_link_latest(o->out_dir, r->run_id, err, sizeof err) < 0) {
		fprintf(stderr, "runner: cannot point out/latest at the run: %s\n", err);
		exit_code = EXIT_INTERNAL;
	}
	exit_code = record_run(r, exit_code);
	printf("%s\n", r->dir);
	if (fflush(stdout) == EOF && exit_code == EXIT_OK)
		exit_code = EXIT_INTERNAL;
	return exit_code;
}

int engine_run(const struct engine_request *rq)
{
	struct run r = {.rq = rq, .o = &rq->opt, .lock = -1};
	int rc;

	/* caught from the start: a Ctrl-C at any moment ends the run the same
	   way (before the folder exists: nothing written; after: a manifest
	   that says interrupted) */
	catch_signals();
	if ((rc = experiments_prepare(rq, 0, &r.e, &r.n, &r.order)) != EXIT_OK)
		goto out;
	r.seed = rq->seed;
	if (!rq->has_seed && getrandom(&r.seed, sizeof r.seed, 0) != sizeof r.seed)
		r.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	if (!rq->dir && (rc = load_facts(rq->opt.machine_file, rq->opt.machine_file_copy,
					 &r.facts)) != EXIT_OK)
		goto out;
	if (interrupted) {
		fprintf(stderr, "runner: interrupted before anything was measured: nothing written\n");
		rc = EXIT_INTERRUPTED;
		goto out;
	}
	if (rq->dir)	/* the caller holds the folder's lock */
		rc = keep_folder(&r);
	else if ((rc = new_folder(&r)) == EXIT_OK)
		new_manifest(&r);
	if (rc != EXIT_OK)
		goto out;
	r.llc_bytes = llc_of(r.machine);
	open_history(&r);
	run_with_servers(&r);
	store_close(r.history);	/* before the run records itself */
	r.history = NULL;
	rc = finish(&r);
out:
	store_close(r.history);
	if (r.lock >= 0)
		close(r.lock);
	json_decref(r.all_results);
	json_decref(r.manifest);
	json_decref(r.machine);
	free(r.order);
	experiments_free(r.e, r.n);
	machine_facts_free(&r.facts);
	return rc;
}

int engine_check(const struct engine_request *rq)
{
	struct experiment *e;
	struct machine_facts facts = {0};
	size_t n, *order;
	int rc = experiments_prepare(rq, 1, &e, &n, &order);

	if (rc != EXIT_OK)
		return rc;
	if ((rc = load_facts(rq->opt.machine_file, 0, &facts)) != EXIT_OK) {
		free(order);
		experiments_free(e, n);
		return rc;
	}
	if (facts.values)
		printf("%s: ok (machine facts: %zu key%s)\n", facts.file,
		       json_array_size(facts.keys), json_array_size(facts.keys) == 1 ? "" : "s");
	machine_facts_free(&facts);
	for (size_t i = 0; i < n; i++)
		printf("%s: ok (%s, probe '%s', %zu point%s)\n", e[i].spec.file, e[i].spec.name,
		       e[i].spec.probe, e[i].n_pts, e[i].n_pts == 1 ? "" : "s");
	free(order);
	experiments_free(e, n);
	return EXIT_OK;
}
