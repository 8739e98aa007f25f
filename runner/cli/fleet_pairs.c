/*
 * fleet_pairs.c - `runner fleet --ansible --pairs`: each host's network
 * experiments run against another host of the fleet.  The playbook
 * (tools/fleet/fleet.yml) forms a ring of the hosts that got as far as the
 * run, in inventory order: each starts a `runner serve` for the host before
 * it and runs its own specs with `--peer` the serve of the host after it.
 *
 * Here: one fresh token per pair, made before the playbook runs.  In a
 * ring each host serves exactly one other, so the pair is named by its
 * serving host: stage/tokens/HOST is the secret of the pair whose serve
 * runs on HOST, copied by the playbook (no_log) to HOST and to the host
 * that measures against it, outside the run folders, and deleted there
 * when the run ends (and by stop.yml after Ctrl-C).  The controller's
 * copies go as soon as the playbook returns.  No token is ever printed or
 * written anywhere else: the playbook's variables carry the folder's path,
 * and what comes back about a host's peer is its name and address.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/fleet_run.h"
#include "lib/jsonutil.h"
#include "lib/text.h"

/* 32 random bytes as 64 hex digits and a newline into path (made here,
   mode 0600, never there before). */
static int write_token(const char *path, char *err, size_t errlen)
{
	unsigned char rnd[32];
	char hex[66];
	size_t off = 0;
	int fd, rc = -1;

	if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
		snprintf(err, errlen, "no random bytes for a token: %s", strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < sizeof rnd; i++)
		snprintf(hex + 2 * i, 3, "%02x", rnd[i]);
	hex[64] = '\n';
	hex[65] = '\0';
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	while (off < 65) {
		ssize_t w = write(fd, hex + off, 65 - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	if (off < 65 || fsync(fd) < 0) {
		snprintf(err, errlen, "%s: %s", path, off < 65 ? "short write" : strerror(errno));
		close(fd);
		goto out;
	}
	rc = close(fd) < 0 ? -1 : 0;
	if (rc < 0)
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
out:
	explicit_bzero(rnd, sizeof rnd);
	explicit_bzero(hex, sizeof hex);
	return rc;
}

/* Remove dir/NAME of every name, then dir (what fleet_pairs_tokens made). */
static void remove_tokens(const char *dir, json_t *names)
{
	json_t *x;
	size_t i;

	json_array_foreach(names, i, x) {
		char path[PATH_MAX + 80];

		snprintf(path, sizeof path, "%s/%s", dir, json_string_value(x));
		unlink(path);
	}
	rmdir(dir);
}

int fleet_pairs_tokens(const char *stage, json_t *names, char *dir, size_t dirlen, char *err,
		       size_t errlen)
{
	json_t *x;
	size_t i;

	snprintf(dir, dirlen, "%s/tokens", stage);
	if (mkdir(dir, 0700) < 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	json_array_foreach(names, i, x) {
		char path[PATH_MAX + 80];

		/* names are checked host names (inventory_hosts): no '/' */
		snprintf(path, sizeof path, "%s/%s", dir, json_string_value(x));
		if (write_token(path, err, errlen) < 0) {
			remove_tokens(dir, names);
			dir[0] = '\0';
			return -1;
		}
	}
	return 0;
}

/* A text the playbook sent back about a peer: printable ASCII, bounded
   (it reaches the report and the terminal). */
static json_t *clean_text(json_t *v, size_t max)
{
	const char *s = json_string_value(v);
	char buf[512];
	size_t n = 0;

	if (!s)
		return json_null();
	for (; *s && n < max && n < sizeof buf - 1; s++)
		buf[n++] = (*s >= 0x20 && *s < 0x7f) ? *s : '?';
	buf[n] = '\0';
	return jsonutil_text(buf);
}

json_t *fleet_pairs_peer(json_t *status)
{
	json_t *p = json_object_get(status, "peer");
	const char *name;

	if (!json_is_object(p))
		return NULL;
	name = jsonutil_str(p, "name");
	return json_pack("{s:o,s:o,s:o}",
		"name", name && text_host_name_ok(name) ? jsonutil_text(name) : json_null(),
		"address", clean_text(json_object_get(p, "address"), 300),
		"why_not", clean_text(json_object_get(p, "why_not"), 400));
}

void fleet_pairs_say(const char *host, json_t *peer, int quiet)
{
	const char *name = jsonutil_str(peer, "name"), *addr = jsonutil_str(peer, "address");

	if (!peer)
		return;
	if (name && addr) {
		if (!quiet)
			fprintf(stderr, "runner: fleet: %s: network peer %s (runner serve at %s)\n",
				host, name, addr);
		return;
	}
	/* said also with -q: the host's remote points were skipped */
	fprintf(stderr, "runner: fleet: %s: no network peer (its remote points are skipped): %s\n",
		host, jsonutil_str(peer, "why_not") ? jsonutil_str(peer, "why_not") : "unknown");
}
