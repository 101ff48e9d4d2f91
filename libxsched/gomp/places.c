// SPDX-License-Identifier: MIT
/*
 * places.c - OMP_PLACES and the places API (omp_get_num_places and
 * friends).
 *
 * OMP_PLACES is an abstract name (threads, cores, ll_caches, sockets,
 * numa_domains, each with an optional count: cores(4)) whose places come
 * from xsched's topology, or an explicit list of places:
 *   {0,1},{5}       two places
 *   {0:4}           CPUs 0..3 (first:length[:stride])
 *   {0,1}:4:2       that place and 3 more, each shifted by 2
 * The list is kept here, in the order given; the partition of every task
 * is the whole list (xsched places its workers itself, XSCHED_BIND, so a
 * thread's place is the one holding the CPU it runs on when threads are
 * bound, and -1 otherwise).
 */
#include <ctype.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gomp.h"
#include "ext.h"

#define XG_MAX_PLACES 1024
#define XG_MAX_PLACE_PROCS 8192

/* Place p holds procs[start[p] .. start[p + 1]). Written once at load. */
static uint32_t xg_nplaces;
static uint32_t xg_place_start[XG_MAX_PLACES + 1];
static int xg_place_procs[XG_MAX_PLACE_PROCS];
static char xg_places_text[4096];

static bool xg_place_add(const int *procs, uint32_t n)
{
	uint32_t at = xg_place_start[xg_nplaces];

	if (xg_nplaces >= XG_MAX_PLACES || at + n > XG_MAX_PLACE_PROCS)
		return false;
	memcpy(&xg_place_procs[at], procs, n * sizeof(int));
	xg_place_start[++xg_nplaces] = at + n;
	return true;
}

static bool xg_num(const char **p, long *out)
{
	char *end;

	while (isspace((unsigned char)**p))
		(*p)++;
	if (!isdigit((unsigned char)**p) && **p != '-')
		return false;
	*out = strtol(*p, &end, 10);
	if (end == *p)
		return false;
	*p = end;
	while (isspace((unsigned char)**p))
		(*p)++;
	return true;
}

/* One "{...}" place into @procs; returns its size, or -1. */
static int xg_parse_place(const char **p, int *procs, int max)
{
	int n = 0;

	if (**p != '{')
		return -1;
	(*p)++;
	for (;;) {
		long first, len = 1, stride = 1;

		if (!xg_num(p, &first) || first < 0)
			return -1;
		if (**p == ':') {
			(*p)++;
			if (!xg_num(p, &len) || len < 1)
				return -1;
			if (**p == ':') {
				(*p)++;
				if (!xg_num(p, &stride))
					return -1;
			}
		}
		for (long i = 0; i < len; i++) {
			long cpu;

			/* a stride near LONG_MAX must not overflow */
			if (__builtin_mul_overflow(i, stride, &cpu) ||
			    __builtin_add_overflow(cpu, first, &cpu) ||
			    cpu < 0 || cpu >= XS_MAX_CPUS || n >= max)
				return -1;
			procs[n++] = (int)cpu;
		}
		if (**p == '}') {
			(*p)++;
			return n;
		}
		if (**p != ',')
			return -1;
		(*p)++;
	}
}

static bool xg_parse_list(const char *v)
{
	const char *p = v;
	int procs[XS_MAX_CPUS];

	for (;;) {
		long count = 1, stride = 1;
		int n;

		while (isspace((unsigned char)*p))
			p++;
		n = xg_parse_place(&p, procs, XS_MAX_CPUS);
		if (n <= 0)
			return false;
		if (*p == ':') {
			p++;
			if (!xg_num(&p, &count) || count < 1)
				return false;
			if (*p == ':') {
				p++;
				if (!xg_num(&p, &stride))
					return false;
			}
		}
		for (long c = 0; c < count; c++) {
			int shifted[XS_MAX_CPUS];

			for (int i = 0; i < n; i++) {
				long cpu;

				/* a stride near LONG_MAX must not overflow */
				if (__builtin_mul_overflow(c, stride, &cpu) ||
				    __builtin_add_overflow(cpu, procs[i], &cpu) ||
				    cpu < 0 || cpu >= XS_MAX_CPUS)
					return false;
				shifted[i] = (int)cpu;
			}
			if (!xg_place_add(shifted, (uint32_t)n))
				return false;
		}
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			return true;
		if (*p != ',')
			return false;
		p++;
	}
}

/* An abstract name: group the topology's CPUs by @kind's key. */
static bool xg_parse_abstract(const char *v, int kind, uint32_t limit)
{
	struct xs_topology *topo = xs_topology_load(getenv("XSCHED_SYSFS_ROOT"));
	bool ok = true;

	(void)v;
	if (!topo)
		return false;
	for (uint32_t i = 0; i < topo->ncpus && ok && xg_nplaces < limit; i++) {
		const struct xs_cpu_info *c = &topo->cpus[i];
		uint32_t key = kind == 0 ? i : kind == 1 ? c->core_group : kind == 2 ? c->package
			     : kind == 3 ? c->llc : c->node;
		int procs[XS_MAX_CPUS];
		int n = 0;
		bool seen = false;

		for (uint32_t j = 0; j < i && !seen && kind; j++) {
			const struct xs_cpu_info *d = &topo->cpus[j];
			uint32_t k = kind == 1 ? d->core_group : kind == 2 ? d->package
				   : kind == 3 ? d->llc : d->node;

			seen = k == key;
		}
		if (seen)
			continue;
		for (uint32_t j = i; j < topo->ncpus; j++) {
			const struct xs_cpu_info *d = &topo->cpus[j];
			uint32_t k = kind == 0 ? j : kind == 1 ? d->core_group : kind == 2 ? d->package
				   : kind == 3 ? d->llc : d->node;

			if (k == key)
				procs[n++] = (int)d->cpu;
		}
		ok = xg_place_add(procs, (uint32_t)n);
	}
	xs_topology_free(topo);
	return ok;
}

static void xg_places_format(void)
{
	size_t at = 0;

	xg_places_text[0] = '\0';
	for (uint32_t p = 0; p < xg_nplaces && at + 32 < sizeof(xg_places_text); p++) {
		at += (size_t)snprintf(xg_places_text + at, sizeof(xg_places_text) - at, "%s{",
				       p ? "," : "");
		for (uint32_t i = xg_place_start[p];
		     i < xg_place_start[p + 1] && at + 16 < sizeof(xg_places_text); i++)
			at += (size_t)snprintf(xg_places_text + at, sizeof(xg_places_text) - at,
					       "%s%d", i > xg_place_start[p] ? "," : "",
					       xg_place_procs[i]);
		at += (size_t)snprintf(xg_places_text + at, sizeof(xg_places_text) - at, "}");
	}
}

int xg_places_init(const char *v, uint32_t *kind_out)
{
	static const char *const names[] = { "threads", "cores", "sockets", "ll_caches",
					     "numa_domains" };
	size_t len = strcspn(v, "( \t");
	bool ok = false;

	xg_nplaces = 0;
	if (*v == '{') {
		ok = xg_parse_list(v);
		*kind_out = 5;
	} else {
		for (int k = 0; k < 5; k++) {
			unsigned long limit = XG_MAX_PLACES;
			const char *p = v + len;

			if (strlen(names[k]) != len || strncasecmp(v, names[k], len))
				continue;
			while (isspace((unsigned char)*p))
				p++;
			if (*p == '(') {
				char *end;

				limit = strtoul(p + 1, &end, 10);
				if (end == p + 1 || *end != ')' || !limit)
					break;
				p = end + 1;
			}
			while (isspace((unsigned char)*p))
				p++;
			if (*p)
				break;
			*kind_out = (uint32_t)k;
			ok = xg_parse_abstract(v, k, (uint32_t)limit);
			break;
		}
	}
	if (!ok) {
		xg_nplaces = 0;
		return -1;
	}
	xg_places_format();
	return (int)xg_nplaces;
}

const char *xg_places_string(void)
{
	return xg_places_text;
}

XG_EXPORT int omp_get_num_places(void)
{
	xg_env_init();
	return (int)xg_nplaces;
}

XG_EXPORT int omp_get_place_num_procs(int place)
{
	xg_env_init();
	if (place < 0 || (uint32_t)place >= xg_nplaces)
		return 0;
	return (int)(xg_place_start[place + 1] - xg_place_start[place]);
}

XG_EXPORT void omp_get_place_proc_ids(int place, int *ids)
{
	xg_env_init();
	if (place < 0 || (uint32_t)place >= xg_nplaces)
		return;
	for (uint32_t i = xg_place_start[place]; i < xg_place_start[place + 1]; i++)
		*ids++ = xg_place_procs[i];
}

/* The place of the CPU the thread runs on, when threads are bound. */
XG_EXPORT int omp_get_place_num(void)
{
	int cpu;

	xg_env_init();
	if (!xg_nplaces || xg_task_self()->icv->bind == XG_BIND_FALSE)
		return -1;
	cpu = sched_getcpu();
	for (uint32_t p = 0; p < xg_nplaces; p++)
		for (uint32_t i = xg_place_start[p]; i < xg_place_start[p + 1]; i++)
			if (xg_place_procs[i] == cpu)
				return (int)p;
	return -1;
}

XG_EXPORT int omp_get_partition_num_places(void)
{
	xg_env_init();
	return (int)xg_nplaces;
}

XG_EXPORT void omp_get_partition_place_nums(int *place_nums)
{
	xg_env_init();
	for (uint32_t p = 0; p < xg_nplaces; p++)
		place_nums[p] = (int)p;
}
