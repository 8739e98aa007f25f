/*
 * fleet_run.c - what both engines of `runner fleet` share (fleet_run.h):
 * the tools they run (supervised, killed with their process group on
 * Ctrl-C), the archive of this build and the specs, each host's outcome
 * read back, and the merge at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/fleet_run.h"
#include "lib/copyfile.h"
#include "cli/merge_hosts.h"
#include "exec/loader.h"
#include "lib/exitcode.h"
#include "lib/jsonutil.h"
#include "lib/monotonic.h"
#include "lib/supervise.h"
#include "lib/text.h"
#include "results/results.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

void fleet_catch_signals(struct sigaction *old_int, struct sigaction *old_term)
{
	struct sigaction sa = {.sa_handler = on_signal};

	interrupted = 0;
	sigaction(SIGINT, &sa, old_int);
	sigaction(SIGTERM, &sa, old_term);
}

void fleet_set_interrupted(int on)
{
	interrupted = on ? 1 : 0;
}

/* ------------------------------------------------------------ tools */

struct argv_run {
	char *const *argv;
	int quiet_out;			/* stdout to /dev/null, else to stderr */
	const char *out_file;		/* stdout to this file (instead) */
};

static void exec_child(void *arg)
{
	const struct argv_run *r = arg;
	struct sigaction sa = {.sa_handler = SIG_DFL};

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (r->out_file) {
		int fd = open(r->out_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(126);
	} else if (r->quiet_out) {
		int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
	} else if (dup2(2, 1) < 0) {	/* our stdout is the folder's path alone */
		_exit(126);
	}
	execvp(r->argv[0], r->argv);
	fprintf(stderr, "runner: fleet: %s: %s\n", r->argv[0], strerror(errno));
	_exit(127);
}

int fleet_run_tool(char *const *argv, const char *out_file, int quiet, double limit_s,
		   int *how)
{
	struct supervise c;
	struct supervise_end end;
	struct argv_run r = {argv, quiet, out_file};
	double deadline = limit_s > 0 ? monotonic_s() + limit_s : 0;
	int ev;

	if (supervise_spawn(&c, exec_child, &r) < 0)
		return -1;
	do
		ev = supervise_wait(&c, NULL, 0, deadline, &interrupted);
	while (ev >= 0 && !(ev & (SUPERVISE_EXITED | SUPERVISE_TIMEOUT | SUPERVISE_INTERRUPTED)));
	supervise_reap(&c, &end);
	*how = end.how;
	return end.how == SUPERVISE_END_EXIT ? end.code : -1;
}

int fleet_interrupted(void)
{
	return interrupted;
}

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb; (void)flag; (void)ftw;
	return remove(p);
}

void fleet_rm_tree(const char *dir)
{
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

char *fleet_shown(const char *s)
{
	size_t len = 4 * strlen(s ? s : "?") + 1;	/* text_escape's worst case */
	char *buf = malloc(len);

	if (buf)
		text_escape(s ? s : "?", buf, len);
	return buf;
}

/* A file beside the runner: ../REL_BUILD from build/runner, else
   ../share/sysmeter/REL_INSTALLED from PREFIX/bin/runner. */
int fleet_find_file(const char *rel_build, const char *rel_installed, char *out, size_t len)
{
	char exe[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);

	if (n <= 0)
		return -1;
	exe[n] = '\0';
	if (!(slash = strrchr(exe, '/')))
		return -1;
	*slash = '\0';
	snprintf(out, len, "%s/../%s", exe, rel_build);
	if (access(out, R_OK) == 0)
		return 0;
	snprintf(out, len, "%s/../share/sysmeter/%s", exe, rel_installed);
	return access(out, R_OK) == 0 ? 0 : -1;
}

/* ------------------------------------------------------- the build */

/* stage/build/: bin/runner, probes/N/ (each folder of the probe search
   path), specs/N/ (a folder given, or a file with the .yaml files beside
   it, which subtract: may pull in); *argv gets the runner's options and
   specs relative to that folder. */
int fleet_make_build(const char *stage, char **specs, size_t n, const struct cli_opts *o,
		      json_t *argv, char *err, size_t errlen)
{
	char dir[PATH_MAX], path[PATH_MAX + 64], exe[PATH_MAX];
	char *search = strdup(loader_dir() ? loader_dir() : ""), *save = NULL, *tok;
	json_t *pd = json_array();
	ssize_t len;
	int i = 0, rc = -1;

	snprintf(dir, sizeof dir, "%s/build", stage);
	if (!search || mkdir(dir, 0700) < 0)
		goto fail;
	snprintf(path, sizeof path, "%s/bin", dir);
	if (mkdir(path, 0755) < 0 || (len = readlink("/proc/self/exe", exe, sizeof exe - 1)) <= 0)
		goto fail;
	exe[len] = '\0';
	snprintf(path, sizeof path, "%s/bin/runner", dir);
	if (copyfile(exe, path, 0755) < 0)
		goto fail;
	snprintf(path, sizeof path, "%s/probes", dir);
	if (mkdir(path, 0755) < 0)
		goto fail;
	for (tok = strtok_r(search, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
		struct stat st;
		char sub[PATH_MAX + 80];

		if (!*tok || stat(tok, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		snprintf(sub, sizeof sub, "%s/probes/%d", dir, i);
		if (merge_hosts_copy_tree(tok, sub, err, errlen) < 0)
			goto out;
		jsonutil_append(pd, json_sprintf("probes/%d", i++));
	}
	snprintf(path, sizeof path, "%s/specs", dir);
	if (mkdir(path, 0755) < 0)
		goto fail;
	/* the options every host runs with; -q and --no-report: the report
	   is the fleet's, made here */
	jsonutil_append(argv, jsonutil_text("-q"));
	jsonutil_append(argv, jsonutil_text("--no-report"));
	jsonutil_append(argv, jsonutil_text("--seed"));
	jsonutil_append(argv, json_sprintf("%llu", (unsigned long long)o->seed));
	if (o->quick)
		jsonutil_append(argv, jsonutil_text("--quick"));
	for (size_t k = 0; k < o->n_sets; k++) {
		jsonutil_append(argv, jsonutil_text("--set"));
		jsonutil_append(argv, jsonutil_text(o->sets[k]));
	}
	for (size_t k = 0; k < o->n_filters; k++) {
		jsonutil_append(argv, jsonutil_text("--filter"));
		jsonutil_append(argv, jsonutil_text(o->filters[k]));
	}
	for (size_t k = 0; k < json_array_size(pd); k++) {
		jsonutil_append(argv, jsonutil_text("--probe-dir"));
		json_array_append(argv, json_array_get(pd, k));
	}
	for (size_t k = 0; k < n; k++) {
		struct stat st;
		char sub[PATH_MAX + 80], *slash, parent[PATH_MAX];
		glob_t g;

		if (stat(specs[k], &st) < 0) {
			snprintf(err, errlen, "%s: %s", specs[k], strerror(errno));
			goto out;
		}
		snprintf(sub, sizeof sub, "%s/specs/%zu", dir, k);
		if (S_ISDIR(st.st_mode)) {
			if (merge_hosts_copy_tree(specs[k], sub, err, errlen) < 0)
				goto out;
			jsonutil_append(argv, json_sprintf("specs/%zu", k));
			continue;
		}
		if (mkdir(sub, 0755) < 0)
			goto fail;
		snprintf(parent, sizeof parent, "%s", specs[k]);
		slash = strrchr(parent, '/');
		if (slash)
			*slash = '\0';
		else
			snprintf(parent, sizeof parent, ".");
		snprintf(path, sizeof path, "%s/*.yaml", parent);
		/* the spec's neighbours, for subtract: (glob's pattern is the
		   folder as given, its metacharacters escaped below) */
		{
			char pat[2 * PATH_MAX + 16], *q = pat;

			for (const char *s = parent; *s && q < pat + sizeof pat - 16; s++) {
				if (strchr("*?[]\\", *s))
					*q++ = '\\';
				*q++ = *s;
			}
			snprintf(q, (size_t)(pat + sizeof pat - q), "/*.yaml");
			if (glob(pat, 0, NULL, &g) == 0) {
				for (size_t j = 0; j < g.gl_pathc; j++) {
					const char *b = strrchr(g.gl_pathv[j], '/');
					char to[PATH_MAX + 200];

					snprintf(to, sizeof to, "%s/%s", sub, b ? b + 1 : g.gl_pathv[j]);
					if (copyfile(g.gl_pathv[j], to, 0644) < 0 && errno != EEXIST) {
						globfree(&g);
						goto fail;
					}
				}
				globfree(&g);
			}
		}
		slash = strrchr(specs[k], '/');
		snprintf(path, sizeof path, "%s/%s", sub, slash ? slash + 1 : specs[k]);
		if (access(path, F_OK) != 0 && copyfile(specs[k], path, 0644) < 0)
			goto fail;
		jsonutil_append(argv, json_sprintf("specs/%zu/%s", k, slash ? slash + 1 : specs[k]));
	}
	rc = 0;
	goto out;
fail:
	snprintf(err, errlen, "%s: %s", dir, strerror(errno));
out:
	free(search);
	json_decref(pd);
	return rc;
}

/* --------------------------------------------------- the outcome */

/* Each host's status into hosts (the sysmeter.hosts/1 list) and its run
   folder, unpacked, into runs.  Hosts without a status are missing with
   why_none. */
int fleet_collect(const char *stage, json_t *names, const char *fleet_id, const char *why_none,
		  json_t *hosts, json_t *runs)
{
	json_t *x;
	size_t i;

	json_array_foreach(names, i, x) {
		const char *name = json_string_value(x);
		char path[PATH_MAX], dir[PATH_MAX], run[PATH_MAX + 300];
		json_error_t je;
		json_t *st, *entry;
		int how;

		snprintf(path, sizeof path, "%s/%s.status.json", stage, name);
		st = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
		if (!st || !jsonutil_str(st, "status")) {
			jsonutil_append(hosts, json_pack("{s:s,s:s,s:s}", "name", name, "status", "missing",
							 "reason", why_none));
			json_decref(st);
			continue;
		}
		if (strcmp(jsonutil_str(st, "status"), "ok") != 0) {
			jsonutil_append(hosts, json_pack("{s:s,s:s,s:s}", "name", name, "status", "missing",
				"reason", jsonutil_str(st, "reason") ? jsonutil_str(st, "reason") : "failed"));
			json_decref(st);
			continue;
		}
		/* unpack the fetched run folder (tar refuses absolute and ../ names;
		   the folder is then read as any untrusted run is) */
		snprintf(dir, sizeof dir, "%s/runs/%s", stage, name);
		snprintf(path, sizeof path, "%s/%s.tgz", stage, name);
		snprintf(run, sizeof run, "%s/%s-%s", dir, fleet_id, name);
		{
			char member[600];
			char *targv[] = {"tar", "--no-same-owner", "--no-same-permissions", "-xzf", path,
					 "-C", dir, "--", member, NULL};

			snprintf(member, sizeof member, "%s-%s", fleet_id, name);
			char runs_dir[PATH_MAX + 8];

			snprintf(runs_dir, sizeof runs_dir, "%s/runs", stage);
			mkdir(runs_dir, 0700);
			if (mkdir(dir, 0700) < 0 ||
			    fleet_run_tool(targv, NULL, 0, 600, &how) != 0 || access(run, F_OK) != 0) {
				jsonutil_append(hosts, json_pack("{s:s,s:s,s:s}", "name", name, "status",
					"missing", "reason", "its run folder could not be unpacked"));
				json_decref(st);
				continue;
			}
		}
		entry = json_pack("{s:s,s:s,s:s,s:I}", "name", name, "status", "ok", "run", run,
				  "exit_code", json_integer_value(json_object_get(st, "exit_code")));
		{
			json_t *peer = fleet_pairs_peer(st);	/* --pairs: its name, never its token */

			if (peer)
				jsonutil_set(entry, "peer", peer);
		}
		if (json_is_object(json_object_get(st, "fingerprint")))
			jsonutil_set(entry, "fingerprint", json_incref(json_object_get(st, "fingerprint")));
		if (json_is_object(json_object_get(st, "clock"))) {
			json_t *c = json_object_get(st, "clock");
			double b = atof(jsonutil_str(c, "before") ? jsonutil_str(c, "before") : "nan");
			double h = atof(jsonutil_str(c, "host") ? jsonutil_str(c, "host") : "nan");
			double a = atof(jsonutil_str(c, "after") ? jsonutil_str(c, "after") : "nan");

			/* the host's clock minus ours at the middle of the call; the
			   call's round trip bounds the error */
			if (isfinite(b) && isfinite(h) && isfinite(a) && a >= b && b > 0)
				jsonutil_set(entry, "clock", json_pack("{s:f,s:f}", "offset_s",
					h - (a + b) / 2, "uncertainty_s", (a - b) / 2));
		}
		jsonutil_append(runs, jsonutil_text(run));
		jsonutil_append(hosts, entry);
		json_decref(st);
	}
	return 0;
}

/* Say the missing hosts; merge what came, into OUT/<fleet-id>. */
int fleet_finish(const char *stage, const char *fleet_id, json_t *hosts, json_t *runs,
		 struct cli_opts *o)
{
	char path[PATH_MAX], err[1024], store[PATH_MAX];
	json_t *file = json_pack("{s:s,s:O}", "schema", "sysmeter.hosts/1", "hosts", hosts), *x;
	char **ops = calloc(json_array_size(runs) + 1, sizeof *ops);
	struct cli_opts mo = *o;
	size_t i, missing = 0;
	int rc;

	/* a reason is a host's text (ssh's, a program's output, a path of
	   its inventory): escaped, it stays on its line and drives nothing */
	json_array_foreach(hosts, i, x)
		if (!strcmp(jsonutil_str(x, "status"), "missing")) {
			char *name = fleet_shown(jsonutil_str(x, "name")),
			     *why = fleet_shown(jsonutil_str(x, "reason"));

			fprintf(stderr, "runner: fleet: %s: missing: %s\n", name ? name : "?",
				why ? why : "?");
			free(name);
			free(why);
			missing++;
		}
	snprintf(path, sizeof path, "%s/hosts.json", stage);
	if (!ops || results_write_json(path, file, err, sizeof err) < 0) {
		fprintf(stderr, "runner: fleet: %s\n", ops ? err : "out of memory");
		free(ops);
		json_decref(file);
		return EXIT_INTERNAL;
	}
	json_decref(file);
	if (json_array_size(runs) == 0) {
		fprintf(stderr, "runner: fleet: no host gave a run: nothing to merge\n");
		free(ops);
		return fleet_interrupted() ? EXIT_INTERRUPTED : EXIT_FAILED;
	}
	json_array_foreach(runs, i, x)
		ops[i] = (char *)json_string_value(x);
	mo.run_id = fleet_id;
	/* the hosts' runs go to the store the runs of this machine go to:
	   --store, else OUT/sysmeter.db, unless --no-store */
	if (!mo.store && !mo.no_store) {
		snprintf(store, sizeof store, "%s/sysmeter.db", o->out_dir);
		mo.store = store;
	}
	rc = merge_hosts_main(ops, json_array_size(runs), path, &mo);
	free(ops);
	if (rc != EXIT_OK)
		return rc;
	if (fleet_interrupted())
		return EXIT_INTERRUPTED;
	/* a host whose run failed in part counts as a failure too */
	json_array_foreach(hosts, i, x)
		missing += !strcmp(jsonutil_str(x, "status"), "ok") &&
			json_integer_value(json_object_get(x, "exit_code")) != 0;
	return missing ? EXIT_FAILED : EXIT_OK;
}

