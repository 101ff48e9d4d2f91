// SPDX-License-Identifier: MIT
/*
 * sample.c - what each tick measures, per CPU (topology index order):
 *
 *   foreign / worker / idle   share of the tick's time run by non-xsched
 *                             tasks, by registered workers, idle (permille)
 *   rq_us                     mean wakeup-to-run latency of the tasks run
 *
 * each a decayed average: new = old + (sample - old) * decay / 100.
 *
 * BPF mode reads the programs' per-CPU counters (nanoseconds). Degraded mode
 * reads /proc/stat (clock ticks: busy and idle), takes the registered
 * workers' own CPU time from /proc/PID/task/TID/stat out of the busy time
 * of the CPU they last ran on, and /proc/schedstat for run-queue waits; it
 * also writes the worker-state slots (R = on CPU, else blocked) itself.
 * Node free memory comes from sysfs node meminfo in both modes.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "xschedd.h"

uint64_t xsd_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int xsd_sample_init(struct xsd *d)
{
	d->cpu = calloc(d->topo->ncpus, sizeof(*d->cpu));
	d->wticks = calloc(d->nslots, sizeof(*d->wticks));
	d->wticks_moved = calloc(d->nslots, sizeof(*d->wticks_moved));
	return d->cpu && d->wticks && d->wticks_moved ? 0 : -ENOMEM;
}

static uint32_t xsd_decay(uint32_t old, uint64_t sample, int64_t decay)
{
	int64_t s = (int64_t)sample, o = old;

	return (uint32_t)(o + (s - o) * decay / 100);
}

static uint32_t xsd_permille(uint64_t part, uint64_t whole)
{
	if (!whole)
		return 0;
	return part >= whole ? 1000 : (uint32_t)(part * 1000 / whole);
}

static uint64_t xsd_delta(uint64_t now, uint64_t before)
{
	return now > before ? now - before : 0;
}

/* Fold one raw reading @raw of CPU index @i into its decayed values. */
static void xsd_sample_fold(struct xsd *d, uint32_t i, const struct xsd_cpu_sample *raw)
{
	struct xsd_cpu_sample *s = &d->cpu[i];
	uint64_t dk[3], all = 0, dlat, dcnt;

	if (s->primed) {
		for (int k = 0; k < 3; k++)
			all += dk[k] = xsd_delta(raw->total[k], s->total[k]);
		dlat = xsd_delta(raw->rq_lat_ns, s->rq_lat_ns);
		dcnt = xsd_delta(raw->rq_lat_count, s->rq_lat_count);
		if (all) {
			s->idle = xsd_decay(s->idle, xsd_permille(dk[0], all), d->opt.decay);
			s->worker = xsd_decay(s->worker, xsd_permille(dk[1], all), d->opt.decay);
			s->foreign = xsd_decay(s->foreign, xsd_permille(dk[2], all), d->opt.decay);
		}
		if (dcnt)
			s->rq_us = xsd_decay(s->rq_us, dlat / dcnt / 1000, d->opt.decay);
	}
	memcpy(s->total, raw->total, sizeof(s->total));
	s->rq_lat_ns = raw->rq_lat_ns;
	s->rq_lat_count = raw->rq_lat_count;
	s->switches = raw->switches;
	s->migrations = raw->migrations;
	s->primed = true;
}

static void xsd_sample_bpf(struct xsd *d, uint64_t now_ns)
{
	for (uint32_t i = 0; i < d->topo->ncpus; i++) {
		struct xsd_cpu_sample raw = { 0 };

		if (!xsd_bpf_read_cpu(d, d->topo->cpus[i].cpu, now_ns, &raw))
			xsd_sample_fold(d, i, &raw);
	}
}

/* ---- degraded mode ---- */

static char *xsd_read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	return buf;
}

/* utime + stime (clock ticks), state letter and last CPU of a thread. */
int xsd_task_stat(uint32_t pid, uint32_t tid, uint64_t *ticks, char *state,
			 uint32_t *cpu)
{
	char path[64], buf[1024], *p;
	unsigned long long ut, st;
	int last;

	snprintf(path, sizeof(path), "/proc/%u/task/%u/stat", pid, tid);
	if (!xsd_read_file(path, buf, sizeof(buf)))
		return -errno;
	p = strrchr(buf, ')'); /* comm may hold spaces and parentheses */
	if (!p || sscanf(p + 2, "%c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu "
				"%*d %*d %*d %*d %*d %*d %*u %*u %*d %*u %*u %*u %*u %*u "
				"%*u %*u %*u %*u %*u %*u %*u %*u %*d %d",
			 state, &ut, &st, &last) != 4)
		return -EBADMSG;
	*ticks = ut + st;
	*cpu = last < 0 ? 0 : (uint32_t)last;
	return 0;
}

static void xsd_sample_proc(struct xsd *d, uint64_t now_ns)
{
	uint32_t n = d->topo->ncpus;
	struct xsd_cpu_sample *raw = calloc(n, sizeof(*raw));
	uint64_t *wticks = d->wticks;
	char line[512];
	FILE *f;

	if (!raw)
		return;
	/* registered workers: state, CPU, and the time they took */
	memset(d->wticks_moved, 0, d->nslots);
	for (uint32_t s = 0; s < d->nslots; s++) {
		struct xs_abi_worker *w = &d->workers[s];
		uint64_t ticks = 0;
		uint32_t cpu = 0, state;
		char st = 0;
		int i;

		if (!d->owner[s] ||
		    xsd_task_stat(d->slot_pid[s], d->slot_tid[s], &ticks, &st, &cpu))
			continue;
		if (w->state == XS_ABI_WORKER_UNKNOWN)
			wticks[s] = ticks;
		i = xs_topology_cpu_index(d->topo, cpu);
		if (i >= 0)
			raw[i].total[1] += xsd_delta(ticks, wticks[s]);
		d->wticks_moved[s] = ticks != wticks[s];
		wticks[s] = ticks;
		state = xsd_worker_state(st);
		if (state != w->state || cpu != w->cpu) {
			w->since_ns = now_ns;
			if (state == XS_ABI_WORKER_ON_CPU)
				w->switches++;
		}
		w->cpu = cpu;
		/* Relaxed store of the word readers test last. */
		__atomic_store_n(&w->state, state, __ATOMIC_RELAXED);
	}
	f = fopen("/proc/stat", "re");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long v[8] = { 0 };
		unsigned int cpu;
		uint64_t busy;
		int i;

		if (sscanf(line, "cpu%u %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0],
			   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 9)
			continue;
		i = xs_topology_cpu_index(d->topo, cpu);
		if (i < 0)
			continue;
		/* user nice system idle iowait irq softirq steal */
		raw[i].total[0] = v[3] + v[4];
		/* accumulated worker ticks move from "other" to "worker" */
		raw[i].total[1] += d->cpu[i].total[1];
		busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
		raw[i].total[2] = busy > raw[i].total[1] ? busy - raw[i].total[1] : 0;
	}
	if (f)
		fclose(f);
	f = fopen("/proc/schedstat", "re");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long v[9];
		unsigned int cpu;
		int i;

		if (sscanf(line, "cpu%u %llu %llu %llu %llu %llu %llu %llu %llu %llu", &cpu,
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8]) != 10)
			continue;
		i = xs_topology_cpu_index(d->topo, cpu);
		if (i < 0)
			continue;
		raw[i].switches = v[2];
		raw[i].rq_lat_ns = v[7];   /* time spent waiting on the run queue */
		raw[i].rq_lat_count = v[8]; /* timeslices run */
	}
	if (f)
		fclose(f);
	for (uint32_t i = 0; i < n; i++)
		xsd_sample_fold(d, i, &raw[i]);
	free(raw);
}

void xsd_sample_tick(struct xsd *d, uint64_t now_ns)
{
	if (d->mode == XS_ABI_MODE_BPF)
		xsd_sample_bpf(d, now_ns);
	else
		xsd_sample_proc(d, now_ns);
	d->last_tick_ns = now_ns;
}
