/*
 * servers.c - the servers a run's probes talk to (serve.h): the `runner
 * serve` peer (--peer) and the NFS server (--nfs), up around the run.
 */
#include <signal.h>

#include "serve/serve.h"

void serve_servers_up(struct serve_servers *s, const char *peer, const char *nfs,
		      const char *token, int quiet, volatile sig_atomic_t *stop)
{
	s->token = token;
	if (!*stop)	/* failure: the remote points are skipped with the reason */
		serve_peer_up(&s->peer, peer, quiet);
	if (s->peer.token_path[0])	/* --peer netns made its own */
		s->token = s->peer.token_path;
	if (!*stop)	/* failure: the NFS points are skipped with the reason */
		s->nfs = serve_nfs_up(nfs, quiet, stop);
}

void serve_servers_down(struct serve_servers *s)
{
	serve_nfs_down(s->nfs);
	s->nfs = NULL;
	serve_peer_down(&s->peer);
	s->token = NULL;
}
