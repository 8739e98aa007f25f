/*
 * midr.c - MIDR_EL1 read and decoded (midr.h).  The fields, from the Arm
 * Architecture Reference Manual (DDI 0487, D23.2 "MIDR_EL1"): implementer
 * [31:24], variant [23:20], architecture [19:16], part number [15:4],
 * revision [3:0].  The implementer codes and part numbers are the ones
 * Linux names in arch/arm64/include/asm/cputype.h, and each core's
 * Technical Reference Manual gives its part number ("MIDR_EL1, Main ID
 * Register": Cortex-A72 0xD08, Neoverse N1 0xD0C, ...).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine/machine_fs.h"
#include "machine/midr.h"

static const struct {
	int code;
	const char *name;
} vendors[] = {
	{0x41, "ARM"}, {0x42, "Broadcom"}, {0x43, "Cavium"}, {0x46, "Fujitsu"},
	{0x48, "HiSilicon"}, {0x4e, "NVIDIA"}, {0x50, "Applied Micro"}, {0x51, "Qualcomm"},
	{0x61, "Apple"}, {0x6d, "Microsoft"}, {0xc0, "Ampere"},
};

static const struct {
	int implementer, part;
	const char *core;
} cores[] = {
	{0x41, 0xd03, "Cortex-A53"}, {0x41, 0xd04, "Cortex-A35"}, {0x41, 0xd05, "Cortex-A55"},
	{0x41, 0xd07, "Cortex-A57"}, {0x41, 0xd08, "Cortex-A72"}, {0x41, 0xd09, "Cortex-A73"},
	{0x41, 0xd0a, "Cortex-A75"}, {0x41, 0xd0b, "Cortex-A76"}, {0x41, 0xd0c, "Neoverse N1"},
	{0x41, 0xd0d, "Cortex-A77"}, {0x41, 0xd40, "Neoverse V1"}, {0x41, 0xd41, "Cortex-A78"},
	{0x41, 0xd44, "Cortex-X1"}, {0x41, 0xd46, "Cortex-A510"}, {0x41, 0xd47, "Cortex-A710"},
	{0x41, 0xd48, "Cortex-X2"}, {0x41, 0xd49, "Neoverse N2"}, {0x41, 0xd4b, "Cortex-A78C"},
	{0x41, 0xd4f, "Neoverse V2"}, {0x41, 0xd80, "Cortex-A520"}, {0x41, 0xd81, "Cortex-A720"},
	{0x41, 0xd82, "Cortex-X4"}, {0x41, 0xd84, "Neoverse V3"}, {0x41, 0xd8e, "Neoverse N3"},
	{0x51, 0x800, "Kryo 2xx Gold"}, {0x51, 0x801, "Kryo 2xx Silver"},
	{0x51, 0x802, "Kryo 3xx Gold"}, {0x51, 0x803, "Kryo 3xx Silver"},
	{0x51, 0x805, "Kryo 4xx Silver"}, {0x51, 0xc00, "Falkor"},
	{0x61, 0x022, "Apple M1 Icestorm"}, {0x61, 0x023, "Apple M1 Firestorm"},
	{0x61, 0x024, "Apple M1 Pro/Max Icestorm"}, {0x61, 0x025, "Apple M1 Pro/Max Firestorm"},
	{0x61, 0x028, "Apple M1 Max Icestorm"}, {0x61, 0x029, "Apple M1 Max Firestorm"},
	{0x61, 0x032, "Apple M2 Blizzard"}, {0x61, 0x033, "Apple M2 Avalanche"},
	{0x43, 0x0af, "ThunderX2"}, {0x48, 0xd01, "TaiShan v110"},
	{0xc0, 0xac3, "AmpereOne"},
};

const char *machine_midr_vendor(int implementer)
{
	for (size_t i = 0; i < sizeof vendors / sizeof vendors[0]; i++)
		if (vendors[i].code == implementer)
			return vendors[i].name;
	return NULL;
}

int machine_midr_is_vendor(const char *vendor)
{
	for (size_t i = 0; vendor && i < sizeof vendors / sizeof vendors[0]; i++)
		if (strcmp(vendors[i].name, vendor) == 0)
			return 1;
	return 0;
}

const char *machine_midr_core(int implementer, int part)
{
	for (size_t i = 0; i < sizeof cores / sizeof cores[0]; i++)
		if (cores[i].implementer == implementer && cores[i].part == part)
			return cores[i].core;
	return "unknown";
}

/* A number as the kernel writes it ("0x41", "0xd0c", "3", "0x00000000413fd0c1"). */
static int parse_num(const char *s, unsigned long long *v)
{
	char *end;

	if (!s)
		return -1;
	*v = strtoull(s, &end, 0);
	return end == s || (*end && *end != ' ' && *end != '\n') ? -1 : 0;
}

static int from_sysfs(unsigned *value)
{
	char *s = machine_fs_line("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1");
	unsigned long long v;
	int rc = parse_num(s, &v);

	free(s);
	if (rc < 0)
		return -1;
	*value = (unsigned)(v & 0xffffffffu);
	return 0;
}

/* /proc/cpuinfo's first processor block: implementer and part are
   required, variant and revision 0 when absent; the architecture field
   is 0xf (CPUID scheme) on every ARMv8 core. */
static int from_cpuinfo(unsigned *value)
{
	static const char *keys[] = {"CPU implementer", "CPU variant", "CPU part", "CPU revision"};
	unsigned long long f[4] = {0, 0, 0, 0};

	for (int i = 0; i < 4; i++) {
		char *s = machine_fs_field("/proc/cpuinfo", keys[i], ':');
		int rc = parse_num(s, &f[i]);

		free(s);
		if (rc < 0 && (i == 0 || i == 2))
			return -1;
	}
	*value = (unsigned)((f[0] & 0xff) << 24 | (f[1] & 0xf) << 20 | 0xfu << 16 |
			    (f[2] & 0xfff) << 4 | (f[3] & 0xf));
	return 0;
}

void machine_midr_read(struct machine_midr *m)
{
	const char *v;

	memset(m, 0, sizeof *m);
	if (from_sysfs(&m->value) == 0)
		m->source = "midr_el1 (/sys/devices/system/cpu/cpu0/regs/identification)";
	else if (from_cpuinfo(&m->value) == 0)
		m->source = "/proc/cpuinfo (CPU implementer, variant, part, revision)";
	else
		return;
	m->have = 1;
	m->implementer = (int)(m->value >> 24 & 0xff);
	m->variant = (int)(m->value >> 20 & 0xf);
	m->part = (int)(m->value >> 4 & 0xfff);
	m->revision = (int)(m->value & 0xf);
	v = machine_midr_vendor(m->implementer);
	if (!v) {
		snprintf(m->vendor_buf, sizeof m->vendor_buf, "unknown (0x%02x)", m->implementer);
		v = m->vendor_buf;
	}
	m->vendor = v;
	m->core = machine_midr_core(m->implementer, m->part);
}
