/*
 * spec_keys.h - the spec's keys and their checks (private to the spec
 * module: spec.c parses, spec_keys.c checks each key, spec_bind.c binds).
 */
#ifndef SYSMETER_SPEC_KEYS_H
#define SYSMETER_SPEC_KEYS_H

#include "spec/spec.h"
#include "spec/spec_yaml.h"

/* Fill the defaults of every key that has one (design §3, spec.h). */
void spec_keys_defaults(struct spec *s);

/* Check every key of the top-level mapping `root` and fill *s; requires
   `probe`.  Errors via spec_yaml_fail (c->err).  Name/title/group/description
   defaults that depend on other keys are left to the caller. */
int spec_keys_parse(struct spec_yaml_ctx *c, struct spec *s, yaml_node_t *root);

/* 1 when s may name an experiment: letters, digits, '_' or '-' (what `name:`
   accepts; a name becomes results/NAME.json and a LaTeX label). */
int spec_keys_is_name(const char *s);

#endif
