/*
 * probe_wire.h - what both ends of the `runner serve` protocol must agree
 * on, in one place: the protocol version, the SINK frame's magic and the
 * stream checksum.  The peer (runner/serve/) and the network probes
 * (probes/tcp_peer.h) include it, so the two sides cannot drift apart.
 * Installed next to probe.h (a probe built out of the tree includes only
 * installed headers); static inline, no library: a probe links nothing of
 * the runner's.
 */
#ifndef SYSMETER_PROBE_WIRE_H
#define SYSMETER_PROBE_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define SERVE_PROTO_VERSION 1
#define SERVE_SINK_MAGIC 0x314b4e49534d5953ull	/* "SYSMSINK1" (LE, 8 bytes) */

/* The checksum both ends compute over a byte stream: 64-bit words at
   stream offsets (a tail shorter than a word kept in `carry`), each mixed
   with its index.  Start from a zeroed struct. */
struct serve_ck {
	uint64_t sum, idx, carry;
	unsigned ncarry;
};

static inline void serve_ck_update(struct serve_ck *c, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t sum = c->sum, idx = c->idx, w;

	while (c->ncarry && len) {	/* finish a word begun last time */
		c->carry |= (uint64_t)*p++ << (8 * c->ncarry);
		len--;
		if (++c->ncarry == 8) {
			sum += c->carry ^ (idx++ * 0x9e3779b97f4a7c15ull);
			c->carry = 0;
			c->ncarry = 0;
		}
	}
	for (; len >= 8; len -= 8, p += 8) {
		memcpy(&w, p, 8);
		sum += w ^ (idx++ * 0x9e3779b97f4a7c15ull);
	}
	for (size_t i = 0; i < len; i++)
		c->carry |= (uint64_t)p[i] << (8 * c->ncarry++);
	c->sum = sum;
	c->idx = idx;
}

static inline uint64_t serve_ck_final(const struct serve_ck *c)
{
	return c->sum + (c->ncarry ? (c->carry ^ (c->idx * 0x9e3779b97f4a7c15ull)) + c->ncarry : 0);
}

#endif
