// SPDX-License-Identifier: MIT
/*
 * env.c - the OMP_* environment: initial ICVs and runtime settings.
 *
 * Read once, when the library is loaded. A value the drop-in cannot parse
 * or honour gets one line on stderr naming the variable, and the default
 * is used. Settings that belong to xsched's runtime (stack size, spinning,
 * placement) are handed to it as the matching XSCHED_* variable, unless
 * that variable is set, which then wins.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gomp.h"
#include "ompt.h"
#include "ext.h"

/* gcc's libgomp supports this many active levels; so do we. */
#define XG_SUPPORTED_LEVELS 255u

struct xg_global xg_env;

/* OMP_NUM_THREADS's list, one count per nesting level. */
#define XG_NTHREADS_LEVELS 16
static uint32_t xg_nthreads_list[XG_NTHREADS_LEVELS];
static uint32_t xg_nthreads_levels;

/* OMP_PROC_BIND's list, one policy per nesting level. */
static uint32_t xg_bind_list[XG_NTHREADS_LEVELS];
static uint32_t xg_bind_levels;

void xg_env_nthreads_level(struct xg_icv *icv)
{
	/* Past its last element a list leaves the value inherited. */
	if (icv->bind_at >= 0 && (uint32_t)icv->bind_at + 1 < xg_bind_levels) {
		icv->bind_at++;
		icv->bind = xg_bind_list[icv->bind_at];
	}
	if (icv->nthreads_at < 0 || (uint32_t)icv->nthreads_at + 1 >= xg_nthreads_levels)
		return; /* the last element applies to every deeper level */
	icv->nthreads_at++;
	icv->nthreads = xg_nthreads_list[icv->nthreads_at];
}

uint32_t xg_env_bind_list(const uint32_t **list)
{
	*list = xg_bind_list;
	return xg_bind_levels;
}

uint32_t xg_env_nthreads_list(const uint32_t **list)
{
	*list = xg_nthreads_list;
	return xg_nthreads_levels;
}

static const char *xg_getenv(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

static void xg_bad(const char *name, const char *value, const char *what)
{
	xg_warn("%s='%s': %s", name, value, what);
}

/* A decimal integer in [lo, hi] with surrounding blanks; *end after it. */
static bool xg_parse_uint(const char *s, const char **end, unsigned long lo, unsigned long hi,
			  unsigned long *out)
{
	char *e;
	unsigned long v;

	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoul(s, &e, 10);
	if (errno || v < lo || v > hi)
		return false;
	while (isspace((unsigned char)*e))
		e++;
	*end = e;
	*out = v;
	return true;
}

static const char *xg_skip_blanks(const char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	return p;
}

static bool xg_parse_bool(const char *name, bool *out)
{
	const char *v = xg_getenv(name);
	char word[16];

	if (!v)
		return false;
	if (sscanf(v, " %15s", word) == 1 && !strcasecmp(word, "true"))
		*out = true;
	else if (sscanf(v, " %15s", word) == 1 && !strcasecmp(word, "false"))
		*out = false;
	else {
		xg_bad(name, v, "expected true or false; using the default");
		return false;
	}
	return true;
}

static bool xg_parse_single_uint(const char *name, unsigned long lo, unsigned long hi,
				 unsigned long *out)
{
	const char *v = xg_getenv(name), *end;

	if (!v)
		return false;
	if (!xg_parse_uint(v, &end, lo, hi, out) || *end) {
		char why[96];

		snprintf(why, sizeof(why), "expected an integer in %lu..%lu; using the default", lo, hi);
		xg_bad(name, v, why);
		return false;
	}
	return true;
}

/* OMP_NUM_THREADS=n[,n...]: the first level's count, and how many levels
 * were given (libgomp then allows that many active levels). */
static uint32_t xg_env_num_threads(void)
{
	const char *v = xg_getenv("OMP_NUM_THREADS"), *p;
	uint32_t levels = 0;
	unsigned long n;

	if (!v)
		return 0;
	for (p = v;;) {
		if (!xg_parse_uint(p, &p, 1, XS_MAX_CPUS * 64ul, &n)) {
			xg_bad("OMP_NUM_THREADS", v,
			       "expected a list of thread counts >= 1; using the default");
			return 0;
		}
		if (levels < XG_NTHREADS_LEVELS)
			xg_nthreads_list[levels] = (uint32_t)n;
		if (!levels++)
			xg_env.icv.nthreads = (uint32_t)n;
		if (!*p)
			break;
		if (*p++ != ',') {
			xg_bad("OMP_NUM_THREADS", v, "expected a comma between counts; using the default");
			return 0;
		}
	}
	return levels;
}

/* "[monotonic:|nonmonotonic:]kind[,chunk]", as OMP_SCHEDULE. */
static int xg_parse_schedule(const char *v, uint32_t *sched, int32_t *chunk)
{
	static const char *const kinds[] = { "static", "dynamic", "guided", "auto" };
	const char *p = v, *colon = strchr(v, ':');
	uint32_t mono = 0;
	unsigned long c = 0;
	size_t len;

	while (isspace((unsigned char)*p))
		p++;
	if (colon) {
		len = (size_t)(colon - p);
		if (len == 9 && !strncasecmp(p, "monotonic", 9))
			mono = XG_SCHED_MONOTONIC;
		else if (!(len == 12 && !strncasecmp(p, "nonmonotonic", 12)))
			return -EINVAL;
		p = colon + 1;
	}
	for (uint32_t k = 0; k < 4; k++) {
		len = strlen(kinds[k]);
		if (strncasecmp(p, kinds[k], len))
			continue;
		p += len;
		while (isspace((unsigned char)*p))
			p++;
		if (*p == ',') {
			if (k == 3 || !xg_parse_uint(p + 1, &p, 1, INT32_MAX, &c) || *p)
				return -EINVAL;
		} else if (*p) {
			return -EINVAL;
		}
		*sched = (k + 1) | mono;
		*chunk = (int32_t)c;
		return 0;
	}
	return -EINVAL;
}

/* OMP_STACKSIZE=size[B|K|M|G] (K when no unit) -> XSCHED_STACK_KIB. */
static void xg_env_stacksize(void)
{
	const char *v = xg_getenv("OMP_STACKSIZE"), *end;
	unsigned long n, shift = 10;
	char buf[32];

	if (!v)
		return;
	if (!xg_parse_uint(v, &end, 0, 1ul << 40, &n))
		goto bad;
	switch (toupper((unsigned char)*end)) {
	case 0: break;
	case 'B': shift = 0; end++; break;
	case 'K': shift = 10; end++; break;
	case 'M': shift = 20; end++; break;
	case 'G': shift = 30; end++; break;
	default: goto bad;
	}
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		goto bad;
	/* 2^40 G does not fit in 64 bits: it must not wrap into the range */
	if (n > (~0ul >> shift))
		n = ~0ul;
	else
		n = ((n << shift) + 1023) >> 10; /* KiB, rounded up */
	if (n < 64 || n > 4194304) {
		xg_bad("OMP_STACKSIZE", v, "xsched stacks are 64 KiB..4 GiB; using the default");
		return;
	}
	snprintf(buf, sizeof(buf), "%lu", n);
	setenv("XSCHED_STACK_KIB", buf, 0);
	return;
bad:
	xg_bad("OMP_STACKSIZE", v, "expected a size such as 512K, 8M or 1G; using the default");
}

static void xg_env_wait_policy(void)
{
	const char *v = xg_getenv("OMP_WAIT_POLICY");

	if (!v)
		return;
	if (!strcasecmp(v, "passive")) {
		xg_env.wait_passive = true;
		setenv("XSCHED_SPIN_US", "0", 0);
	} else if (!strcasecmp(v, "active")) {
		xg_env.wait_active = true;
		/* Spin up to a second before parking (xsched's maximum). */
		setenv("XSCHED_SPIN_US", "1000000", 0);
	} else {
		xg_bad("OMP_WAIT_POLICY", v, "expected active or passive; using the default");
	}
}

/*
 * OMP_PROC_BIND: bind-var, or a list of policies, one per nesting level
 * (spread,close), as libgomp reads it: true and false only alone. Returns
 * whether the variable set it.
 */
static bool xg_env_proc_bind(void)
{
	static const struct { const char *name; uint32_t bind; } words[] = {
		{ "false", XG_BIND_FALSE }, { "true", XG_BIND_TRUE },
		{ "primary", XG_BIND_PRIMARY }, { "master", XG_BIND_PRIMARY },
		{ "close", XG_BIND_CLOSE }, { "spread", XG_BIND_SPREAD },
	};
	const char *v = xg_getenv("OMP_PROC_BIND"), *p;
	uint32_t n = 0;

	xg_bind_levels = 0;
	if (!v)
		return false;
	for (p = v;;) {
		size_t i, len = 0;

		p = xg_skip_blanks(p);
		for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
			len = strlen(words[i].name);
			if (!strncasecmp(p, words[i].name, len))
				break;
		}
		/* true and false cannot be part of a list */
		if (i == sizeof(words) / sizeof(words[0]) || (n && i < 2))
			break;
		if (n < XG_NTHREADS_LEVELS)
			xg_bind_list[n] = words[i].bind;
		n++;
		p = xg_skip_blanks(p + len);
		if (!*p) {
			if (n > 1 && xg_bind_list[0] <= XG_BIND_TRUE)
				break;
			xg_env.icv.bind = xg_bind_list[0];
			if (n > 1) {
				xg_bind_levels = n < XG_NTHREADS_LEVELS ? n : XG_NTHREADS_LEVELS;
				xg_env.icv.bind_at = 0;
			}
			return true;
		}
		if (*p++ != ',')
			break;
	}
	xg_bad("OMP_PROC_BIND", v,
	       "expected true, false, or a list of primary, master, close and spread; "
	       "threads are not bound");
	return false;
}

/* OMP_PLACES (places.c): the places and their kind, when bind-var is not
 * false; libgomp's default, threads, when OMP_PROC_BIND alone is set. */
static bool xg_env_places(bool bound)
{
	const char *v = xg_getenv("OMP_PLACES");
	char why[160];
	int n = -1;

	xg_env.num_places = 0;
	xg_places_clear();
	if (v) {
		n = xg_places_init(v, &xg_env.place_kind, why, sizeof(why));
		if (n < 0)
			xg_warn("OMP_PLACES='%s': %s; expected threads, cores, sockets, ll_caches or "
				"numa_domains with an optional (count), or a list of places such "
				"as {0,1},{2:2},!{1}; %s", v, why,
				xg_env.icv.bind != XG_BIND_FALSE ? "binding to threads" : "no places");
	}
	if (!bound && n >= 0)
		xg_env.icv.bind = XG_BIND_TRUE; /* a valid OMP_PLACES alone binds */
	if (xg_env.icv.bind == XG_BIND_FALSE) {
		xg_places_clear();
		return false;
	}
	if (n < 0)
		n = xg_places_init("threads", &xg_env.place_kind, why, sizeof(why));
	if (n < 0) {
		xg_warn("OMP_PROC_BIND: %s; threads are not bound", why);
		xg_env.icv.bind = XG_BIND_FALSE;
		return false;
	}
	xg_env.num_places = (uint32_t)n;
	return true;
}

/* OMP_TARGET_OFFLOAD=default|mandatory|disabled (target.c enforces
 * mandatory: there is no offload device). */
static void xg_env_target_offload(void)
{
	static const char *const words[] = { "default", "mandatory", "disabled" };
	const char *v = xg_getenv("OMP_TARGET_OFFLOAD"), *p;

	unsigned long n;

	xg_env.target_offload = XG_OFFLOAD_DEFAULT;
	xg_env.icv.default_device = 0;
	if (xg_parse_single_uint("OMP_DEFAULT_DEVICE", 0, INT32_MAX, &n))
		xg_env.icv.default_device = (int32_t)n;
	if (!v)
		return;
	p = xg_skip_blanks(v);
	for (uint32_t i = 0; i < 3; i++) {
		size_t len = strlen(words[i]);

		if (!strncasecmp(p, words[i], len) && !*xg_skip_blanks(p + len)) {
			xg_env.target_offload = i;
			/* No device to offload to: the default device is none
			 * (as in gcc 13's libgomp) unless one was named. */
			if (i == XG_OFFLOAD_MANDATORY && !xg_getenv("OMP_DEFAULT_DEVICE"))
				xg_env.icv.default_device = XG_DEVICE_INVALID;
			return;
		}
	}
	xg_bad("OMP_TARGET_OFFLOAD", v, "expected default, mandatory or disabled; using default");
}

/*
 * XSCHED_LOOP_*: the hybrid schedule's parameters, and when
 * XSCHED_LOOP_SCHEDULE is not auto, run-sched-var (it wins over
 * OMP_SCHEDULE, as every XSCHED_* variable over its OMP_* one). A bad
 * value was named on stderr by the options table; the runtime that the
 * first parallel region creates refuses it the same way.
 */
static void xg_env_loop(void)
{
	static struct xs_options opt;
	struct xs_loop_sched s;

	if (xs_options_load(&opt) < 0)
		return;
	xs_loop_sched_from_options(&opt, &s);
	xg_env.loop = s;
	if (s.kind == XS_LOOP_DEFAULT)
		return;
	xg_env.icv.run_sched = s.kind == XS_LOOP_HYBRID	    ? XG_SCHED_HYBRID
			       : s.kind == XS_LOOP_AFFINITY ? XG_SCHED_AFFINITY
							    : s.kind;
	xg_env.icv.run_chunk = s.chunk > INT32_MAX ? INT32_MAX : (int32_t)s.chunk;
}

void xg_env_load(void)
{
	unsigned long n;
	uint32_t levels;
	bool nested = false, places, bound, cancel = false;
	const char *v;

	xs_thread_name_prefix_set(XS_THREAD_NAME_OMP);
	xg_env.nprocs = xs_affinity_cpus();
	xg_env.icv.nthreads = xg_env.nprocs;
	xg_env.icv.run_sched = XG_SCHED_DYNAMIC; /* libgomp's default: dynamic,1 */
	xg_env.icv.run_chunk = 1;
	xg_env.icv.max_active_levels = 1;
	xg_env.icv.thread_limit = UINT32_MAX;
	xg_env.icv.bind = XG_BIND_FALSE;
	xg_env.loop = (struct xs_loop_sched){ .ns = 2, .nd = 4, .grain = 50 };

	xg_env.icv.nthreads_at = -1;
	xg_env.icv.bind_at = -1;
	levels = xg_env_num_threads();
	if (levels) {
		xg_nthreads_levels = levels < XG_NTHREADS_LEVELS ? levels : XG_NTHREADS_LEVELS;
		xg_env.icv.nthreads_at = 0;
	}
	if ((v = xg_getenv("OMP_SCHEDULE")) &&
	    xg_parse_schedule(v, &xg_env.icv.run_sched, &xg_env.icv.run_chunk))
		xg_bad("OMP_SCHEDULE", v,
		       "expected [monotonic:|nonmonotonic:]static|dynamic|guided|auto[,chunk]; "
		       "using dynamic,1");
	xg_env_loop();
	xg_parse_bool("OMP_DYNAMIC", &xg_env.icv.dynamic);
	bound = xg_env_proc_bind();
	/* libgomp: a list of thread counts or of policies allows every
	 * level (unless OMP_NESTED or OMP_MAX_ACTIVE_LEVELS says otherwise,
	 * below) */
	if (levels > 1 || xg_bind_levels > 1)
		xg_env.icv.max_active_levels = XG_SUPPORTED_LEVELS;
	if (xg_parse_bool("OMP_NESTED", &nested))
		xg_env.icv.max_active_levels = nested ? XG_SUPPORTED_LEVELS : 1;
	if (xg_parse_single_uint("OMP_MAX_ACTIVE_LEVELS", 0, UINT32_MAX, &n))
		xg_env.icv.max_active_levels = n > XG_SUPPORTED_LEVELS ? XG_SUPPORTED_LEVELS
									: (uint32_t)n;
	if (xg_parse_single_uint("OMP_THREAD_LIMIT", 1, UINT32_MAX, &n))
		xg_env.icv.thread_limit = (uint32_t)n;
	if (xg_parse_single_uint("OMP_NUM_TEAMS", 1, INT32_MAX, &n))
		xg_env.num_teams = (uint32_t)n;
	if (xg_parse_single_uint("OMP_TEAMS_THREAD_LIMIT", 1, INT32_MAX, &n))
		xg_env.teams_thread_limit = (uint32_t)n;
	if (xg_parse_single_uint("OMP_MAX_TASK_PRIORITY", 0, INT32_MAX, &n))
		xg_env.max_task_priority = (int32_t)n;
	xg_env_stacksize();
	xg_env_wait_policy();
	xg_env_target_offload();
	places = xg_env_places(bound);
	/*
	 * The places bind the threads whatever XSCHED_BIND says (the one
	 * exception to XSCHED_* winning): the drop-in hands its settings to
	 * the runtime through the environment, which child processes
	 * inherit, so an XSCHED_BIND set by a parent's drop-in (a shell run
	 * with LD_PRELOAD) cannot be told from one the user set.
	 */
	xg_env.bind_threads = places;
	if (!places)
		xg_env.icv.bind = XG_BIND_FALSE;
	else
		xg_places_bind_initial();
	/* OpenMP leaves threads unbound unless asked; xsched's placement
	 * policies are compact (close) and scatter (spread): under the
	 * places they pin the workers when the runtime starts, and each
	 * thread then binds itself to its place. */
	setenv("XSCHED_BIND",
	       xg_env.icv.bind == XG_BIND_FALSE    ? "none"
	       : xg_env.icv.bind == XG_BIND_SPREAD ? "scatter"
						   : "compact",
	       0);
	if (xg_parse_bool("OMP_CANCELLATION", &cancel) && cancel)
		xg_bad("OMP_CANCELLATION", "true",
		       "cancellation is not supported by xsched; cancel constructs do nothing");
	xg_parse_bool("OMP_DISPLAY_AFFINITY", &xg_env.display_affinity);
	if ((v = xg_getenv("OMP_DISPLAY_ENV")) && strcasecmp(v, "false")) {
		bool verbose = !strcasecmp(v, "verbose");

		if (verbose || !strcasecmp(v, "true"))
			xg_display_env(verbose);
		else
			xg_bad("OMP_DISPLAY_ENV", v, "expected true, false or verbose");
	}
}

static pthread_once_t xg_env_once = PTHREAD_ONCE_INIT;

void xg_env_init(void)
{
	pthread_once(&xg_env_once, xg_env_load);
}

/*
 * A bad XSCHED_* value (or an XSCHED_PROFILE that cannot be written) fails
 * the program before it starts, as it makes xs_runtime_create() fail a
 * native one: options.c has named the variable and the accepted values.
 * Running every region on one thread instead would hide the mistake.
 */
static void xg_env_check_xsched(void)
{
	struct xs_options opt;

	if (xs_options_load(&opt) < 0) {
		xg_warn("invalid XSCHED_* setting (above); exiting");
		exit(EXIT_FAILURE);
	}
}

/* At load time, while the process is single-threaded (setenv). */
__attribute__((constructor)) static void xg_env_ctor(void)
{
	xg_env_check_xsched();
	xg_env_init();
	xg_ompt_init();
}
