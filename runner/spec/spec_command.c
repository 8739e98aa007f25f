/*
 * spec_command.c - the `command:` key: what the command probe runs.
 *
 *   command: [sleep, "0.05"]                   # short form: argv only
 *   command:
 *     argv: [make, "-j{threads}"]              # a list: execvp, no shell
 *     shell: false                             # true: argv is one script for /bin/sh -c
 *     setup: [make, clean]                     # once per point (and round)
 *     cleanup: [make, clean]
 *     prepare: [sync]                          # before every run, untimed
 *     conclude: [true]                         # after every run, untimed
 *     ok_exit: [0, 1]                          # exit statuses that succeed (default 0)
 *     stdin: input.txt                         # default /dev/null
 *     keep_output: false                       # true: saved in the run folder
 *     timeout: 10s                             # per run
 *
 * Placeholders ({threads}) are checked against the probe's parameters by
 * spec_bind (spec_command_check); the runner replaces them per point.
 */
#include "spec/spec_command.h"
#include "lib/placeholder.h"
#include "lib/units.h"

#include <stdlib.h>
#include <string.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define WHAT(v) spec_yaml_what((v), (char[96]){0}, 96)

static int oom(struct spec_yaml_ctx *c)
{
	return spec_yaml_fail(c, (struct spec_pos){0, 0}, "out of memory");
}

static int push(struct spec_yaml_ctx *c, struct spec_argv *a, yaml_node_t *v)
{
	if (!(a->arg[a->n] = strdup(spec_yaml_str(v))))
		return oom(c);
	a->pos[a->n++] = spec_yaml_pos(c, v);
	return 0;
}

/* A non-empty list of single values whose first is not empty; or, when
   text_ok (shell: true), one non-empty text. */
static int get_argv(struct spec_yaml_ctx *c, yaml_node_t *v, const char *key, int text_ok,
		    struct spec_argv *a)
{
	size_t n;

	if (v->type == YAML_SCALAR_NODE && text_ok) {
		if (!*spec_yaml_str(v))
			return spec_yaml_fail(c, spec_yaml_pos(c, v), "%s: empty script", key);
		a->arg = calloc(1, sizeof(*a->arg));
		a->pos = calloc(1, sizeof(*a->pos));
		if (!a->arg || !a->pos)
			return oom(c);
		return push(c, a, v);
	}
	if (v->type != YAML_SEQUENCE_NODE)
		return spec_yaml_fail(c, spec_yaml_pos(c, v),
				      text_ok ? "%s: expected a script text, got %s"
					      : "%s: expected a list like [make, \"-j{threads}\"] "
						"(a text is run by a shell only with shell: true), got %s",
				      key, WHAT(v));
	if (text_ok)
		return spec_yaml_fail(c, spec_yaml_pos(c, v),
				      "%s: with shell: true, give the script as one text, got a list",
				      key);
	n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
	if (n == 0)
		return spec_yaml_fail(c, spec_yaml_pos(c, v), "%s: empty list", key);
	a->arg = calloc(n, sizeof(*a->arg));
	a->pos = calloc(n, sizeof(*a->pos));
	if (!a->arg || !a->pos)
		return oom(c);
	for (size_t i = 0; i < n; i++) {
		yaml_node_t *it = spec_yaml_node(c, v->data.sequence.items.start[i]);

		if (it->type != YAML_SCALAR_NODE)
			return spec_yaml_fail(c, spec_yaml_pos(c, it),
					      "%s: list items must be single values, got %s", key,
					      WHAT(it));
		if (i == 0 && !*spec_yaml_str(it))
			return spec_yaml_fail(c, spec_yaml_pos(c, it), "%s: empty program name", key);
		if (push(c, a, it) < 0)
			return -1;
	}
	return 0;
}

static int get_bool(struct spec_yaml_ctx *c, yaml_node_t *v, const char *key, int *out)
{
	char msg[128];

	if (v->type != YAML_SCALAR_NODE || units_parse_bool(spec_yaml_str(v), out, msg, sizeof msg) < 0)
		return spec_yaml_fail(c, spec_yaml_pos(c, v), "%s: expected true or false, got %s", key,
				      WHAT(v));
	return 0;
}

/* ok_exit: 0 | [0, 1]: statuses 0..255. */
static int get_ok_exit(struct spec_yaml_ctx *c, yaml_node_t *v, struct spec_command *cmd)
{
	yaml_node_item_t *it = NULL, *top = NULL;
	size_t n = 1;
	char msg[128];

	if (v->type == YAML_SEQUENCE_NODE) {
		it = v->data.sequence.items.start;
		top = v->data.sequence.items.top;
		n = (size_t)(top - it);
		if (n == 0)
			return spec_yaml_fail(c, spec_yaml_pos(c, v), "command.ok_exit: empty list");
	} else if (v->type != YAML_SCALAR_NODE) {
		return spec_yaml_fail(c, spec_yaml_pos(c, v),
				      "command.ok_exit: expected an exit status or a list like [0, 1], got %s",
				      WHAT(v));
	}
	free(cmd->ok_exit);
	cmd->n_ok_exit = 0;
	if (!(cmd->ok_exit = calloc(n, sizeof(*cmd->ok_exit))))
		return oom(c);
	for (size_t i = 0; i < n; i++) {
		yaml_node_t *e = it ? spec_yaml_node(c, it[i]) : v;
		long long x;

		if (e->type != YAML_SCALAR_NODE ||
		    units_parse_int(spec_yaml_str(e), &x, msg, sizeof msg) < 0 || x < 0 || x > 255)
			return spec_yaml_fail(c, spec_yaml_pos(c, e),
					      "command.ok_exit: expected an exit status from 0 to 255, got %s",
					      WHAT(e));
		cmd->ok_exit[cmd->n_ok_exit++] = (int)x;
	}
	return 0;
}

int spec_command_key(struct spec_yaml_ctx *c, struct spec *s, yaml_node_t *v, yaml_node_t *k)
{
	static const char *const keys[] = {"argv", "shell", "setup", "cleanup", "prepare",
					   "conclude", "ok_exit", "stdin", "keep_output", "timeout"};
	yaml_node_t *vals[N(keys)], *kn[N(keys)];
	struct spec_command *cmd = &s->command;
	struct spec_argv *hooks[] = {&cmd->setup, &cmd->cleanup, &cmd->prepare, &cmd->conclude};
	char msg[128];

	spec_command_free(cmd);
	cmd->present = 1;
	cmd->pos = spec_yaml_pos(c, k);
	if (!(cmd->ok_exit = calloc(1, sizeof(*cmd->ok_exit))))
		return oom(c);
	cmd->n_ok_exit = 1;	/* {0} */
	if (v->type == YAML_SEQUENCE_NODE)	/* the short form: argv alone */
		return get_argv(c, v, "command", 0, &cmd->argv);
	if (v->type != YAML_MAPPING_NODE)
		return spec_yaml_fail(c, spec_yaml_pos(c, v),
				      "command: expected a list like [sleep, \"0.05\"] or a mapping "
				      "{argv, shell, setup, cleanup, prepare, conclude, ok_exit, stdin, "
				      "keep_output, timeout}, got %s",
				      WHAT(v));
	if (spec_yaml_fields(c, v, "command", keys, N(keys), vals, kn) < 0)
		return -1;
	if (vals[1] && get_bool(c, vals[1], "command.shell", &cmd->shell) < 0)
		return -1;
	if (!vals[0])
		return spec_yaml_fail(c, spec_yaml_pos(c, v), "command: missing required key 'argv'");
	if (get_argv(c, vals[0], "command.argv", cmd->shell, &cmd->argv) < 0)
		return -1;
	for (size_t h = 0; h < N(hooks); h++) {
		char key[32];

		snprintf(key, sizeof key, "command.%s", keys[2 + h]);
		if (vals[2 + h] && get_argv(c, vals[2 + h], key, 0, hooks[h]) < 0)
			return -1;
	}
	if (vals[6] && get_ok_exit(c, vals[6], cmd) < 0)
		return -1;
	if (vals[7]) {
		if (vals[7]->type != YAML_SCALAR_NODE || !*spec_yaml_str(vals[7]))
			return spec_yaml_fail(c, spec_yaml_pos(c, vals[7]),
					      "command.stdin: expected a file name, got %s", WHAT(vals[7]));
		if (!(cmd->stdin_path = strdup(spec_yaml_str(vals[7]))))
			return oom(c);
		cmd->stdin_pos = spec_yaml_pos(c, vals[7]);
	}
	if (vals[8] && get_bool(c, vals[8], "command.keep_output", &cmd->keep_output) < 0)
		return -1;
	if (vals[9]) {
		if (vals[9]->type != YAML_SCALAR_NODE ||
		    units_parse(spec_yaml_str(vals[9]), UNIT_TIME, &cmd->timeout, msg, sizeof msg) < 0 ||
		    !(cmd->timeout > 0))
			return spec_yaml_fail(c, spec_yaml_pos(c, vals[9]),
					      "command.timeout: expected a time > 0 like 10s, got %s",
					      WHAT(vals[9]));
	}
	return 0;
}

struct known {
	const char *const *names;
	size_t n;
};

static const char *known(void *arg, const char *name, size_t len)
{
	const struct known *k = arg;

	if (len == strlen(SPEC_COMMAND_BIN) && strncmp(name, SPEC_COMMAND_BIN, len) == 0)
		return "";
	for (size_t i = 0; i < k->n; i++)
		if (strlen(k->names[i]) == len && strncmp(k->names[i], name, len) == 0)
			return "";
	return NULL;
}

static int check_argv(const struct spec_argv *a, struct known *k, struct spec_pos *bad_pos,
		      char *bad, size_t badlen)
{
	for (size_t i = 0; i < a->n; i++) {
		char *out;

		if (placeholder_expand(a->arg[i], known, k, PLACEHOLDER_RAW, &out, bad, badlen) < 0) {
			*bad_pos = a->pos[i];
			return -1;
		}
		free(out);
	}
	return 0;
}

int spec_command_check(const struct spec_command *cmd, const char *const *names, size_t n,
		       struct spec_pos *bad_pos, char *bad, size_t badlen)
{
	const struct spec_argv *all[] = {&cmd->argv, &cmd->setup, &cmd->cleanup, &cmd->prepare,
					 &cmd->conclude};
	struct known k = {names, n};

	for (size_t i = 0; i < N(all); i++)
		if (check_argv(all[i], &k, bad_pos, bad, badlen) < 0)
			return -1;
	if (cmd->stdin_path) {
		struct spec_argv in = {(char **)&cmd->stdin_path,
				       (struct spec_pos *)&cmd->stdin_pos, 1};
		return check_argv(&in, &k, bad_pos, bad, badlen);
	}
	return 0;
}

/* A lookup that knows every name and notes whether it met one. */
struct seek {
	const char *name;
	int seen;
};

static const char *seek(void *arg, const char *name, size_t len)
{
	struct seek *k = arg;

	if (strlen(k->name) == len && strncmp(k->name, name, len) == 0)
		k->seen = 1;
	return "";
}

int spec_command_uses(const struct spec *s, const char *name)
{
	const struct spec_command *cmd = &s->command;
	const struct spec_argv in = {(char **)&cmd->stdin_path, NULL, cmd->stdin_path ? 1 : 0};
	const struct spec_argv *all[] = {&cmd->argv, &cmd->setup, &cmd->cleanup, &cmd->prepare,
					 &cmd->conclude, &in};
	struct seek k = {name, 0};
	char bad[64];

	for (size_t i = 0; i < N(all) && !k.seen; i++)
		for (size_t j = 0; j < all[i]->n && !k.seen; j++) {
			char *out = NULL;

			if (placeholder_expand(all[i]->arg[j], seek, &k, PLACEHOLDER_RAW, &out, bad,
					       sizeof bad) == 0)
				free(out);
		}
	return k.seen;
}

static void free_argv(struct spec_argv *a)
{
	for (size_t i = 0; a->arg && i < a->n; i++)
		free(a->arg[i]);
	free(a->arg);
	free(a->pos);
}

void spec_command_free(struct spec_command *cmd)
{
	free_argv(&cmd->argv);
	free_argv(&cmd->setup);
	free_argv(&cmd->cleanup);
	free_argv(&cmd->prepare);
	free_argv(&cmd->conclude);
	free(cmd->ok_exit);
	free(cmd->stdin_path);
	memset(cmd, 0, sizeof *cmd);
}
