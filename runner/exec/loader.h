/*
 * loader.h - find, open and check a probe shared object (design §4).
 */
#ifndef SYSMETER_LOADER_H
#define SYSMETER_LOADER_H

#include <stddef.h>
#include "probe.h"
#include "spec/spec.h"

struct loaded_probe {
	void *dl;			/* dlopen handle (loader_dlopen only) */
	const struct probe *p;
	char *path;			/* resolved path of the .so */
	char sha256[65];		/* of the .so file */
	size_t n_params, n_metrics;
	void *meta;			/* loader_open: the copy p points into */
	void *vars;			/* command_vars_add: the wider table p then is */
};

/* A parameter row with no field in the probe's config: a command spec's
   own variable (exec/command_vars.c), which only fills {name} in the
   command.  loader_set_param leaves the config alone for it. */
#define PROBE_NO_FIELD ((size_t)-1)

/* The probe search path, colon-separated: every loader_add_dir() (--probe-dir)
   in order, then $SYSMETER_PROBE_DIR, then the runner's own probes
   (build/probes beside build/runner, PREFIX/lib/sysmeter/probes beside an
   installed runner).  Each adds; none replaces.  -1: out of memory. */
int loader_add_dir(const char *dir);
/* Forget every loader_add_dir() (tests that need an exact search path). */
void loader_clear_dirs(void);
const char *loader_dir(void);
/* 1 when the file at path lies directly in one of the search directories. */
int loader_in_dirs(const char *path);
/* on: a probe named by a path loads only from a search directory (rerun and
   resume: a saved spec or manifest is untrusted and must not pick a shared
   object to load into the runner). */
void loader_only_dirs(int on);

/* Read probe `name`'s metadata (a bare name -> <dir>/<name>.so; a name
   containing '/' is a path whose stem is the expected name) in a short-lived
   child that dlopens and checks it, so that a constructor that crashes,
   hangs (killed after $SYSMETER_LOAD_TIMEOUT seconds, default 5) or exits
   cannot take the runner down.  Checks, in order: the file exists and
   dlopens, it exports PROBE_SYMBOL, dladdr() places the symbol in that
   file, abi is this runner's major and not a newer minor, name == stem,
   setup/sample present, the parameter table fits config_size.  lp->p is a
   copy in this runner's layout, without hooks (dl is NULL).  On failure
   returns -1 with e.g. "probe 'x': ABI version 7, runner expects 5" in
   err. */
int loader_open(const char *name, struct loaded_probe *out, char *err, size_t errlen);
/* The same checks in this process, keeping the object open with its hooks
   (lp->p: a copy in this runner's layout whose hooks are the object's):
   for the point's own (forked) child only. */
int loader_dlopen(const char *name, struct loaded_probe *out, char *err, size_t errlen);
void loader_close(struct loaded_probe *lp);

/* Write one parameter value (text as the spec gave it, num in base units)
   into its field of the probe's config buffer: a choice becomes its row's
   value.  Returns -1 with a message when text is not one of the choices. */
int loader_set_param(const struct probe_param *pp, void *cfg, const char *text, double num,
		     char *err, size_t errlen);

/* The probe's config struct filled from a point's values (vals[i] for
   parameter i; NULL or a NULL entry: the default): the one loop that fills
   it, for `runner check` and for the point's child (exec.c).  NULL when the
   probe has no config, else NULL with a message and errno ENOMEM ("out of
   memory") or EINVAL (a value the table refuses). */
void *loader_config(const struct loaded_probe *lp, const struct spec_val *const *vals, char *err,
		    size_t errlen);

/* The probe's own check of each config (probe->check), in a forked child
   with the load deadline: msgs[i] = the message for a rejected config
   (malloc'd), NULL when accepted or when the probe has no check hook.  -1
   with err when the check itself could not run (crash, hang). */
int loader_check_configs(const struct loaded_probe *lp, void *const *cfgs, size_t n, char **msgs,
			 char *err, size_t errlen);

/* List the probe names found in the probe directory (sorted); caller frees
   each string and the array. */
int loader_list(char ***names, size_t *n);

/* sha256 of a file as 64 hex chars. */
int loader_sha256_file(const char *path, char out[65]);

/* For the command probe: widen lp's parameter table with the spec's own
   variables, any name the command uses as {name} that the probe does not
   declare (rows with no config field, typed int, size or text from their
   values), before the spec is bound to lp->p.  Other probes, or a command
   spec without such parameters: nothing changes.  0, or -1 with err.
   (command_vars.c) */
int command_vars_add(struct loaded_probe *lp, const struct spec *s, char *err, size_t errlen);

#endif
