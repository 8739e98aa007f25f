/*
 * nfs_serve.h - `runner nfs-serve` (cli stage).
 */
#ifndef SYSMETER_CLI_NFS_SERVE_H
#define SYSMETER_CLI_NFS_SERVE_H

/* Start the namespace NFS server (as --nfs netns does), print its URL and
   export directory, write them to ready_file (may be NULL) once it
   answers, and serve until SIGINT/SIGTERM; then remove everything.
   EXIT_OK, or EXIT_USAGE when the server cannot run here (why on stderr). */
int nfs_serve_main(const char *ready_file, int quiet);

#endif
