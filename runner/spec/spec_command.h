/*
 * spec_command.h - the `command:` key (private to the spec module):
 * parsed by spec_keys.c's table, its placeholders checked by spec_bind.c.
 */
#ifndef SYSMETER_SPEC_COMMAND_H
#define SYSMETER_SPEC_COMMAND_H

#include "spec/spec.h"
#include "spec/spec_yaml.h"

/* The handler of `command:` (a spec_keys.c key_fn). */
int spec_command_key(struct spec_yaml_ctx *c, struct spec *s, yaml_node_t *v, yaml_node_t *k);

/* Every placeholder of every argv names one of names[0..n) or {bin}: 0;
   else -1 with *bad_pos (the element holding it) and bad (its name). */
int spec_command_check(const struct spec_command *cmd, const char *const *names, size_t n,
		       struct spec_pos *bad_pos, char *bad, size_t badlen);

void spec_command_free(struct spec_command *cmd);

#endif
