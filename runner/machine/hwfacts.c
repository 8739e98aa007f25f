/*
 * hwfacts.c - the machine facts that predictions need and that a system
 * file states only on some machines (docs/results-format.md, "Facts"):
 * the memory's type and speed (SMBIOS type 17, the table dmidecode -t 17
 * decodes, read from /sys/firmware/dmi/tables/DMI; else EDAC's sysfs), the
 * link speed of the default route's interface (sysfs), and the ones no file
 * states (memory bus bandwidth, a disk's sequential read and random read
 * rate), null with the reason.  Each fact's source, or why it is unknown,
 * goes into machine.sources.  A user gives what cannot be read with
 * --machine FILE (facts.c).
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "machine/machine.h"
#include "machine/machine_fs.h"
#include "lib/jsonutil.h"

#define DMI_TABLE "/sys/firmware/dmi/tables/DMI"
#define DMI_MAX (1u << 20)

static void source(json_t *sources, const char *key, const char *src, const char *why)
{
	jsonutil_set(sources, key, json_pack("{s:o,s:o}", "source", src ? jsonutil_text(src)
						: json_null(), "why_not", why ? jsonutil_text(why) : json_null()));
}

/* SMBIOS 3.x, 7.18.2 "Memory Device - Type": the kinds of DRAM a
   prediction can use; generic ones ("RAM", "Unknown", what a virtual
   machine's firmware says) are NULL. */
static const char *smbios_mem_type(unsigned t)
{
	static const struct { unsigned t; const char *name; } tab[] = {
		{0x0f, "SDRAM"}, {0x11, "RDRAM"}, {0x12, "DDR"}, {0x13, "DDR2"},
		{0x14, "DDR2 FB-DIMM"}, {0x18, "DDR3"}, {0x19, "FBD2"}, {0x1a, "DDR4"},
		{0x1b, "LPDDR"}, {0x1c, "LPDDR2"}, {0x1d, "LPDDR3"}, {0x1e, "LPDDR4"},
		{0x20, "HBM"}, {0x21, "HBM2"}, {0x22, "DDR5"}, {0x23, "LPDDR5"}, {0x24, "HBM3"},
	};

	for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
		if (tab[i].t == t)
			return tab[i].name;
	return NULL;
}

static unsigned le16(const unsigned char *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

struct mem_found {
	char type[32];
	double mts;			/* 0: unknown */
	int devices;			/* type 17 structures with a module */
	unsigned raw_type;		/* the first module's type byte */
	char why[300];
};

/* Every type 17 structure of the SMBIOS table: the first module's type and
   the fastest configured (else rated) speed.  0, or -1 with why. */
static int smbios_memory(struct mem_found *f)
{
	char path[1024];
	unsigned char *buf;
	size_t n, off = 0;
	FILE *fp = fopen(machine_fs_path(path, sizeof path, DMI_TABLE), "rb");

	if (!fp) {
		snprintf(f->why, sizeof f->why, "SMBIOS: %s: %s", DMI_TABLE,
			 errno == EACCES ? "readable by root only" : strerror(errno));
		return -1;
	}
	if (!(buf = malloc(DMI_MAX))) {
		fclose(fp);
		snprintf(f->why, sizeof f->why, "SMBIOS: out of memory");
		return -1;
	}
	n = fread(buf, 1, DMI_MAX, fp);
	fclose(fp);
	while (off + 4 <= n) {
		unsigned type = buf[off], len = buf[off + 1];
		size_t end;

		if (len < 4 || off + len > n)
			break;
		if (type == 17 && len >= 0x15) {
			unsigned size = le16(buf + off + 0x0c);
			unsigned speed = len >= 0x17 ? le16(buf + off + 0x15) : 0;
			unsigned conf = len >= 0x22 ? le16(buf + off + 0x20) : 0;
			unsigned mts = conf && conf != 0xffff ? conf : speed != 0xffff ? speed : 0;
			const char *name = smbios_mem_type(buf[off + 0x12]);

			if (size != 0) {	/* 0: an empty slot */
				if (!f->devices++)
					f->raw_type = buf[off + 0x12];
				if (name && !f->type[0])
					snprintf(f->type, sizeof f->type, "%s", name);
				if (mts > f->mts)
					f->mts = mts;
			}
		}
		if (type == 127)
			break;
		/* the strings after the formatted area end with two NULs */
		for (end = off + len; end + 1 < n && (buf[end] || buf[end + 1]); end++)
			;
		off = end + 2;
	}
	free(buf);
	if (!f->devices) {
		snprintf(f->why, sizeof f->why, "SMBIOS: %s lists no memory module (type 17)",
			 DMI_TABLE);
		return -1;
	}
	if (!f->type[0])
		snprintf(f->why, sizeof f->why, "SMBIOS type 17 gives memory type 0x%02x (%s), not "
			 "a kind of DRAM%s", f->raw_type, f->raw_type == 7 ? "RAM" : f->raw_type == 2 ?
			 "Unknown" : "Other", f->raw_type == 7 ? ": a virtual machine's firmware "
			 "does not describe the host's memory" : "");
	return 0;
}

/* EDAC's memory controllers: /sys/devices/system/edac/mc/mc<N>/dimm<M>/
   dimm_mem_type ("Unbuffered-DDR4", "Registered-DDR4"): the type after the
   module kind.  0, or -1 with why. */
static int edac_memory(char *type, size_t len, char *why, size_t whylen)
{
	char dir[600];
	DIR *d = opendir(machine_fs_path(dir, sizeof dir, "/sys/devices/system/edac/mc"));
	struct dirent *e;

	if (!d) {
		snprintf(why, whylen, "EDAC: no memory controller in /sys/devices/system/edac/mc");
		return -1;
	}
	while ((e = readdir(d)) && !type[0]) {
		if (strncmp(e->d_name, "mc", 2) != 0)
			continue;
		for (int i = 0; i < 64 && !type[0]; i++) {
			char p[600], *t, *dash;

			snprintf(p, sizeof p, "/sys/devices/system/edac/mc/%.200s/dimm%d/dimm_mem_type",
				 e->d_name, i);
			if (!(t = machine_fs_line(p)))
				continue;
			dash = strchr(t, '-');
			if (strstr(t, "DDR") || strstr(t, "RDRAM"))
				snprintf(type, len, "%s", dash && strstr(dash, "DDR") ? dash + 1 : t);
			free(t);
		}
	}
	closedir(d);
	if (!type[0])
		snprintf(why, whylen, "EDAC: no module with a DRAM type in /sys/devices/system/edac/mc");
	return type[0] ? 0 : -1;
}

static void memory_facts(json_t *m, json_t *sources)
{
	struct mem_found f = {0};
	char etype[32] = "", ewhy[200] = "", why[600];
	int have_smbios = smbios_memory(&f) == 0;

	if (f.type[0]) {
		jsonutil_set(m, "memory_type", jsonutil_text(f.type));
		source(sources, "memory_type", "smbios", NULL);
	} else if (edac_memory(etype, sizeof etype, ewhy, sizeof ewhy) == 0) {
		jsonutil_set(m, "memory_type", jsonutil_text(etype));
		source(sources, "memory_type", "edac", NULL);
	} else {
		snprintf(why, sizeof why, "%s; %s", f.why, ewhy);
		jsonutil_set(m, "memory_type", json_null());
		source(sources, "memory_type", NULL, why);
	}
	if (have_smbios && f.mts > 0) {
		jsonutil_set(m, "memory_speed", json_real(f.mts));
		source(sources, "memory_speed", "smbios", NULL);
	} else {
		snprintf(why, sizeof why, "%s", have_smbios ? "SMBIOS type 17 gives no speed" : f.why);
		jsonutil_set(m, "memory_speed", json_null());
		source(sources, "memory_speed", NULL, why);
	}
	jsonutil_set(m, "memory_bus_bandwidth", json_null());
	source(sources, "memory_bus_bandwidth", NULL, "no system file states it (channels and "
	       "bus width are not readable): give it with --machine FILE");
}

/* The interface of the default route (/proc/net/route: destination 0, up;
   the lowest metric), or "" . */
static void default_route_if(char *name, size_t len)
{
	char p[600], line[512];
	FILE *f = fopen(machine_fs_path(p, sizeof p, "/proc/net/route"), "r");
	long best = -1;

	name[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		char ifn[64];
		unsigned long dst, gw, flags;
		long refcnt, use, metric;

		if (sscanf(line, "%63s %lx %lx %lx %ld %ld %ld", ifn, &dst, &gw, &flags, &refcnt, &use,
			   &metric) != 7 || dst != 0 || !(flags & 1))
			continue;
		if (best < 0 || metric < best) {
			best = metric;
			snprintf(name, len, "%s", ifn);
		}
	}
	fclose(f);
}

static void nic_facts(json_t *m, json_t *sources)
{
	char ifn[64], rel[300], why[600], src[300], drv[512] = "", path[900];
	char *speed;
	ssize_t n;
	long mbps;

	default_route_if(ifn, sizeof ifn);
	jsonutil_set(m, "nic_link_speed", json_null());
	if (!ifn[0]) {
		source(sources, "nic_link_speed", NULL, "no default route in /proc/net/route");
		return;
	}
	snprintf(rel, sizeof rel, "/sys/class/net/%s/device/driver", ifn);
	n = readlink(machine_fs_path(path, sizeof path, rel), drv, sizeof drv - 1);
	drv[n > 0 ? n : 0] = '\0';
	const char *dname = strrchr(drv, '/') ? strrchr(drv, '/') + 1 : drv;
	snprintf(rel, sizeof rel, "/sys/class/net/%s/speed", ifn);
	snprintf(src, sizeof src, "sysfs (%s)", rel);
	errno = 0;
	speed = machine_fs_line(rel);
	mbps = speed ? strtol(speed, NULL, 10) : 0;
	if (mbps > 0) {
		jsonutil_set(m, "nic_link_speed", json_real((double)mbps * 1e6));
		source(sources, "nic_link_speed", src, NULL);
	} else {
		snprintf(why, sizeof why, "%s%s%s%s, the default route's interface: %s", ifn,
			 dname[0] ? " (" : "", dname, dname[0] ? ")" : "",
			 speed ? "the kernel reports no link speed (-1), as for virtual NICs (virtio)"
			       : "its speed is unreadable (no link, or a driver without one)");
		source(sources, "nic_link_speed", NULL, why);
	}
	free(speed);
}

void machine_hw_facts(json_t *m)
{
	json_t *sources = json_object();

	memory_facts(m, sources);
	jsonutil_set(m, "disk_seq_read", json_null());
	source(sources, "disk_seq_read", NULL, "a rate to measure, not a fact a system file states: "
	       "give it with --machine FILE");
	jsonutil_set(m, "disk_rand_read_iops", json_null());
	source(sources, "disk_rand_read_iops", NULL, "a rate to measure, not a fact a system file "
	       "states: give it with --machine FILE");
	nic_facts(m, sources);
	jsonutil_set(m, "sources", sources);
}
