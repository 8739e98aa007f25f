/*
 * options.c - a command's arguments parsed against its own option table
 * (options.h), and the handlers that several tables share.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/options.h"
#include "store/store.h"
#include "engine/engine.h"
#include "exec/loader.h"
#include "lib/exitcode.h"
#include "lib/jsonutil.h"
#include "lib/suggest.h"

/* Where a PostgreSQL URL starts in arg ("--store=postgresql://..."; its
   scheme in any case, as libpq is given it, store_url.c), or NULL. */
static const char *pg_url_in(const char *arg)
{
	for (const char *p = arg; *p; p++)
		if ((p == arg || !(isalnum((unsigned char)p[-1]) || strchr("+-.", p[-1]))) &&
		    strncasecmp(p, "postgres", 8) == 0 && store_is_url(p))
			return p;
	return NULL;
}

/* -o's default: told apart from a given "-o out" by its address */
static const char out_default[] = "out";

int cli_out_given(const struct cli_opts *o)
{
	return o->out_dir != out_default;
}

int cli_opts_init(struct cli_opts *o, int argc, char **argv)
{
	memset(o, 0, sizeof *o);
	o->out_dir = out_default;
	o->argc = argc;
	/* what a manifest records of the command line never holds the
	   password of --store postgresql://user:PASSWORD@host/db (nor does
	   the command line itself once parsed: main.c writes this copy over
	   it) */
	o->argv = calloc((size_t)argc + 1, sizeof *o->argv);
	for (int i = 0; o->argv && i < argc; i++) {
		const char *url = pg_url_in(argv[i]);
		char *clean = url ? store_redacted(url) : NULL;

		if (clean && (o->argv[i] = malloc((size_t)(url - argv[i]) + strlen(clean) + 1))) {
			/* the text before the URL ("--store="), then the URL without it */
			memcpy(o->argv[i], argv[i], (size_t)(url - argv[i]));
			strcpy(o->argv[i] + (url - argv[i]), clean);
		} else {
			o->argv[i] = strdup(argv[i]);
		}
		free(clean);
	}
	o->sets = calloc((size_t)argc + 1, sizeof *o->sets);
	o->filters = calloc((size_t)argc + 1, sizeof *o->filters);
	o->wheres = calloc((size_t)argc + 1, sizeof *o->wheres);
	return o->sets && o->filters && o->argv && o->wheres ? 0 : -1;
}

void cli_opts_free(struct cli_opts *o)
{
	for (int i = 0; o->argv && i < o->argc; i++)
		free(o->argv[i]);
	free(o->argv);
	free(o->sets);
	free(o->filters);
	free(o->wheres);
}

/* The row for "--name" or "-x", or NULL. */
static const struct cli_option *find(const struct cli_option *t, const char *opt, size_t len)
{
	for (; t && t->name; t++) {
		if (opt[1] == '-' ? strlen(t->name) == len - 2 && !strncmp(t->name, opt + 2, len - 2)
				  : len == 2 && t->short_name == opt[1])
			return t;
	}
	return NULL;
}

static int is_help(const char *opt, size_t len)
{
	return (len == 2 && !strncmp(opt, "-h", 2)) || (len == 6 && !strncmp(opt, "--help", 6));
}

int cli_options_has(const struct cli_option *table, const char *option, int *takes_arg)
{
	const char *eq = strchr(option, '=');
	const struct cli_option *row = find(table, option, eq ? (size_t)(eq - option)
							     : strlen(option));

	if (!row)
		return 0;
	*takes_arg = row->arg != NULL;
	return 1;
}

/* An option the table does not take: said, with the closest of its own
   options or the command that takes it. */
static int unknown(const char *cmd, const struct cli_option *table, const char *opt, size_t len,
		   const char *(*elsewhere)(const char *))
{
	char name[128];
	const char *names[64], *hint, *other;
	char longs[64][64];
	size_t n = 0;

	snprintf(name, sizeof name, "%.*s", (int)len, opt);
	for (const struct cli_option *t = table; t && t->name && n < 64; t++) {
		snprintf(longs[n], sizeof longs[n], "--%s", t->name);
		names[n] = longs[n];
		n++;
	}
	other = elsewhere ? elsewhere(name) : NULL;
	if (other) {
		fprintf(stderr, "runner: %s: unknown option '%s' (it is an option of 'runner %s')\n",
			cmd, name, other);
		return EXIT_USAGE;
	}
	hint = name[1] == '-' ? suggest_word(name, names, n) : NULL;
	if (hint)
		fprintf(stderr, "runner: %s: unknown option '%s' (did you mean '%s'?)\n", cmd, name,
			hint);
	else
		fprintf(stderr, "runner: %s: unknown option '%s'\n", cmd, name);
	return EXIT_USAGE;
}

static int take(struct cli_opts *o, const struct cli_option *row, const char *arg)
{
	char *base = (char *)o;

	switch (row->kind) {
	case CLI_OPT_FLAG:
		*(int *)(base + row->offset) = 1;
		return 0;
	case CLI_OPT_TEXT:
		*(const char **)(base + row->offset) = arg;
		return 0;
	case CLI_OPT_CALL:
		return row->call(o, arg);
	}
	return EXIT_INTERNAL;
}

/* One short-option word "-qv" or "-ovalue" at argv[*i]: -1, or an exit code. */
static int shorts(const char *cmd, const struct cli_option *table, int argc, char **argv, int *i,
		  struct cli_opts *o, const char *(*elsewhere)(const char *))
{
	const char *w = argv[*i];

	for (size_t k = 1; w[k]; k++) {
		char opt[3] = {'-', w[k], 0};
		const struct cli_option *row = find(table, opt, 2);
		int rc;

		if (w[k] == 'h') {
			o->help = 1;
			continue;
		}
		if (!row)
			return unknown(cmd, table, opt, 2, elsewhere);
		if (!row->arg) {
			if ((rc = take(o, row, NULL)) != 0)
				return rc;
			continue;
		}
		const char *arg = w[k + 1] ? w + k + 1 : *i + 1 < argc ? argv[++*i] : NULL;
		if (!arg) {
			fprintf(stderr, "runner: %s: option '%s' needs an argument (%s)\n", cmd, opt,
				row->arg);
			return EXIT_USAGE;
		}
		return (rc = take(o, row, arg)) != 0 ? rc : -1;
	}
	return -1;
}

int cli_options_parse(const char *cmd, const struct cli_option *table, int argc, char **argv,
		      struct cli_opts *o, char **ops, size_t *nops,
		      const char *(*elsewhere)(const char *))
{
	for (int i = 0; i < argc; i++) {
		const char *w = argv[i], *eq, *arg;
		const struct cli_option *row;
		size_t len;
		int rc;

		if (w[0] != '-' || !w[1]) {	/* an operand, or "-" */
			ops[(*nops)++] = argv[i];
			continue;
		}
		if (!strcmp(w, "--")) {
			while (++i < argc)
				ops[(*nops)++] = argv[i];
			break;
		}
		if (w[1] != '-') {
			if ((rc = shorts(cmd, table, argc, argv, &i, o, elsewhere)) >= 0)
				return rc;
			continue;
		}
		eq = strchr(w, '=');
		len = eq ? (size_t)(eq - w) : strlen(w);
		if (is_help(w, len)) {
			o->help = 1;
			continue;
		}
		if (!(row = find(table, w, len)))
			return unknown(cmd, table, w, len, elsewhere);
		if (!row->arg && eq) {
			fprintf(stderr, "runner: %s: option '%.*s' takes no argument\n", cmd, (int)len, w);
			return EXIT_USAGE;
		}
		arg = !row->arg ? NULL : eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
		if (row->arg && !arg) {
			fprintf(stderr, "runner: %s: option '%s' needs an argument (%s)\n", cmd, w,
				row->arg);
			return EXIT_USAGE;
		}
		if ((rc = take(o, row, arg)) != 0)
			return rc;
	}
	return -1;
}

void cli_options_usage(FILE *f, const struct cli_option *table)
{
	for (const struct cli_option *t = table; t && t->name; t++) {
		char left[96];
		int n = t->short_name ? snprintf(left, sizeof left, "-%c, ", t->short_name)
				      : snprintf(left, sizeof left, "    ");

		/* "-o, --out DIR" or "    --quick" */
		snprintf(left + n, sizeof left - (size_t)n, "--%s%s%s", t->name, t->arg ? " " : "",
			 t->arg ? t->arg : "");
		if (strlen(left) > 30)
			fprintf(f, "  %s\n  %-30s %s\n", left, "", t->help);
		else
			fprintf(f, "  %-30s %s\n", left, t->help);
	}
	fprintf(f, "  %-30s %s\n", "-h, --help", "this text");
}

void cli_front_matter(json_t *fm, const struct cli_opts *o)
{
	if (o->title)
		jsonutil_set(fm, "title", jsonutil_text(o->title));
	if (o->author)
		jsonutil_set(fm, "author", jsonutil_text(o->author));
	if (o->course)
		jsonutil_set(fm, "course", jsonutil_text(o->course));
}

void cli_engine_options(const struct cli_opts *o, struct engine_options *eo)
{
	*eo = (struct engine_options){
		.out_dir = o->out_dir, .run_id = o->run_id, .templates = o->templates,
		.sets = o->sets, .n_sets = o->n_sets, .filters = o->filters,
		.n_filters = o->n_filters, .quick = o->quick, .no_report = o->no_report,
		.quiet = o->quiet, .verbose = o->verbose, .peer = o->peer, .nfs = o->nfs,
		.token = o->token, .machine_file = o->machine, .title = o->title, .author = o->author, .course = o->course,
		.argc = o->argc, .argv = o->argv, .store = o->store, .no_store = o->no_store,
	};
}

int cli_opt_seed(struct cli_opts *o, const char *arg)
{
	char *end;

	errno = 0;
	o->seed = strtoull(arg, &end, 0);
	if (errno || *end || !*arg || *arg == '-') {
		fprintf(stderr, "runner: --seed '%s': expected an unsigned integer\n", arg);
		return EXIT_USAGE;
	}
	o->has_seed = 1;
	return 0;
}

int cli_opt_run_id(struct cli_opts *o, const char *arg)
{
	if (!*arg || strchr(arg, '/') || !strcmp(arg, ".") || !strcmp(arg, "..")) {
		fprintf(stderr, "runner: --run-id '%s': expected a plain folder name\n", arg);
		return EXIT_USAGE;
	}
	o->run_id = arg;
	return 0;
}

int cli_opt_probe_dir(struct cli_opts *o, const char *arg)
{
	(void)o;
	if (loader_add_dir(arg) < 0) {
		fprintf(stderr, "runner: --probe-dir '%s': out of memory\n", arg);
		return EXIT_INTERNAL;
	}
	return 0;
}

int cli_opt_set(struct cli_opts *o, const char *arg)
{
	o->sets[o->n_sets++] = (char *)arg;
	return 0;
}

int cli_opt_filter(struct cli_opts *o, const char *arg)
{
	o->filters[o->n_filters++] = (char *)arg;
	return 0;
}
