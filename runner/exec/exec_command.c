/*
 * exec_command.c - the spec's `command:` with one point's values put in.
 *
 * An argv element gets a value as it is: it goes to execvp(), so no shell
 * ever reads it, whatever it holds ("; rm -rf /", "$(reboot)").  Only the
 * script of `shell: true` is read by a shell, and there every value goes
 * in single-quoted (lib/placeholder.c), so it is one word whatever it holds.
 * A size goes in as bytes and a time as seconds (what programs take); any
 * other value as the spec wrote it.
 */
#include "exec/exec_command.h"
#include "lib/placeholder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct values {
	const struct exec_command_in *in;
	char **text;			/* one per probe parameter */
};

static const char *lookup(void *arg, const char *name, size_t len)
{
	const struct values *v = arg;
	const struct probe *p = v->in->lp->p;

	if (len == strlen(SPEC_COMMAND_BIN) && strncmp(name, SPEC_COMMAND_BIN, len) == 0)
		return v->in->bin_dir;
	for (size_t i = 0; i < v->in->lp->n_params; i++)
		if (strlen(p->params[i].name) == len && strncmp(p->params[i].name, name, len) == 0)
			return v->text[i];
	return NULL;
}

/* The text a parameter's value goes in as. */
static char *value_text(const struct probe_param *pp, const struct spec_val *val)
{
	char *t = NULL;

	if (!val)
		return strdup(pp->def ? pp->def : "");
	if (pp->offset == PROBE_NO_FIELD)	/* the spec's own: as written */
		return strdup(val->text);
	if (pp->type == PROBE_SIZE) {
		if (asprintf(&t, "%.0f", val->num) < 0)
			t = NULL;
	} else if (pp->type == PROBE_TIME) {
		if (asprintf(&t, "%.9g", val->num) < 0)
			t = NULL;
	} else {
		t = strdup(val->text);
	}
	return t;
}

/* argv (n elements, plus a NULL) with placeholders replaced; NULL when
   a is empty.  *bad: an unknown name (spec_bind rules it out) or "". */
static const char *const *expand(const struct spec_argv *a, struct values *v,
				 enum placeholder_quote q, const char *const *pre, size_t npre,
				 int *fail, char *err, size_t errlen)
{
	char **out;
	char bad[64];

	if (a->n == 0)
		return NULL;
	if (!(out = calloc(npre + a->n + 1, sizeof *out)))
		goto oom;
	for (size_t i = 0; i < npre; i++)
		if (!(out[i] = strdup(pre[i])))
			goto oom;
	for (size_t i = 0; i < a->n; i++)
		if (placeholder_expand(a->arg[i], lookup, v, q, &out[npre + i], bad, sizeof bad) < 0) {
			if (bad[0])
				snprintf(err, errlen, "command: placeholder '{%s}' has no value", bad);
			else
				snprintf(err, errlen, "out of memory");
			*fail = 1;
			return (const char *const *)out;
		}
	return (const char *const *)out;
oom:
	snprintf(err, errlen, "out of memory");
	*fail = 1;
	return (const char *const *)out;
}

struct probe_command *exec_command_build(const struct exec_command_in *in, char *err,
					 size_t errlen)
{
	static const char *const sh[] = {"/bin/sh", "-c"};
	const struct spec_command *sc = &in->s->command;
	struct probe_command *cmd = calloc(1, sizeof *cmd);
	struct values v = {in, calloc(in->lp->n_params + 1, sizeof(char *))};
	int fail = 0;

	if (!cmd || !v.text) {
		snprintf(err, errlen, "out of memory");
		free(cmd);
		free(v.text);
		return NULL;
	}
	for (size_t i = 0; i < in->lp->n_params; i++)
		if (!(v.text[i] = value_text(&in->lp->p->params[i],
					     in->pt && in->pt->vals ? in->pt->vals[i] : NULL))) {
			snprintf(err, errlen, "out of memory");
			fail = 1;
		}
	if (!fail)
		cmd->argv = sc->shell ? expand(&sc->argv, &v, PLACEHOLDER_SHELL, sh, 2, &fail, err, errlen)
				      : expand(&sc->argv, &v, PLACEHOLDER_RAW, NULL, 0, &fail, err, errlen);
	if (!fail)
		cmd->setup = expand(&sc->setup, &v, PLACEHOLDER_RAW, NULL, 0, &fail, err, errlen);
	if (!fail)
		cmd->cleanup = expand(&sc->cleanup, &v, PLACEHOLDER_RAW, NULL, 0, &fail, err, errlen);
	if (!fail)
		cmd->prepare = expand(&sc->prepare, &v, PLACEHOLDER_RAW, NULL, 0, &fail, err, errlen);
	if (!fail)
		cmd->conclude = expand(&sc->conclude, &v, PLACEHOLDER_RAW, NULL, 0, &fail, err, errlen);
	if (!fail && sc->stdin_path) {
		char bad[64];
		char *path;

		if (placeholder_expand(sc->stdin_path, lookup, &v, PLACEHOLDER_RAW, &path, bad,
				       sizeof bad) < 0) {
			snprintf(err, errlen, "command.stdin: placeholder '{%s}' has no value", bad);
			fail = 1;
		}
		cmd->stdin_path = path;
	}
	cmd->shell = sc->shell;
	cmd->timeout = sc->timeout;
	if (!fail) {
		int *ok = calloc(sc->n_ok_exit ? sc->n_ok_exit : 1, sizeof *ok);

		if (ok && sc->n_ok_exit)
			memcpy(ok, sc->ok_exit, sc->n_ok_exit * sizeof *ok);
		cmd->ok_exit = ok;
		cmd->n_ok_exit = sc->n_ok_exit ? sc->n_ok_exit : 1;	/* {0} */
		if (sc->keep_output && in->output_prefix)
			cmd->output_prefix = strdup(in->output_prefix);
		if (!ok || (sc->keep_output && in->output_prefix && !cmd->output_prefix)) {
			snprintf(err, errlen, "out of memory");
			fail = 1;
		}
	}
	for (size_t i = 0; i < in->lp->n_params; i++)
		free(v.text[i]);
	free(v.text);
	if (fail) {
		exec_command_free(cmd);
		return NULL;
	}
	return cmd;
}

static void free_argv(const char *const *a)
{
	for (size_t i = 0; a && a[i]; i++)
		free((char *)a[i]);
	free((void *)a);
}

void exec_command_free(struct probe_command *cmd)
{
	if (!cmd)
		return;
	free_argv(cmd->argv);
	free_argv(cmd->setup);
	free_argv(cmd->cleanup);
	free_argv(cmd->prepare);
	free_argv(cmd->conclude);
	free((void *)cmd->ok_exit);
	free((void *)cmd->stdin_path);
	free((void *)cmd->output_prefix);
	free(cmd);
}
