// SPDX-License-Identifier: MIT
/*
 * allocator.c - OpenMP memory allocators (omp_init_allocator, omp_alloc
 * and friends, GOMP_alloc for the allocate clause and directive).
 *
 * Every memory space is the host's memory. A block is malloc'ed with room
 * for a header in front of the pointer returned (the raw pointer, the
 * bytes charged, the allocator) and for the alignment asked; an
 * allocator's pool_size trait bounds the bytes charged to it (header and
 * slack included, as libgomp counts them), and when a request does not
 * fit, its fallback trait decides: the default allocator, NULL, abort or
 * the fb_data allocator. The partition trait asks for NUMA placement:
 * nearest binds the block's pages to the node of the allocating thread's
 * CPU, interleaved spreads them over every node (libnuma; pages the block
 * shares with others move too, a hint as the standard allows). pinned
 * memory and the high-bandwidth space are not offered: omp_init_allocator
 * returns omp_null_allocator for them, as libgomp does.
 *
 * The default allocator (def-allocator-var) starts as OMP_ALLOCATOR's
 * predefined allocator and is per thread, as in libgomp.
 */
#include <numa.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gomp.h"

/* omp.h's values */
enum {
	XG_NULL_ALLOC = 0, XG_DEFAULT_MEM_ALLOC = 1, XG_MAX_PREDEFINED = 8,
	XG_MEMSPACE_LOW_LAT = 4, XG_MEMSPACE_HIGH_BW = 3,
};
enum {
	XG_ATK_SYNC_HINT = 1, XG_ATK_ALIGNMENT, XG_ATK_ACCESS, XG_ATK_POOL_SIZE,
	XG_ATK_FALLBACK, XG_ATK_FB_DATA, XG_ATK_PINNED, XG_ATK_PARTITION,
};
#define XG_ATV_DEFAULT ((uintptr_t)-1)
enum {
	XG_ATV_FALSE = 0, XG_ATV_TRUE = 1, XG_ATV_CONTENDED = 3, XG_ATV_UNCONTENDED,
	XG_ATV_SERIALIZED, XG_ATV_PRIVATE, XG_ATV_ALL, XG_ATV_THREAD, XG_ATV_PTEAM,
	XG_ATV_CGROUP, XG_ATV_DEFAULT_MEM_FB, XG_ATV_NULL_FB, XG_ATV_ABORT_FB,
	XG_ATV_ALLOCATOR_FB, XG_ATV_ENVIRONMENT, XG_ATV_NEAREST, XG_ATV_BLOCKED,
	XG_ATV_INTERLEAVED,
};

struct xg_alloctrait {
	int key;
	uintptr_t value;
};

struct xg_allocator {
	uintptr_t memspace;
	uintptr_t alignment;
	uintptr_t pool_size;        /* UINTPTR_MAX: unbounded */
	_Atomic uintptr_t used;     /* bytes charged to the pool */
	uintptr_t fb_data;
	int fallback;
	int partition;
};

/* In front of every block returned. */
struct xg_mem_header {
	void *raw;
	size_t size;                /* bytes charged: all of the malloc'ed block */
	uintptr_t allocator;
	void *pad;
};

static uintptr_t xg_env_alloc = XG_DEFAULT_MEM_ALLOC;

static const char *const xg_alloc_names[] = {
	"omp_default_mem_alloc", "omp_large_cap_mem_alloc", "omp_const_mem_alloc",
	"omp_high_bw_mem_alloc", "omp_low_lat_mem_alloc", "omp_cgroup_mem_alloc",
	"omp_pteam_mem_alloc", "omp_thread_mem_alloc",
};

const char *xg_allocator_name(uintptr_t a)
{
	return a >= 1 && a <= XG_MAX_PREDEFINED ? xg_alloc_names[a - 1] : "user allocator";
}

uintptr_t xg_allocator_default(void)
{
	return xg_env_alloc;
}

/* OMP_ALLOCATOR: the name of a predefined allocator. */
__attribute__((constructor)) static void xg_allocator_env(void)
{
	const char *v = getenv("OMP_ALLOCATOR");
	size_t n;

	if (!v || !*v)
		return;
	while (*v == ' ' || *v == '\t')
		v++;
	n = strcspn(v, " \t");
	for (uintptr_t i = 0; i < XG_MAX_PREDEFINED; i++)
		if (strlen(xg_alloc_names[i]) == n && !strncasecmp(v, xg_alloc_names[i], n)) {
			xg_env_alloc = i + 1;
			return;
		}
	xg_warn("OMP_ALLOCATOR='%s': expected a predefined allocator "
		"(omp_default_mem_alloc, ..., omp_thread_mem_alloc); using omp_default_mem_alloc",
		v);
}

XG_EXPORT uintptr_t omp_init_allocator(uintptr_t memspace, int ntraits,
				       const struct xg_alloctrait traits[])
{
	struct xg_allocator a = {
		.memspace = memspace, .alignment = 1, .pool_size = UINTPTR_MAX,
		.fallback = XG_ATV_DEFAULT_MEM_FB, .partition = XG_ATV_ENVIRONMENT,
	};
	struct xg_allocator *ret;
	bool pinned = false;

	if (memspace > XG_MEMSPACE_LOW_LAT)
		return XG_NULL_ALLOC;
	for (int i = 0; i < ntraits; i++) {
		uintptr_t v = traits[i].value;
		bool def = v == XG_ATV_DEFAULT;

		switch (traits[i].key) {
		case XG_ATK_SYNC_HINT:
			if (!def && (v < XG_ATV_CONTENDED || v > XG_ATV_PRIVATE))
				return XG_NULL_ALLOC;
			break;
		case XG_ATK_ALIGNMENT:
			if (def)
				v = 1;
			if (!v || (v & (v - 1)))
				return XG_NULL_ALLOC;
			a.alignment = v;
			break;
		case XG_ATK_ACCESS:
			if (!def && v != XG_ATV_ALL && v != XG_ATV_CGROUP && v != XG_ATV_PTEAM &&
			    v != XG_ATV_THREAD)
				return XG_NULL_ALLOC;
			break;
		case XG_ATK_POOL_SIZE:
			a.pool_size = def ? UINTPTR_MAX : v;
			break;
		case XG_ATK_FALLBACK:
			if (def)
				v = XG_ATV_DEFAULT_MEM_FB;
			if (v < XG_ATV_DEFAULT_MEM_FB || v > XG_ATV_ALLOCATOR_FB)
				return XG_NULL_ALLOC;
			a.fallback = (int)v;
			break;
		case XG_ATK_FB_DATA:
			a.fb_data = v;
			break;
		case XG_ATK_PINNED:
			if (!def && v != XG_ATV_FALSE && v != XG_ATV_TRUE)
				return XG_NULL_ALLOC;
			pinned = v == XG_ATV_TRUE;
			break;
		case XG_ATK_PARTITION:
			if (def)
				v = XG_ATV_ENVIRONMENT;
			if (v < XG_ATV_ENVIRONMENT || v > XG_ATV_INTERLEAVED)
				return XG_NULL_ALLOC;
			a.partition = (int)v;
			break;
		default:
			return XG_NULL_ALLOC;
		}
	}
	if (a.alignment < sizeof(void *))
		a.alignment = sizeof(void *);
	if (pinned || memspace == XG_MEMSPACE_HIGH_BW)
		return XG_NULL_ALLOC;
	ret = malloc(sizeof(*ret));
	if (!ret)
		return XG_NULL_ALLOC;
	*ret = a;
	return (uintptr_t)ret;
}

XG_EXPORT void omp_destroy_allocator(uintptr_t allocator)
{
	if (allocator > XG_MAX_PREDEFINED)
		free((void *)allocator);
}

/* def-allocator-var is a data-environment ICV: the implicit tasks of a
 * region and explicit tasks inherit it from the encountering task. */
XG_EXPORT void omp_set_default_allocator(uintptr_t allocator)
{
	xg_icv_writable()->def_alloc = allocator;
}

XG_EXPORT uintptr_t omp_get_default_allocator(void)
{
	uintptr_t a = xg_task_self()->icv->def_alloc;

	return a ? a : xg_env_alloc;
}

/* Charge @size bytes to @a's pool; false if they do not fit. */
static bool xg_pool_charge(struct xg_allocator *a, size_t size)
{
	/* Relaxed: a counter; the blocks themselves come from malloc. */
	uintptr_t used = xs_load_relaxed(&a->used), next;

	do {
		if (__builtin_add_overflow(used, size, &next) || next > a->pool_size)
			return false;
		/* Relaxed, as the load: a failed CAS reloads used. */
	} while (!xs_cas_weak_relaxed(&a->used, &used, next));
	return true;
}

static void xg_pool_uncharge(uintptr_t allocator, size_t size)
{
	struct xg_allocator *a = (struct xg_allocator *)allocator;

	/* Relaxed: as in xg_pool_charge(). */
	if (allocator > XG_MAX_PREDEFINED && a->pool_size != UINTPTR_MAX)
		xs_fetch_sub_relaxed(&a->used, size);
}

static void xg_numa_place(const struct xg_allocator *a, void *p, size_t size)
{
	if (!a || a->partition == XG_ATV_ENVIRONMENT || a->partition == XG_ATV_BLOCKED ||
	    numa_available() < 0)
		return;
	if (a->partition == XG_ATV_INTERLEAVED) {
		numa_interleave_memory(p, size, numa_all_nodes_ptr);
	} else {
		int cpu = sched_getcpu();
		int node = cpu >= 0 ? numa_node_of_cpu(cpu) : -1;

		if (node >= 0)
			numa_tonode_memory(p, size, node);
	}
}

/* What a failed request of @allocator falls back to: an allocator to
 * retry with, or XG_NULL_ALLOC for NULL. */
static uintptr_t xg_fallback(uintptr_t allocator, size_t size, bool could_retry_default)
{
	struct xg_allocator *a = (struct xg_allocator *)allocator;

	if (allocator <= XG_MAX_PREDEFINED)
		return XG_NULL_ALLOC;
	switch (a->fallback) {
	case XG_ATV_DEFAULT_MEM_FB:
		return could_retry_default ? XG_DEFAULT_MEM_ALLOC : XG_NULL_ALLOC;
	case XG_ATV_NULL_FB:
		return XG_NULL_ALLOC;
	case XG_ATV_ALLOCATOR_FB:
		return a->fb_data;
	default:
		xg_warn("out of memory allocating %zu bytes (allocator with abort_fb)", size);
		abort();
	}
}

static void *xg_alloc(size_t alignment, size_t size, uintptr_t allocator, bool zero)
{
	for (;;) {
		struct xg_allocator *a = NULL;
		size_t align = alignment, total = sizeof(struct xg_mem_header);
		bool pooled;
		char *raw, *ret;

		if (allocator == XG_NULL_ALLOC)
			allocator = omp_get_default_allocator();
		if (allocator > XG_MAX_PREDEFINED) {
			a = (struct xg_allocator *)allocator;
			if (align < a->alignment)
				align = a->alignment;
		} else if (align < sizeof(void *)) {
			align = sizeof(void *);
		}
		if (align > sizeof(void *))
			total += align - sizeof(void *);
		pooled = a && a->pool_size != UINTPTR_MAX;
		raw = NULL;
		if (!__builtin_add_overflow(size, total, &total) &&
		    (!pooled || xg_pool_charge(a, total))) {
			raw = zero ? calloc(1, total) : malloc(total);
			if (!raw && pooled)
				xg_pool_uncharge(allocator, total);
		}
		if (raw) {
			ret = (char *)(((uintptr_t)raw + sizeof(struct xg_mem_header) + align -
					sizeof(void *)) & ~(uintptr_t)(align - 1));
			if (align <= sizeof(void *))
				ret = raw + sizeof(struct xg_mem_header);
			((struct xg_mem_header *)ret)[-1] =
				(struct xg_mem_header){ raw, total, allocator, NULL };
			xg_numa_place(a, ret, size);
			return ret;
		}
		allocator = xg_fallback(allocator, size,
					(align > sizeof(void *) && align > alignment) || pooled);
		if (allocator == XG_NULL_ALLOC)
			return NULL;
	}
}

XG_EXPORT void *omp_aligned_alloc(size_t alignment, size_t size, uintptr_t allocator)
{
	return size ? xg_alloc(alignment, size, allocator, false) : NULL;
}

XG_EXPORT void *omp_alloc(size_t size, uintptr_t allocator)
{
	return omp_aligned_alloc(1, size, allocator);
}

XG_EXPORT void *omp_aligned_calloc(size_t alignment, size_t nmemb, size_t size,
				   uintptr_t allocator)
{
	size_t bytes;

	if (!nmemb || !size)
		return NULL;
	if (__builtin_mul_overflow(nmemb, size, &bytes))
		return xg_alloc(alignment, SIZE_MAX, allocator, true);
	return xg_alloc(alignment, bytes, allocator, true);
}

XG_EXPORT void *omp_calloc(size_t nmemb, size_t size, uintptr_t allocator)
{
	return omp_aligned_calloc(1, nmemb, size, allocator);
}

XG_EXPORT void omp_free(void *ptr, uintptr_t allocator)
{
	struct xg_mem_header *h;

	(void)allocator; /* the block knows its own */
	if (!ptr)
		return;
	h = (struct xg_mem_header *)ptr - 1;
	xg_pool_uncharge(h->allocator, h->size);
	free(h->raw);
}

XG_EXPORT void *omp_realloc(void *ptr, size_t size, uintptr_t allocator, uintptr_t free_allocator)
{
	struct xg_mem_header *h;
	size_t old;
	void *ret;

	if (!ptr)
		return omp_alloc(size, allocator);
	if (!size) {
		omp_free(ptr, free_allocator);
		return NULL;
	}
	h = (struct xg_mem_header *)ptr - 1;
	if (allocator == XG_NULL_ALLOC)
		allocator = h->allocator;
	old = h->size - (size_t)((char *)ptr - (char *)h->raw);
	/* Free the old block's charge first when it is the same pool, so a
	 * block that shrinks or grows within the pool fits. */
	if (allocator == h->allocator && allocator > XG_MAX_PREDEFINED) {
		size_t charged = h->size;

		xg_pool_uncharge(allocator, charged);
		ret = omp_alloc(size, allocator);
		if (!ret) {
			struct xg_allocator *a = (struct xg_allocator *)allocator;

			/* Relaxed: as in xg_pool_charge(). */
			if (a->pool_size != UINTPTR_MAX)
				xs_fetch_add_relaxed(&a->used, charged);
			return NULL;
		}
		memcpy(ret, ptr, old < size ? old : size);
		free(h->raw);
		return ret;
	}
	ret = omp_alloc(size, allocator);
	if (!ret)
		return NULL;
	memcpy(ret, ptr, old < size ? old : size);
	omp_free(ptr, free_allocator);
	return ret;
}

/* The allocate clause and directive: out of memory is fatal. */
XG_EXPORT void *GOMP_alloc(size_t alignment, size_t size, uintptr_t allocator)
{
	void *ret = omp_aligned_alloc(alignment, size, allocator);

	if (!ret && size) {
		xg_warn("out of memory allocating %zu bytes", size);
		abort();
	}
	return ret;
}

XG_EXPORT void GOMP_free(void *ptr, uintptr_t allocator)
{
	omp_free(ptr, allocator);
}
