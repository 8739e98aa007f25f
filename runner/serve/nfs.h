/*
 * nfs.h - the run's NFS server (--nfs, issue 12), part of serve.h: the
 * four values probes get in struct probe_host (nfs_url, nfs_local_dir,
 * nfs_label, nfs_error).
 *
 *   --nfs nfs://HOST/EXPORT   a server elsewhere: url as given, no local
 *                             directory, label "HOST (given with --nfs)".
 *   --nfs netns               (root) nfs-ganesha (NFSv3 + v4, TCP, FSAL VFS,
 *                             no v4 grace period) and rpcbind in a private
 *                             network + mount namespace behind a veth pair
 *                             (serve_ns, 10.77.0.0/16), exporting a fresh
 *                             directory under /var/tmp (a disk file system:
 *                             probes evict the server's page cache and read
 *                             it with O_DIRECT) as "/sysmeter" for v3 and v4,
 *                             read-only: url "nfs://10.77.x.y/sysmeter",
 *                             local dir that directory, label "nfs-ganesha in
 *                             a namespace on this host"; and a writable
 *                             "/sysmeter-rw" (every user squashed to nobody)
 *                             for a client that must write.  Both answer the
 *                             veth's host end only (the address the probes'
 *                             connections come from) and privileged ports
 *                             only (root's).  serve_nfs_up() returns once the
 *                             server answers RPC calls (NFSv3 and v4 NULL,
 *                             MOUNT v3 registered with rpcbind), at most
 *                             SERVE_NFS_START_S seconds.
 *
 * When a namespace server was asked for and cannot run (not root,
 * nfs-ganesha or rpcbind not installed, it did not start), url is NULL and
 * error says why and what to do; the run goes on and the probes skip.
 * serve_nfs_down() stops the server and removes the namespace, the veth
 * pair and the whole scratch area (config, log, export); a runner killed
 * outright leaves only the area (its daemons die with it), which the next
 * `--nfs netns` removes (only a folder of root's with the area's mode and
 * the runner's marker: never another user's).  SYSMETER_GANESHA and SYSMETER_RPCBIND override
 * the paths of ganesha.nfsd and rpcbind (tests).
 */
#ifndef SYSMETER_SERVE_NFS_H
#define SYSMETER_SERVE_NFS_H

#include <signal.h>

#define SERVE_NFS_START_S 20
#define SERVE_NFS_PSEUDO "/sysmeter"
#define SERVE_NFS_PSEUDO_RW "/sysmeter-rw"
#define SERVE_NFS_LABEL "nfs-ganesha in a namespace on this host"

struct serve_nfs;

/* Resolve --nfs `given` (NULL: none, returns NULL); starts the namespace
   server for "netns".  Never fails: a server that cannot be had is an
   object whose error says why (also printed unless quiet).  *stop (the
   runner's SIGINT flag) cuts the wait short. */
struct serve_nfs *serve_nfs_up(const char *given, int quiet, volatile sig_atomic_t *stop);

/* The four values (each NULL when n is NULL or the value does not apply). */
const char *serve_nfs_url(const struct serve_nfs *n);
const char *serve_nfs_local_dir(const struct serve_nfs *n);
const char *serve_nfs_label(const struct serve_nfs *n);
const char *serve_nfs_error(const struct serve_nfs *n);

/* The CPU the namespace server's daemons are pinned to (the last one the
   runner may use), -1 for a server elsewhere or none. */
int serve_nfs_cpu(const struct serve_nfs *n);

/* Stop everything, remove everything, free n (NULL is fine). */
void serve_nfs_down(struct serve_nfs *n);

/* Is `given` a valid --nfs value: "netns" or nfs://HOST/EXPORT? */
int serve_nfs_valid(const char *given);

#endif
