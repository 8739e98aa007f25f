/* fleet_vars.h - the playbook's extra-vars file, every string in it
   marked !unsafe so that Ansible never templates a value of ours
   (private to cli/). */
#ifndef SYSMETER_FLEET_VARS_H
#define SYSMETER_FLEET_VARS_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

/* vars (an object of strings, integers, booleans, null, and arrays and
   objects of those) as one line of YAML to f: 0, or -1 (a value of
   another kind). */
int fleet_vars_emit(FILE *f, const json_t *vars);
/* The same into a new file at path (mode 0600): 0, or -1 (err). */
int fleet_vars_write(const char *path, const json_t *vars, char *err, size_t errlen);

#endif
