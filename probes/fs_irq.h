/*
 * fs_irq.h - which CPU handles a block device's completion interrupts
 * (header-only, for the file-system probes).
 *
 * Why it matters: a reader that blocks on a device read is woken by the
 * CPU that takes the completion interrupt.  When that is another CPU, and
 * the reader's CPU is idle, the wake-up is an IPI to a halted vCPU: tens of
 * microseconds on a KVM guest (measured here: 4 KiB O_DIRECT random reads,
 * fio pinned to the interrupt's CPU 66 us, pinned to the other CPU 89 us).
 * So the probes record, per sample, the CPU they ran on and the CPU that
 * took most of the device's interrupts during the sample.
 *
 * The device's interrupts: st_dev -> /sys/dev/block/MAJ:MIN -> its sysfs
 * device path, walked up to the first directory with msi_irqs/ (the PCI
 * function of a virtio or NVMe disk); their per-CPU counts are read from
 * /proc/interrupts before and after the sample.  No MSI interrupts (a
 * device-mapper or loop device, a network file system): nothing is known
 * and the metric is NaN.
 */
#ifndef SYSMETER_FS_IRQ_H
#define SYSMETER_FS_IRQ_H

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#define FS_IRQ_MAX 64		/* interrupts of one device we follow */
#define FS_IRQ_CPUS 256		/* CPUs counted */

struct fs_irq {
	int n;
	int irq[FS_IRQ_MAX];
	uint64_t before[FS_IRQ_CPUS];
};

/* The MSI interrupts of the device holding st_dev (q->n = 0: none found). */
static inline void fs_irq_find(dev_t dev, struct fs_irq *q)
{
	char link[64], path[PATH_MAX], sub[PATH_MAX + 16];

	memset(q, 0, sizeof *q);
	snprintf(link, sizeof link, "/sys/dev/block/%u:%u", major(dev), minor(dev));
	if (!realpath(link, path))
		return;
	while (strlen(path) > strlen("/sys/devices") && strncmp(path, "/sys/devices/", 13) == 0) {
		DIR *d;
		struct dirent *e;

		snprintf(sub, sizeof sub, "%s/msi_irqs", path);
		if ((d = opendir(sub))) {
			while ((e = readdir(d)) && q->n < FS_IRQ_MAX)
				if (isdigit((unsigned char)e->d_name[0]))
					q->irq[q->n++] = atoi(e->d_name);
			closedir(d);
			return;
		}
		char *slash = strrchr(path, '/');
		if (!slash)
			return;
		*slash = '\0';
	}
}

/* Sum of the device's interrupt counts per CPU into per_cpu[]; the number
   of CPU columns, or -1 when /proc/interrupts cannot be read. */
static inline int fs_irq_counts(const struct fs_irq *q, uint64_t *per_cpu)
{
	FILE *f = fopen("/proc/interrupts", "r");
	char line[4096];
	int ncpu = 0;

	memset(per_cpu, 0, FS_IRQ_CPUS * sizeof *per_cpu);
	if (!f)
		return -1;
	if (fgets(line, sizeof line, f))
		for (char *t = strtok(line, " \t\n"); t; t = strtok(NULL, " \t\n"))
			ncpu += strncmp(t, "CPU", 3) == 0;
	if (ncpu > FS_IRQ_CPUS)
		ncpu = FS_IRQ_CPUS;
	while (fgets(line, sizeof line, f)) {
		char *p = line, *end;
		long irq = strtol(p, &end, 10);
		int mine = 0;

		if (end == p || *end != ':')
			continue;
		for (int i = 0; i < q->n && !mine; i++)
			mine = q->irq[i] == irq;
		if (!mine)
			continue;
		p = end + 1;
		for (int c = 0; c < ncpu; c++) {
			unsigned long long v = strtoull(p, &end, 10);

			if (end == p)
				break;
			per_cpu[c] += v;
			p = end;
		}
	}
	fclose(f);
	return ncpu;
}

/* Before a sample. */
static inline void fs_irq_start(struct fs_irq *q)
{
	if (q->n)
		fs_irq_counts(q, q->before);
}

/* After it: the CPU that took most of the device's interrupts since
   fs_irq_start, or -1 (none taken, none known). */
static inline int fs_irq_busiest(const struct fs_irq *q)
{
	uint64_t now[FS_IRQ_CPUS], best = 0;
	int ncpu, cpu = -1;

	if (!q->n || (ncpu = fs_irq_counts(q, now)) <= 0)
		return -1;
	for (int c = 0; c < ncpu; c++)
		if (now[c] - q->before[c] > best) {
			best = now[c] - q->before[c];
			cpu = c;
		}
	return cpu;
}

#endif
