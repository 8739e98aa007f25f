/*
 * command_vars.c - a command spec's own parameters.  The command probe
 * declares a few names for its placeholders (threads, n, size, variant,
 * input), but a user timing `make -j{jobs}` or `zstd -{level} {file}`
 * should not have to squeeze jobs and level into those, as hyperfine's
 * --parameter-scan takes any name.  So a parameter of a command spec that
 * the probe does not declare and that appears as {name} in the command
 * becomes a row of a wider parameter table for that experiment: it is
 * swept, recorded, charted and compared like any other, and has no field
 * in the probe's config (PROBE_NO_FIELD): the runner substitutes it and
 * the probe never sees it.  A parameter used nowhere in the command is
 * still an unknown parameter (a typo), reported by spec_bind.
 *
 * Its type comes from its values: integers (a sweep over -j) are an int,
 * sizes with units a size, anything else text.
 */
#include "exec/loader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/units.h"
#include "spec/spec.h"

static int is_int(const char *t)
{
	long long v;
	char e[8];

	return t && units_parse_int(t, &v, e, sizeof e) == 0;
}

static int is_size(const char *t)
{
	double v;
	char e[8];

	return t && units_parse(t, UNIT_SIZE, &v, e, sizeof e) == 0;
}

static enum probe_param_type var_type(const struct spec_param *sp)
{
	int ints = 1, sizes = 1;

	if (sp->form == SPEC_RANGE) {
		/* a factor is a plain number whatever the values are */
		int by_int = !sp->by || is_int(sp->by);

		ints = is_int(sp->from) && is_int(sp->to) && by_int;
		sizes = is_size(sp->from) && is_size(sp->to) &&
			(by_int || (!sp->geometric && is_size(sp->by)));
	} else {
		for (size_t i = 0; i < sp->n_raw; i++) {
			ints = ints && is_int(sp->raw[i]);
			sizes = sizes && is_size(sp->raw[i]);
		}
	}
	return ints ? PROBE_INT : sizes ? PROBE_SIZE : PROBE_STRING;
}

static int declared(const struct loaded_probe *lp, const char *name)
{
	if (strcmp(name, SPEC_COMMAND_BIN) == 0)	/* {bin} is the runner's */
		return 1;
	for (size_t i = 0; i < lp->n_params; i++)
		if (strcmp(lp->p->params[i].name, name) == 0)
			return 1;
	return 0;
}

/* The wider table, in one allocation (freed by loader_close): the probe
   with its params pointing at the rows that follow it. */
struct vars_block {
	struct probe p;
	struct probe_param rows[];
};

int command_vars_add(struct loaded_probe *lp, const struct spec *s, char *err, size_t errlen)
{
	size_t n = 0, names = 0, k;

	if (strcmp(lp->p->name, SPEC_COMMAND_PROBE) != 0 || lp->vars)
		return 0;
	for (size_t i = 0; i < s->n_params; i++)
		if (!declared(lp, s->params[i].name) && spec_command_uses(s, s->params[i].name)) {
			n++;
			names += strlen(s->params[i].name) + 1;
		}
	if (n == 0)
		return 0;

	size_t rows = lp->n_params + n + 1;
	struct vars_block *b = calloc(1, sizeof *b + rows * sizeof b->rows[0] + names);
	char *text;

	if (!b) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	text = (char *)&b->rows[rows];
	b->p = *lp->p;
	memcpy(b->rows, lp->p->params, lp->n_params * sizeof b->rows[0]);
	k = lp->n_params;
	for (size_t i = 0; i < s->n_params; i++) {
		const struct spec_param *sp = &s->params[i];

		if (declared(lp, sp->name) || !spec_command_uses(s, sp->name))
			continue;
		strcpy(text, sp->name);
		b->rows[k++] = (struct probe_param){
			.name = text,
			.type = var_type(sp),
			.def = "",
			.help = "a variable of this spec: {name} in the command",
			.offset = PROBE_NO_FIELD,
		};
		text += strlen(text) + 1;
	}
	b->p.params = b->rows;
	lp->vars = b;
	lp->p = &b->p;
	lp->n_params = k;
	return 0;
}
