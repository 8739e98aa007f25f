/*
 * midr.h - what a 64-bit ARM CPU says of itself: its Main ID Register
 * (MIDR_EL1), as the kernel shows it in sysfs
 * (/sys/devices/system/cpu/cpu0/regs/identification/midr_el1) or in
 * /proc/cpuinfo ("CPU implementer", "CPU variant", "CPU part",
 * "CPU revision"), decoded to an implementer and a core name.  File reads
 * only, under the machine root (machine_fs.c): a test decodes a fake ARM
 * tree on any host.  Private to machine/.
 */
#ifndef SYSMETER_MACHINE_MIDR_H
#define SYSMETER_MACHINE_MIDR_H

struct machine_midr {
	int have;			/* a MIDR was found */
	unsigned value;			/* the 32 bits of MIDR_EL1 */
	int implementer, variant, part, revision;
	const char *vendor;		/* the implementer's name, "unknown (0x..)" */
	const char *core;		/* "Neoverse N1", ..., "unknown" */
	const char *source;		/* the file it came from */
	char vendor_buf[32];
};

/* cpu0's MIDR from sysfs, else from /proc/cpuinfo; have 0 when neither
   has one (not an ARM machine, or a kernel that shows neither). */
void machine_midr_read(struct machine_midr *m);

/* The implementer's name for an 8-bit implementer code, NULL when not
   known. */
const char *machine_midr_vendor(int implementer);

/* 1 when vendor is the name of an ARM implementer (the table's generic
   aarch64 row then applies to a core it does not know). */
int machine_midr_is_vendor(const char *vendor);

/* The core name of an implementer and part number, "unknown" when not
   in the table. */
const char *machine_midr_core(int implementer, int part);

#endif
