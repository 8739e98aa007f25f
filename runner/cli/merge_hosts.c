/*
 * merge_hosts.c - `runner merge --hosts RUN...`: one folder and one report
 * from the runs of the same specs on several hosts (what `runner fleet`
 * gathers, or runs a user made by hand).  Unlike a plain merge, nothing is
 * chosen: every host's run is kept whole under hosts/<name>/ and the report
 * sets them side by side (report/report_fleet.c).
 *
 * A RUN may be a plain run folder (its host is named by --hosts-file, else
 * by the run's own hostname) or a folder an earlier `merge --hosts` made
 * (its hosts come along with their names, fingerprints, clocks and missing
 * hosts): so a host that comes back later is merged in by merging the
 * fleet's folder with its run, and it leaves the missing list.
 *
 * --hosts-file FILE (`sysmeter.hosts/1`, written by `runner fleet`) names
 * the hosts of the runs, records what the fleet saw of each (fingerprint,
 * clock offset) and lists the hosts that gave no run, with the reason.
 *
 * The folder is built under a temporary name and renamed into place, as a
 * plain merge is.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/merge_folder.h"
#include "cli/merge_hosts.h"
#include "cli/options.h"
#include "cli/store_cmd.h"
#include "lib/copyfile.h"
#include "lib/exitcode.h"
#include "lib/jsonutil.h"
#include "lib/text.h"
#include "lib/version.h"
#include "report/report.h"
#include "results/results.h"

/* One host's run. */
struct host {
	char name[72];
	const char *dir;		/* the run folder to copy */
	json_t *m;			/* its manifest */
	json_t *info;			/* what the fleet saw: fingerprint, clock (or NULL) */
};

struct hosts {
	struct host *h; size_t n, cap;
	json_t *missing;		/* [{name, reason}] */
	json_t *infos;			/* the --hosts-file's hosts, for names */
	char **owned; size_t nowned;	/* paths made here, freed at the end */
};

static const char *str_at(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}


static int have_name(const struct hosts *hs, const char *name)
{
	for (size_t i = 0; i < hs->n; i++)
		if (!strcmp(hs->h[i].name, name))
			return 1;
	return 0;
}

/* The --hosts-file entry for this run folder (matched by path), or NULL. */
static json_t *info_for(const struct hosts *hs, const char *dir)
{
	json_t *x;
	size_t i;

	json_array_foreach(hs->infos, i, x)
		if (str_at(x, "run") && !strcmp(str_at(x, "run"), dir))
			return x;
	return NULL;
}

static int add_host(struct hosts *hs, const char *dir, json_t *m, const char *want, json_t *info)
{
	char base[72];
	struct host *h;

	if (hs->n == hs->cap) {
		struct host *nb = realloc(hs->h, (hs->cap = hs->cap * 2 + 8) * sizeof *nb);
		if (!nb)
			return -1;
		hs->h = nb;
	}
	/* a hostname with other characters (or none) is made safe; the same
	   host twice gets -2, -3 ... */
	snprintf(base, sizeof base, "%s", want && *want ? want : "host");
	for (char *c = base; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '.' || *c == '_' || *c == '-'))
			*c = '_';
	if (base[0] == '.' || base[0] == '-')
		base[0] = '_';
	h = &hs->h[hs->n];
	memset(h, 0, sizeof *h);
	snprintf(h->name, sizeof h->name, "%s", base);
	for (int k = 2; have_name(hs, h->name); k++)
		snprintf(h->name, sizeof h->name, "%.60s-%d", base, k);
	h->dir = dir;
	h->m = m;
	h->info = info ? json_incref(info) : NULL;
	hs->n++;
	return 0;
}

/* The --hosts-file: hosts named for their runs, and the missing ones. */
static int read_hosts_file(struct hosts *hs, const char *path)
{
	json_error_t je;
	json_t *f = json_load_file(path, JSON_REJECT_DUPLICATES, &je), *x;
	size_t i;

	if (!f) {
		fprintf(stderr, "runner: merge: %s:%d:%d: %s\n", path, je.line, je.column, je.text);
		return -1;
	}
	if (!str_at(f, "schema") || strcmp(str_at(f, "schema"), "sysmeter.hosts/1") != 0 ||
	    !json_is_array(json_object_get(f, "hosts"))) {
		fprintf(stderr, "runner: merge: %s: not a sysmeter.hosts/1 file\n", path);
		json_decref(f);
		return -1;
	}
	json_array_foreach(json_object_get(f, "hosts"), i, x) {
		const char *name = str_at(x, "name"), *st = str_at(x, "status");

		if (!text_host_name_ok(name) || !st ||
		    (strcmp(st, "ok") != 0 && strcmp(st, "missing") != 0) ||
		    (!strcmp(st, "missing") && !str_at(x, "reason"))) {
			fprintf(stderr, "runner: merge: %s: hosts[%zu]: expected {name, status ok|missing, "
				"reason (when missing), run}, with a name of letters, digits, '.', '_', '-'\n",
				path, i);
			json_decref(f);
			return -1;
		}
		if (!strcmp(st, "missing"))
			jsonutil_append(hs->missing, json_pack("{s:s,s:s}", "name", name,
							       "reason", str_at(x, "reason")));
		else
			json_array_append(hs->infos, x);
	}
	json_decref(f);
	return 0;
}

static char *own(struct hosts *hs, const char *fmt, const char *a, const char *b)
{
	size_t len = strlen(fmt) + strlen(a) + strlen(b) + 1;
	char *s = malloc(len), **nb = realloc(hs->owned, (hs->nowned + 1) * sizeof *nb);

	if (nb)
		hs->owned = nb;
	if (!s || !nb) {
		free(s);
		return NULL;
	}
	snprintf(s, len, fmt, a, b);
	hs->owned[hs->nowned++] = s;
	return s;
}

/* One operand: a run, or an earlier hosts merge (its hosts and missing). */
static int load_operand(struct hosts *hs, const char *dir)
{
	char err[4400];
	json_t *m = results_manifest_read(dir, err, sizeof err), *fleet, *x;
	size_t i;

	if (!m) {
		fprintf(stderr, "runner: merge: %s\n", err);
		return -1;
	}
	fleet = json_object_get(m, "hosts");
	if (!json_is_object(fleet)) {
		json_t *info = info_for(hs, dir);
		const char *st = str_at(m, "status");

		if (st && !strcmp(st, "running")) {
			int lock = results_lock_run(dir, err, sizeof err);
			if (lock == -1) {
				fprintf(stderr, "runner: merge: %s: a runner is still writing this run\n", dir);
				json_decref(m);
				return -1;
			}
			if (lock >= 0)
				close(lock);
		}
		if (json_object_get(m, "merge")) {
			fprintf(stderr, "runner: merge: %s: a merged run is not one host's run; give the "
				"hosts' own runs\n", dir);
			json_decref(m);
			return -1;
		}
		return add_host(hs, dir, m, info ? str_at(info, "name") :
				str_at(json_object_get(m, "machine"), "hostname"), info);
	}
	/* an earlier hosts merge: every host it holds, and its missing list */
	json_array_foreach(json_object_get(fleet, "runs"), i, x) {
		const char *name = str_at(x, "name");
		char *sub;
		json_t *hm;

		if (!text_host_name_ok(name)) {
			fprintf(stderr, "runner: merge: %s: hosts.runs[%zu].name: not a host name\n", dir, i);
			json_decref(m);
			return -1;
		}
		if (!(sub = own(hs, "%s/hosts/%s", dir, name)) ||
		    !(hm = results_manifest_read(sub, err, sizeof err))) {
			fprintf(stderr, "runner: merge: %s\n", sub ? err : "out of memory");
			json_decref(m);
			return -1;
		}
		if (add_host(hs, sub, hm, name, json_object_get(x, "fleet")) < 0) {
			json_decref(hm);
			json_decref(m);
			return -1;
		}
	}
	json_array_foreach(json_object_get(fleet, "missing"), i, x)
		if (text_host_name_ok(str_at(x, "name")) && str_at(x, "reason"))
			json_array_append(hs->missing, x);
	json_decref(m);
	return 0;
}

/* Copy the tree src into dst (made here): folders and regular files only,
   a link or device in a run folder is left out. */
int merge_hosts_copy_tree(const char *src, const char *dst, char *err, size_t errlen)
{
	DIR *d = opendir(src);
	struct dirent *e;
	int rc = 0;

	if (!d || mkdir(dst, 0755) < 0) {
		snprintf(err, errlen, "%s: %s", d ? dst : src, strerror(errno));
		if (d)
			closedir(d);
		return -1;
	}
	while (rc == 0 && (e = readdir(d))) {
		char a[PATH_MAX], b[PATH_MAX];
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    !strcmp(e->d_name, ".lock"))
			continue;
		if (snprintf(a, sizeof a, "%s/%s", src, e->d_name) >= (int)sizeof a ||
		    snprintf(b, sizeof b, "%s/%s", dst, e->d_name) >= (int)sizeof b) {
			snprintf(err, errlen, "%s: path too long", src);
			rc = -1;
		} else if (lstat(a, &st) < 0) {
			snprintf(err, errlen, "%s: %s", a, strerror(errno));
			rc = -1;
		} else if (S_ISDIR(st.st_mode)) {
			rc = merge_hosts_copy_tree(a, b, err, errlen);
		} else if (S_ISREG(st.st_mode) && copyfile(a, b, 0644) < 0) {
			snprintf(err, errlen, "%s -> %s: %s", a, b, strerror(errno));
			rc = -1;
		}
	}
	closedir(d);
	return rc;
}

/* hosts.runs[] and hosts.missing[] of the manifest; hosts.json is the same
   list as one array of every host, present or missing. */
static json_t *hosts_object(const struct hosts *hs, json_t **list)
{
	json_t *runs = json_array(), *missing = json_array(), *x;
	size_t i;

	*list = json_array();
	for (size_t k = 0; k < hs->n; k++) {
		const struct host *h = &hs->h[k];
		json_t *fleet = h->info ? json_deep_copy(h->info) : json_object();

		json_object_del(fleet, "run");	/* a controller's path, not this folder's */
		json_object_del(fleet, "name");
		json_object_del(fleet, "status");
		jsonutil_append(runs, json_pack("{s:s,s:s,s:O,s:O,s:O,s:O,s:O,s:O,s:O,s:o}",
			"name", h->name, "run", "", "run_id", json_object_get(h->m, "run_id"),
			"status", json_object_get(h->m, "status"),
			"exit_code", json_object_get(h->m, "exit_code"),
			"started", json_object_get(h->m, "started"),
			"finished", json_object_get(h->m, "finished"),
			"seed_text", json_object_get(h->m, "seed_text"),
			"hostname", json_object_get(json_object_get(h->m, "machine"), "hostname"),
			"fleet", fleet));
		jsonutil_set(json_array_get(runs, k), "run", json_sprintf("hosts/%s", h->name));
		jsonutil_append(*list, json_pack("{s:s,s:s,s:o,s:O}", "name", h->name, "status", "ok",
			"run", json_sprintf("hosts/%s", h->name), "fleet", json_object_get(
				json_array_get(runs, k), "fleet")));
	}
	/* a missing host that has a run now is no longer missing; each name once */
	json_array_foreach(hs->missing, i, x) {
		int dup = have_name(hs, str_at(x, "name"));
		json_t *y;
		size_t j;

		json_array_foreach(missing, j, y)
			dup |= !strcmp(str_at(y, "name"), str_at(x, "name"));
		if (dup)
			continue;
		json_array_append(missing, x);
		jsonutil_append(*list, json_pack("{s:O,s:s,s:O}", "name", json_object_get(x, "name"),
			"status", "missing", "reason", json_object_get(x, "reason")));
	}
	return json_pack("{s:o,s:o}", "runs", runs, "missing", missing);
}

/* The folder's manifest: a run with no experiments of its own (they are
   the hosts'), the first host's machine as the machine (the report shows
   every host's), hosts. */
static json_t *hosts_manifest(const char *id, const struct cli_opts *o, const struct hosts *hs,
			      json_t *hosts)
{
	json_t *m = json_object(), *fm, *seed = NULL, *seedn = NULL;
	char now[64];
	const char *first = NULL, *last = NULL;
	int quick = 0, all_ok = 1;

	for (size_t k = 0; k < hs->n; k++) {
		const json_t *hm = hs->h[k].m;
		const char *st = str_at(hm, "started"), *fi = str_at(hm, "finished");
		json_t *s = json_object_get(hm, "seed_text");

		if (st && (!first || strcmp(st, first) < 0))
			first = st;
		if (fi && (!last || strcmp(fi, last) > 0))
			last = fi;
		quick |= json_is_true(json_object_get(json_object_get(hm, "options"), "quick"));
		all_ok &= json_integer_value(json_object_get(hm, "exit_code")) == 0 &&
			json_is_integer(json_object_get(hm, "exit_code"));
		/* one seed for all (a fleet's), else none */
		seed = k == 0 ? s : (seed && s && json_equal(seed, s) ? seed : NULL);
		seedn = k == 0 ? json_object_get(hm, "seed") :
			(seedn && json_equal(seedn, json_object_get(hm, "seed")) ? seedn : NULL);
	}
	fm = json_deep_copy(json_object_get(hs->h[0].m, "report"));
	if (!json_is_object(fm)) {
		json_decref(fm);
		fm = json_pack("{s:n,s:n,s:n}", "title", "author", "course");
	}
	if (!json_is_string(json_object_get(fm, "title")))	/* not one host's name */
		jsonutil_set(fm, "title", json_sprintf("Measurement report: %zu hosts", hs->n));
	cli_front_matter(fm, o);
	merge_folder_manifest_head(m, id, o, now, sizeof now);
	jsonutil_set(m, "seed", seedn && json_is_integer(seedn) && seed ? json_incref(seedn) : json_null());
	jsonutil_set(m, "seed_text", seed && json_is_string(seed) ? json_incref(seed) : json_null());
	jsonutil_set(m, "options", json_pack("{s:b,s:[],s:[],s:n,s:n,s:n}", "quick", quick,
		"set", "filter", "probe_dir", "peer", "nfs"));
	jsonutil_set(m, "started", first ? jsonutil_text(first) : jsonutil_text(now));
	jsonutil_set(m, "finished", last ? jsonutil_text(last) : jsonutil_text(now));
	jsonutil_set(m, "status", jsonutil_text("complete"));
	jsonutil_set(m, "exit_code", json_integer(all_ok &&
		json_array_size(json_object_get(hosts, "missing")) == 0 ? EXIT_OK : EXIT_FAILED));
	jsonutil_set(m, "origin", json_null());
	jsonutil_set(m, "machine", json_deep_copy(json_object_get(hs->h[0].m, "machine")));
	jsonutil_set(m, "nfs", json_null());
	jsonutil_set(m, "report", fm);
	jsonutil_set(m, "experiments", json_array());
	json_object_set_new(hosts, "at", json_string(now));
	jsonutil_set(m, "hosts", json_incref(hosts));
	return m;
}

static int build(const char *out_dir, const char *id, const struct hosts *hs, json_t *m,
		 json_t *list, const struct cli_opts *o)
{
	char tmp[4096], final[4200], path[4400], err[8800];
	int rc = EXIT_INTERNAL;
	json_t *hj;

	if ((rc = merge_folder_begin(out_dir, id, tmp, sizeof tmp, final, sizeof final)) != EXIT_OK)
		return rc;
	rc = EXIT_INTERNAL;
	snprintf(path, sizeof path, "%s/hosts", tmp);
	if (mkdir(path, 0755) < 0) {
		fprintf(stderr, "runner: merge: %s: %s\n", path, strerror(errno));
		goto out;
	}
	for (size_t k = 0; k < hs->n; k++) {
		snprintf(path, sizeof path, "%s/hosts/%s", tmp, hs->h[k].name);
		if (merge_hosts_copy_tree(hs->h[k].dir, path, err, sizeof err) < 0) {
			fprintf(stderr, "runner: merge: %s\n", err);
			goto out;
		}
	}
	hj = json_pack("{s:s,s:O}", "schema", "sysmeter.hosts/1", "hosts", list);
	snprintf(path, sizeof path, "%s/hosts.json", tmp);
	if (results_write_json(path, hj, err, sizeof err) < 0) {
		json_decref(hj);
		fprintf(stderr, "runner: merge: %s\n", err);
		goto out;
	}
	json_decref(hj);
	snprintf(path, sizeof path, "%s/manifest.json", tmp);
	if (results_write_json(path, m, err, sizeof err) < 0) {
		fprintf(stderr, "runner: merge: %s\n", err);
		goto out;
	}
	if ((rc = merge_folder_finish(tmp, final, out_dir, id, o)) != EXIT_OK)
		return rc;
	/* every host's run into the results store, when one is named (the
	   fleet names the default one unless --no-store) */
	if (o->store && !o->no_store) {
		char **ops = calloc(hs->n + 2, sizeof *ops);
		size_t k;

		for (k = 0; ops && k < hs->n; k++)
			if (asprintf(&ops[k + 1], "%s/hosts/%s", final, hs->h[k].name) < 0)
				break;
		if (!ops || k < hs->n || (ops[0] = "import",
		    store_cmd_main(ops, hs->n + 1, o) != EXIT_OK)) {
			fprintf(stderr, "runner: merge: warning: the hosts' runs were not all recorded in "
				"the results store (runner store import %s/hosts/*)\n", final);
			rc = EXIT_FAILED;
		}
		for (k = 0; ops && k < hs->n; k++)
			free(ops[k + 1]);
		free(ops);
	}
	printf("%s\n", final);
	fflush(stdout);
	return rc;
out:
	merge_folder_discard(tmp);
	return rc;
}

int merge_hosts_main(char **runs, size_t n, const char *hosts_file, const struct cli_opts *o)
{
	struct hosts hs = {0};
	json_t *m = NULL, *hosts = NULL, *list = NULL, *x;
	char id[256];
	int rc = EXIT_USAGE;
	size_t i;

	hs.missing = json_array();
	hs.infos = json_array();
	if (o->run_id && (!o->run_id[0] || strchr(o->run_id, '/') || o->run_id[0] == '.')) {
		fprintf(stderr, "runner: merge: --run-id '%s': a folder name is expected\n", o->run_id);
		goto out;
	}
	if (hosts_file && read_hosts_file(&hs, hosts_file) < 0)
		goto out;
	for (i = 0; i < n; i++)
		if (load_operand(&hs, runs[i]) < 0)
			goto out;
	if (hs.n == 0) {
		fprintf(stderr, "runner: merge: --hosts: no host's run to merge\n");
		goto out;
	}
	hosts = hosts_object(&hs, &list);
	if (o->run_id)
		snprintf(id, sizeof id, "%s", o->run_id);
	else
		results_run_id(id, sizeof id, "hosts-",
			       ((uint64_t)getpid() * 2654435761u) ^ (uint64_t)time(NULL));
	m = hosts_manifest(id, o, &hs, hosts);
	if (!o->quiet) {
		for (i = 0; i < hs.n; i++)
			fprintf(stderr, "%-20s run %s (%s)\n", hs.h[i].name,
				str_at(hs.h[i].m, "run_id") ? str_at(hs.h[i].m, "run_id") : "?", hs.h[i].dir);
		json_array_foreach(json_object_get(hosts, "missing"), i, x)
			fprintf(stderr, "%-20s missing: %s\n", str_at(x, "name"), str_at(x, "reason"));
	}
	rc = build(o->out_dir, id, &hs, m, list, o);
out:
	for (i = 0; i < hs.n; i++) {
		json_decref(hs.h[i].m);
		json_decref(hs.h[i].info);
	}
	for (i = 0; i < hs.nowned; i++)
		free(hs.owned[i]);
	free(hs.owned);
	free(hs.h);
	json_decref(hs.missing);
	json_decref(hs.infos);
	json_decref(hosts);
	json_decref(list);
	json_decref(m);
	return rc;
}
