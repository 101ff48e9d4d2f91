// SPDX-License-Identifier: MIT
/*
 * places.c - OMP_PLACES, thread binding, and the places API
 * (omp_get_num_places and friends).
 *
 * OMP_PLACES is an abstract name (threads, cores, ll_caches, sockets,
 * numa_domains, each with an optional count: cores(4)) whose places come
 * from xsched's topology, or a list of places (OpenMP 5.2, 21.1.6):
 *   {0,1},{5}       two places          0,1     two places {0},{1}
 *   {0:4}           CPUs 0..3 (first:length[:stride])
 *   {0:4,!2}        CPUs 0, 1, 3 (! takes a CPU out of the place)
 *   {0,1}:4:2       that place and 3 more, each shifted by 2
 *   {0},{1},!{0}    ! takes an earlier place out of the list
 * parsed as libgomp parses it: a place keeps its CPUs in ascending order,
 * CPUs this process may not use are left out and so is a place left
 * empty (with a line naming OMP_PLACES). The CPUs a process may use are
 * its affinity mask, or on a synthetic machine (XSCHED_SYSFS_ROOT) that
 * machine's CPUs. Abstract names order their places as libgomp does: by
 * the lowest CPU of each (threads core by core), NUMA domains by number.
 *
 * Binding (OpenMP 5.2, 10.1.3). The places exist only when bind-var is
 * not false (libgomp ignores OMP_PLACES under OMP_PROC_BIND=false, and
 * takes threads when OMP_PROC_BIND alone is set); then every thread is
 * bound, the primary thread included: the initial thread to place 0 at
 * load, as libgomp does. A region's encountering thread computes the
 * place and place partition of each thread of the new team from its own
 * place, its partition and the team's bind policy (xg_places_team(), the
 * assignment of libgomp's gomp_team_start()); each thread binds itself to
 * its place when the region starts (sched_setaffinity, only when its
 * place changed), whatever XSCHED_BIND says (env.c tells why). On a
 * synthetic machine nothing is bound (its CPUs need not exist): the
 * places are assigned and reported all the same, so the assignment can be
 * checked on any box.
 */
#include <ctype.h>
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gomp.h"
#include "ext.h"

#define XG_MAX_PLACES 4096
#define XG_MAX_PLACE_PROCS 32768
/* libgomp's bound on a list's count of places (place:len:stride). */
#define XG_MAX_PLACE_LEN 65536

/* Place p holds procs[start[p] .. start[p + 1]), ascending. Written at
 * load (xg_places_init), read-only afterwards. */
static uint32_t xg_nplaces;
static uint32_t xg_place_start[XG_MAX_PLACES + 1];
static uint16_t xg_place_procs[XG_MAX_PLACE_PROCS];
/* Bind nothing for real: a synthetic machine's places are nominal. */
static bool xg_places_nominal;
/* The initial thread's affinity mask before it was bound (runtimes are
 * created from it, xg_places_widen()). */
static cpu_set_t xg_process_mask;
static bool xg_process_mask_set;

/*
 * The calling thread's binding: the place it is bound to (-1: none yet),
 * and its place-partition-var (libgomp keeps it per thread too, so an
 * explicit task reports the partition of the thread running it);
 * part_len 0 means every place. Thread-local, so unshared.
 */
static __thread int32_t xg_place_self __attribute__((tls_model("initial-exec"))) = -1;
static __thread uint32_t xg_part_off __attribute__((tls_model("initial-exec")));
static __thread uint32_t xg_part_len __attribute__((tls_model("initial-exec")));

/* ------------------------------------------------------------------ */
/* Parsing: places as CPU masks until the list is complete. */

struct xg_parse {
	struct xs_cpumask *places; /* XG_MAX_PLACES of them */
	uint32_t n;
	char *why;                 /* what is wrong, for the caller's message */
	size_t why_len;
};

static bool xg_fail(struct xg_parse *ps, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ps->why, ps->why_len, fmt, ap);
	va_end(ap);
	return false;
}

static void xg_mask_set(struct xs_cpumask *m, uint32_t cpu)
{
	m->bits[cpu / 64] |= 1ull << (cpu % 64);
}

static void xg_mask_clear(struct xs_cpumask *m, uint32_t cpu)
{
	m->bits[cpu / 64] &= ~(1ull << (cpu % 64));
}

static bool xg_mask_empty(const struct xs_cpumask *m)
{
	for (size_t i = 0; i < sizeof(m->bits) / sizeof(m->bits[0]); i++)
		if (m->bits[i])
			return false;
	return true;
}

static const char *xg_skip(const char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	return p;
}

/* A number (a sign only when @is_signed), then blanks. */
static bool xg_num(const char **p, bool is_signed, long *out)
{
	const char *s = xg_skip(*p);
	char *end;

	if (!isdigit((unsigned char)*s) && !(is_signed && (*s == '-' || *s == '+')))
		return false;
	errno = 0;
	*out = strtol(s, &end, 10);
	if (errno || end == s || (is_signed && !isdigit((unsigned char)end[-1])))
		return false;
	*p = xg_skip(end);
	return true;
}

/* CPUs first, first + stride, ... (@len of them) into @m. */
static bool xg_add_cpus(struct xg_parse *ps, struct xs_cpumask *m, long first, long len,
			long stride)
{
	for (long i = 0; i < len; i++) {
		long cpu;

		/* a stride near LONG_MAX must not overflow */
		if (__builtin_mul_overflow(i, stride, &cpu) ||
		    __builtin_add_overflow(cpu, first, &cpu) || cpu < 0 || cpu >= XS_MAX_CPUS)
			return xg_fail(ps, "CPU %ld+%ld*%ld is out of range 0..%d", first, i, stride,
				       XS_MAX_CPUS - 1);
		xg_mask_set(m, (uint32_t)cpu);
	}
	return true;
}

/* ":len[:stride]" after a CPU or a place, if there. */
static bool xg_interval(struct xg_parse *ps, const char **p, long max_len, long *len,
			long *stride)
{
	*len = 1;
	*stride = 1;
	if (**p != ':')
		return true;
	(*p)++;
	if (!xg_num(p, false, len) || *len < 1 || *len > max_len)
		return xg_fail(ps, "expected a length in 1..%ld after ':'", max_len);
	if (**p == ':') {
		(*p)++;
		if (!xg_num(p, true, stride))
			return xg_fail(ps, "expected a stride after ':'");
	}
	return true;
}

/*
 * One place, "{res-list}" or a lone CPU, into @m; *@negate for "!place".
 * In a res-list, CPUs and intervals are added first and "!cpu" removed
 * afterwards, whatever their order, as libgomp does; removing a CPU that
 * is not in the place is an error.
 */
static bool xg_parse_place(struct xg_parse *ps, const char **pp, struct xs_cpumask *m,
			   bool *negate)
{
	const char *p = xg_skip(*pp), *start;
	long first, len, stride;

	memset(m, 0, sizeof(*m));
	*negate = *p == '!';
	if (*negate)
		p = xg_skip(p + 1);
	if (*p != '{') {
		if (!xg_num(&p, false, &first))
			return xg_fail(ps, "expected a place, '{...}' or a CPU number, at '%.16s'", p);
		if (!xg_add_cpus(ps, m, first, 1, 1))
			return false;
		*pp = p;
		return true;
	}
	start = p + 1;
	for (int pass = 0; pass < 2; pass++) {
		p = start;
		for (;;) {
			bool out = false;

			p = xg_skip(p);
			if (*p == '!') {
				out = true;
				p++;
			}
			if (!xg_num(&p, false, &first))
				return xg_fail(ps, "expected a CPU number at '%.16s'", p);
			if (out && *p == ':')
				return xg_fail(ps, "'!%ld' takes one CPU out, not an interval", first);
			if (!xg_interval(ps, &p, XS_MAX_CPUS, &len, &stride))
				return false;
			if (pass == 0 && !out && !xg_add_cpus(ps, m, first, len, stride))
				return false;
			if (pass == 1 && out) {
				if (first >= XS_MAX_CPUS || !xs_cpumask_test(m, (uint32_t)first))
					return xg_fail(ps, "'!%ld' removes a CPU that is not in its place",
						       first);
				xg_mask_clear(m, (uint32_t)first);
			}
			if (*p == '}')
				break;
			if (*p != ',')
				return xg_fail(ps, "expected ',' or '}' at '%.16s'", p);
			p++;
		}
	}
	*pp = xg_skip(p + 1);
	return true;
}

static bool xg_parse_list(struct xg_parse *ps, const char *v)
{
	const char *p = v;

	for (;;) {
		struct xs_cpumask m;
		long len, stride;
		bool negate;

		if (!xg_parse_place(ps, &p, &m, &negate))
			return false;
		if (negate) {
			uint32_t i = 0;

			if (*p == ':')
				return xg_fail(ps, "'!' takes one place out, not an interval");
			while (i < ps->n && memcmp(&ps->places[i], &m, sizeof(m)))
				i++;
			if (i == ps->n)
				return xg_fail(ps, "'!' takes out a place that is not listed before it");
			memmove(&ps->places[i], &ps->places[i + 1],
				(ps->n - i - 1) * sizeof(ps->places[0]));
			ps->n--;
		} else {
			if (!xg_interval(ps, &p, XG_MAX_PLACE_LEN - 1, &len, &stride))
				return false;
			for (long c = 0; c < len; c++) {
				struct xs_cpumask *dst = &ps->places[ps->n];

				if (ps->n >= XG_MAX_PLACES)
					return xg_fail(ps, "more than %d places", XG_MAX_PLACES);
				if (!c) {
					*dst = m;
				} else {
					/* the previous place, each CPU moved by stride */
					memset(dst, 0, sizeof(*dst));
					for (uint32_t cpu = 0; cpu < XS_MAX_CPUS; cpu++) {
						long to;

						if (!xs_cpumask_test(dst - 1, cpu))
							continue;
						if (__builtin_add_overflow((long)cpu, stride, &to) ||
						    to < 0 || to >= XS_MAX_CPUS)
							return xg_fail(ps, "CPU %u%+ld is out of range "
								       "0..%d", cpu, stride,
								       XS_MAX_CPUS - 1);
						xg_mask_set(dst, (uint32_t)to);
					}
				}
				ps->n++;
			}
		}
		p = xg_skip(p);
		if (!*p)
			return true;
		if (*p != ',')
			return xg_fail(ps, "expected ',' between places at '%.16s'", p);
		p++;
	}
}

/*
 * An abstract name: @kind 0 threads .. 4 numa_domains, at most @limit
 * places. Places in libgomp's order: each group (core, socket, LLC) by its
 * lowest CPU, threads core by core, NUMA domains by node number.
 */
static uint32_t xg_group(const struct xs_cpu_info *c, int kind)
{
	return kind <= 1 ? c->core_group : kind == 2 ? c->package : kind == 3 ? c->llc : c->node;
}

static bool xg_parse_abstract(struct xg_parse *ps, const struct xs_topology *topo, int kind,
			      unsigned long limit)
{
	uint32_t ngroups = kind == 4 ? topo->nnodes : 1;

	for (uint32_t g = 0; g < ngroups; g++) {
		for (uint32_t i = 0; i < topo->ncpus && ps->n < limit; i++) {
			uint32_t key = xg_group(&topo->cpus[i], kind);
			bool seen = false;

			/* numa: group g is node index g; else each group at
			 * its lowest CPU (cpus[] is in CPU order) */
			for (uint32_t j = 0; j < i && !seen && kind != 4; j++)
				seen = xg_group(&topo->cpus[j], kind) == key;
			if (kind == 4 ? key != g : seen)
				continue;
			if (kind == 0) {
				for (uint32_t j = i; j < topo->ncpus && ps->n < limit; j++) {
					if (topo->cpus[j].core_group != key)
						continue;
					memset(&ps->places[ps->n], 0, sizeof(ps->places[0]));
					xg_mask_set(&ps->places[ps->n++], topo->cpus[j].cpu);
				}
			} else {
				struct xs_cpumask *m = &ps->places[ps->n++];

				memset(m, 0, sizeof(*m));
				for (uint32_t j = i; j < topo->ncpus; j++)
					if (xg_group(&topo->cpus[j], kind) == key)
						xg_mask_set(m, topo->cpus[j].cpu);
			}
			if (kind == 4)
				break;
		}
	}
	if (!ps->n)
		return xg_fail(ps, "the topology has no such places");
	return true;
}

/* The CPUs this process may use: its affinity mask, or the synthetic
 * machine's CPUs. */
static bool xg_usable(struct xs_cpumask *usable, const struct xs_topology *topo)
{
	cpu_set_t set;

	memset(usable, 0, sizeof(*usable));
	if (topo) {
		for (uint32_t i = 0; i < topo->ncpus; i++)
			xg_mask_set(usable, topo->cpus[i].cpu);
		return true;
	}
	if (sched_getaffinity(0, sizeof(set), &set))
		return false;
	for (uint32_t c = 0; c < XS_MAX_CPUS && c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			xg_mask_set(usable, c);
	return true;
}

/* Keep the usable CPUs of every place and the places left non-empty;
 * flatten them into xg_place_procs. */
static bool xg_places_finish(struct xg_parse *ps, const struct xs_cpumask *usable,
			     const char *v)
{
	uint32_t kept = 0, at = 0;

	for (uint32_t p = 0; p < ps->n; p++) {
		struct xs_cpumask *m = &ps->places[p];

		for (size_t i = 0; i < sizeof(m->bits) / sizeof(m->bits[0]); i++)
			m->bits[i] &= usable->bits[i];
		if (xg_mask_empty(m))
			continue;
		xg_place_start[kept] = at;
		for (uint32_t cpu = 0; cpu < XS_MAX_CPUS; cpu++) {
			if (!xs_cpumask_test(m, cpu))
				continue;
			if (at >= XG_MAX_PLACE_PROCS)
				return xg_fail(ps, "more than %d CPUs in all places", XG_MAX_PLACE_PROCS);
			xg_place_procs[at++] = (uint16_t)cpu;
		}
		kept++;
	}
	xg_place_start[kept] = at;
	if (!kept)
		return xg_fail(ps, "none of its places holds a CPU this process may use");
	if (kept < ps->n)
		xg_warn("OMP_PLACES='%s': %u of its %u places hold no CPU this process may use; "
			"using the other %u", v, ps->n - kept, ps->n, kept);
	xg_nplaces = kept;
	return true;
}

int xg_places_init(const char *v, uint32_t *kind_out, char *why, size_t why_len)
{
	static const char *const names[] = { "threads", "cores", "sockets", "ll_caches",
					     "numa_domains" };
	const char *root = getenv("XSCHED_SYSFS_ROOT");
	struct xg_parse ps = { .why = why, .why_len = why_len };
	struct xs_topology *topo = NULL;
	struct xs_cpumask usable;
	const char *p = xg_skip(v);
	int kind = 5;
	unsigned long limit = XG_MAX_PLACES;
	bool ok = false;

	xg_nplaces = 0;
	why[0] = '\0';
	xg_places_nominal = root && *root;
	for (int k = 0; k < 5; k++) {
		size_t len = strlen(names[k]);

		if (strncasecmp(p, names[k], len))
			continue;
		kind = k;
		p = xg_skip(p + len);
		if (*p == '(') {
			char *end;

			p = xg_skip(p + 1);
			errno = 0;
			limit = isdigit((unsigned char)*p) ? strtoul(p, &end, 10) : 0;
			if (errno || !limit || *(p = xg_skip(end)) != ')')
				return xg_fail(&ps, "expected a count >= 1 in %s(count)", names[k]), -1;
			p = xg_skip(p + 1);
		}
		if (*p)
			return xg_fail(&ps, "unexpected '%.16s' after %s", p, names[k]), -1;
		break;
	}
	ps.places = malloc(XG_MAX_PLACES * sizeof(*ps.places));
	if (!ps.places)
		return xg_fail(&ps, "out of memory"), -1;
	if (kind < 5 || xg_places_nominal) {
		topo = xs_topology_load(xg_places_nominal ? root : NULL);
		if (!topo) {
			xg_fail(&ps, "cannot read the machine's topology (above)");
			goto out;
		}
	}
	if (kind < 5)
		ok = xg_parse_abstract(&ps, topo, kind, limit);
	else
		ok = xg_parse_list(&ps, v);
	if (ok && !xg_usable(&usable, xg_places_nominal ? topo : NULL))
		ok = xg_fail(&ps, "cannot read the affinity mask: %s", strerror(errno));
	if (ok)
		ok = xg_places_finish(&ps, &usable, v);
out:
	xs_topology_free(topo);
	free(ps.places);
	if (!ok) {
		xg_nplaces = 0;
		return -1;
	}
	*kind_out = (uint32_t)kind;
	return (int)xg_nplaces;
}

void xg_places_clear(void)
{
	xg_nplaces = 0;
}

/* The places as libgomp prints them: "{0:4,8},{9}" (first:count runs). */
void xg_places_print(FILE *f)
{
	for (uint32_t p = 0; p < xg_nplaces; p++) {
		fputs(p ? ",{" : "{", f);
		for (uint32_t i = xg_place_start[p]; i < xg_place_start[p + 1];) {
			uint32_t j = i + 1;

			while (j < xg_place_start[p + 1] &&
			       xg_place_procs[j] == xg_place_procs[j - 1] + 1)
				j++;
			fprintf(f, "%s%u", i > xg_place_start[p] ? "," : "", xg_place_procs[i]);
			if (j - i > 1)
				fprintf(f, ":%u", j - i);
			i = j;
		}
		fputs("}", f);
	}
}

/* ------------------------------------------------------------------ */
/* Binding. */

static void xg_place_mask(uint32_t place, cpu_set_t *set)
{
	CPU_ZERO(set);
	for (uint32_t i = xg_place_start[place]; i < xg_place_start[place + 1]; i++)
		CPU_SET(xg_place_procs[i], set);
}

/* Bind the calling thread to @place (when it is not bound there yet). */
static void xg_place_bind(uint32_t place)
{
	static _Atomic bool said;
	cpu_set_t set;

	if (xg_place_self == (int32_t)place)
		return;
	xg_place_self = (int32_t)place;
	if (xg_places_nominal)
		return;
	xg_place_mask(place, &set);
	/* Relaxed: a print-once flag, ordering nothing else. */
	if (sched_setaffinity(0, sizeof(set), &set) && !xs_exchange_relaxed(&said, true))
		xg_warn("OMP_PLACES: cannot bind a thread to place %u: %s", place, strerror(errno));
}

/* A thread met by the places API or a region before it was bound (a
 * thread the program created): place 0, every place its partition. */
static void xg_place_self_init(void)
{
	if (xg_place_self >= 0)
		return;
	xg_part_off = 0;
	xg_part_len = 0;
	xg_place_bind(0);
}

void xg_places_bind_initial(void)
{
	cpu_set_t set;

	if (!xg_nplaces)
		return;
	if (!xg_places_nominal && !sched_getaffinity(0, sizeof(set), &set)) {
		xg_process_mask = set;
		xg_process_mask_set = true;
	}
	xg_place_self = -1;
	xg_place_self_init();
}

bool xg_places_widen(cpu_set_t *saved)
{
	if (!xg_nplaces || xg_places_nominal || !xg_process_mask_set || xg_place_self < 0 ||
	    sched_getaffinity(0, sizeof(*saved), saved))
		return false;
	return !sched_setaffinity(0, sizeof(xg_process_mask), &xg_process_mask);
}

void xg_places_narrow(bool widened, const cpu_set_t *saved)
{
	int err = errno;

	if (widened)
		sched_setaffinity(0, sizeof(*saved), saved);
	errno = err;
}

/*
 * The place and partition of each thread of a team of @n threads with
 * bind policy @bind, started by a thread at place @p0 with partition
 * [@off, @off + @len): OpenMP 5.2, 10.1.3, computed as libgomp's
 * gomp_team_start() computes it (so that threads land where they land
 * there). close (and true): T <= P, consecutive places from the primary
 * thread's; T > P, S = T / P threads per place, then the T % P others
 * one per place from the primary's. primary: every thread at the
 * primary's place. spread: T <= P, the partition cut into T
 * subpartitions of S or S + 1 places (the first P % T of them longer),
 * each thread at the first place of its own, the primary staying at its
 * place in the one that holds it; T > P, one-place subpartitions filled
 * as close does.
 */
static void xg_places_assign(struct xg_place_slot *slot, uint32_t n, uint32_t bind, uint32_t p0,
			     uint32_t off, uint32_t len)
{
	uint32_t end = off + len, p = p0, s = 1, rest = 0, k = 1;

	slot[0] = (struct xg_place_slot){ p0, off, len };
	switch (bind) {
	case XG_BIND_PRIMARY:
		for (uint32_t i = 1; i < n; i++)
			slot[i] = slot[0];
		return;
	case XG_BIND_SPREAD:
		if (n <= len) {
			s = len / n;
			rest = (s + 1) * (len % n) + off;
			if (p < rest) {
				p -= (p - off) % (s + 1);
				slot[0].part_len = s + 1;
			} else {
				p -= (p - rest) % s;
				slot[0].part_len = s;
			}
			slot[0].part_off = p;
			for (uint32_t i = 1; i < n; i++) {
				p += p < rest ? s + 1 : s;
				if (p >= end)
					p = off;
				slot[i] = (struct xg_place_slot){ p, p, p < rest ? s + 1 : s };
			}
			return;
		}
		slot[0].part_off = p0;
		slot[0].part_len = 1;
		/* T > P places threads as close does */
		__attribute__((fallthrough));
	default:
		if (n > len) {
			s = n / len;
			rest = n % len;
		}
		for (uint32_t i = 1; i < n; i++) {
			if (k == s) {
				if (++p >= end)
					p = off;
				k = 1;
				if (i == n - rest)
					s = 1;
			} else {
				k++;
			}
			slot[i] = bind == XG_BIND_SPREAD ? (struct xg_place_slot){ p, p, 1 }
							 : (struct xg_place_slot){ p, off, len };
		}
	}
}

void xg_places_team(struct xg_team *team, uint32_t bind)
{
	uint32_t n = team->nthreads, off, len;

	xg_place_self_init();
	off = xg_part_off;
	len = xg_part_len ? xg_part_len : xg_nplaces;
	if (!team->place_slots || team->place_cap < n) {
		free(team->place_slots);
		team->place_slots = calloc(n, sizeof(*team->place_slots));
		team->place_cap = team->place_slots ? n : 0;
		team->place_key[0] = 0;
		if (!team->place_slots) {
			xg_warn("out of memory for the places of a team");
			abort();
		}
	}
	/* The same team as last time: the same places. */
	if (team->place_key[0] == 1 + bind && team->place_key[1] == (uint32_t)xg_place_self &&
	    team->place_key[2] == off && team->place_key[3] == len && team->place_key[4] == n)
		return;
	xg_places_assign(team->place_slots, n, bind, (uint32_t)xg_place_self, off, len);
	team->place_key[0] = 1 + bind;
	team->place_key[1] = (uint32_t)xg_place_self;
	team->place_key[2] = off;
	team->place_key[3] = len;
	team->place_key[4] = n;
}

void xg_places_enter(const struct xg_team *team, uint32_t tid, struct xg_place_save *save)
{
	const struct xg_place_slot *slot = &team->place_slots[tid];

	save->part_off = xg_part_off;
	save->part_len = xg_part_len;
	xg_part_off = slot->part_off;
	xg_part_len = slot->part_len;
	xg_place_bind(slot->place);
}

void xg_places_leave(const struct xg_place_save *save)
{
	xg_part_off = save->part_off;
	xg_part_len = save->part_len;
}

int32_t xg_places_current(void)
{
	return xg_env.bind_threads ? xg_place_self : -1;
}

/* ------------------------------------------------------------------ */
/* The places API. */

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

/* The place the calling thread is bound to; -1 when threads are not. */
XG_EXPORT int omp_get_place_num(void)
{
	xg_env_init();
	if (!xg_env.bind_threads)
		return -1;
	xg_place_self_init();
	return xg_place_self;
}

XG_EXPORT int omp_get_partition_num_places(void)
{
	xg_env_init();
	if (!xg_nplaces)
		return 0;
	if (xg_env.bind_threads)
		xg_place_self_init();
	return (int)(xg_part_len ? xg_part_len : xg_nplaces);
}

XG_EXPORT void omp_get_partition_place_nums(int *place_nums)
{
	uint32_t n;

	xg_env_init();
	if (!xg_nplaces)
		return;
	if (xg_env.bind_threads)
		xg_place_self_init();
	n = xg_part_len ? xg_part_len : xg_nplaces;
	for (uint32_t p = 0; p < n; p++)
		place_nums[p] = (int)(xg_part_off + p);
}
