/*
 * loader.h - find, open and check a probe shared object (design §4).
 */
#ifndef SYSMETER_LOADER_H
#define SYSMETER_LOADER_H

#include <stddef.h>
#include "probe.h"

struct loaded_probe {
	void *dl;			/* dlopen handle */
	const struct probe *p;
	char *path;			/* resolved path of the .so */
	char sha256[65];		/* of the .so file */
	size_t n_params, n_metrics;
};

/* The directory probes are looked up in: --probe-dir, else $SYSMETER_PROBE_DIR,
   else build/probes next to the runner binary, else the install dir. */
void loader_set_dir(const char *dir);
const char *loader_dir(void);

/* Open probe `name` (a bare name -> <dir>/<name>.so; a name containing '/'
   is a path whose stem is the expected symbol).  Checks, in order: the file
   exists and dlopens, the symbol exists, abi == PROBE_ABI_VERSION, name ==
   stem, setup/sample/teardown present.  On failure returns -1 with e.g.
   "probe 'x': ABI version 7, runner expects 1" in err, and closes it. */
int loader_open(const char *name, struct loaded_probe *out, char *err, size_t errlen);
void loader_close(struct loaded_probe *lp);

/* List the probe names found in the probe directory (sorted); caller frees
   each string and the array. */
int loader_list(char ***names, size_t *n);

/* sha256 of a file as 64 hex chars. */
int loader_sha256_file(const char *path, char out[65]);

#endif
