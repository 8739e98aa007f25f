/*
 * version.h - the one version string of sysmeter (the manifest, the report
 * and `runner --version` all read it from here) and the git commit the
 * runner was built from, when it runs from a checkout.
 */
#ifndef SYSMETER_VERSION_H
#define SYSMETER_VERSION_H

#define SYSMETER_VERSION "0.1.0"

/* The commit of the checkout the runner's binary lives in (build/runner ->
   ../.git), read without running git; NULL when it is not in one.  Caller
   frees. */
char *version_git_commit(void);

#endif
