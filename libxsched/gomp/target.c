// SPDX-License-Identifier: MIT
/*
 * target.c - target constructs and the device memory routines, on the host.
 *
 * xsched has no offload devices: omp_get_num_devices() is 0 and the host is
 * the initial device (number 0). As libgomp does without devices, a target
 * region runs on the encountering thread as a new initial task (host
 * fallback): level 0, a team of one, its own ICVs from the environment, no
 * teams league around it; the thread steps out of its worker meanwhile, so
 * that a parallel region inside it gets a runtime of its own (team.c), as
 * a nested active region does. Map clauses are no-ops, since the device
 * data environment is the host's, except firstprivate variables, which the
 * region gets private copies of. `target nowait` is a task (task.c) whose
 * block carries the maps; `depend` waits for its predecessors first.
 *
 * Device numbers: 0 (omp_get_initial_device()) and the defaults
 * (GOMP_DEVICE_ICV, GOMP_DEVICE_HOST_FALLBACK) all mean the host, except
 * under OMP_TARGET_OFFLOAD=mandatory (xg_target_device()); the
 * device memory routines accept only the host and return EINVAL or NULL
 * for any other number, as libgomp does for a device it does not have.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "gomp.h"
#include "ext.h"

/* gcc's gomp-constants.h */
#define XG_DEVICE_ICV            -1     /* no device clause: default-device-var */
#define XG_DEVICE_HOST_FALLBACK  -2     /* if(false): the host, as asked */
#define XG_MAP_FIRSTPRIVATE      0x0c   /* GOMP_MAP_FLAG_SPECIAL | 0 */
#define XG_TARGET_NOWAIT         (1u << 0)
#define XG_TARGET_ARG_DEVICE_MASK ((1 << 7) - 1)
#define XG_TARGET_ARG_SUBSEQUENT (1 << 7)
#define XG_TARGET_ARG_ID_MASK    (((1 << 8) - 1) << 8)
#define XG_TARGET_ARG_THREAD_LIMIT (2 << 8)
#define XG_TARGET_ARG_VALUE_SHIFT 16

/* The thread limit a target region's args ask for; 0: none. */
static uint32_t xg_target_thread_limit(void **args)
{
	while (args && *args) {
		intptr_t id = (intptr_t)*args++, val;

		if (id & XG_TARGET_ARG_SUBSEQUENT)
			val = (intptr_t)*args++;
		else
			val = id >> XG_TARGET_ARG_VALUE_SHIFT;
		if ((id & XG_TARGET_ARG_DEVICE_MASK) != 0 ||
		    (id & XG_TARGET_ARG_ID_MASK) != XG_TARGET_ARG_THREAD_LIMIT)
			continue;
		return val <= 0 ? 0 : val > INT_MAX ? (uint32_t)INT_MAX : (uint32_t)val;
	}
	return 0;
}

/*
 * OMP_TARGET_OFFLOAD=mandatory: a device construct runs on the host only
 * where the program asked for the host (if(false), device(0), which is
 * omp_get_initial_device() here, or a default device it set to 0);
 * otherwise it would need an offload device and there is none, which
 * ends the program (OpenMP 5.1, 6.17: execution terminates when the
 * device is not available; 5.2: as if omp_invalid_device were used), with
 * libgomp's exit status (gomp_fatal: 1). Under mandatory the default
 * device starts as omp_invalid_device (env.c), as in gcc 13's libgomp.
 */
static void xg_target_device(int device, const char *construct)
{
	xg_env_init();
	if (xs_likely(xg_env.target_offload != XG_OFFLOAD_MANDATORY))
		return;
	if (device == XG_DEVICE_ICV)
		device = xg_task_self()->icv->default_device;
	if (device == XG_DEVICE_HOST_FALLBACK || device == 0)
		return;
	if (device == XG_DEVICE_INVALID)
		xg_warn("OMP_TARGET_OFFLOAD=mandatory and a %s construct needs an offload "
			"device: there is none (omp_get_num_devices() is 0; the host is the "
			"initial device); exiting", construct);
	else
		xg_warn("OMP_TARGET_OFFLOAD=mandatory and a %s construct names device %d: it "
			"does not exist (omp_get_num_devices() is 0); exiting", construct, device);
	exit(EXIT_FAILURE);
}

/* Run @fn(@hostaddrs) as the initial task of a fresh data environment. */
static void xg_target_run(void (*fn)(void *), void **hostaddrs, uint32_t thread_limit)
{
	struct xg_task *saved = xg_cur;
	struct xs_worker *outer = xs_self;
	struct xg_league league = xg_league;
	struct xg_task t;

	xg_env_init();
	memset(&t, 0, sizeof(t));
	t.team = xg_team_new_initial();
	t.implicit = &t;
	t.own_icv = xg_env.icv;
	if (thread_limit)
		t.own_icv.thread_limit = thread_limit;
	t.icv = &t.own_icv;
	xg_league = (struct xg_league){ 0, 0 };
	xs_self = NULL;
	xg_cur = &t;
	fn(hostaddrs);
	xg_cur = saved;
	xs_self = outer;
	xg_league = league;
	/* Tasks met without a worker ran at once; nothing is left. */
	xg_team_free(t.team);
}

/* Room for the firstprivate copies of a target region's maps. */
static size_t xg_firstprivate_size(size_t mapnum, const size_t *sizes,
				   const unsigned short *kinds, size_t *align)
{
	size_t size = 0;

	*align = 1;
	for (size_t i = 0; i < mapnum; i++) {
		size_t a;

		if ((kinds[i] & 0xff) != XG_MAP_FIRSTPRIVATE)
			continue;
		a = (size_t)1 << (kinds[i] >> 8);
		if (a > *align)
			*align = a;
		size = ((size + a - 1) & ~(a - 1)) + sizes[i];
	}
	return size;
}

/* Copy the firstprivate variables into @buf (aligned to what
 * xg_firstprivate_size() said) and point @hostaddrs at the copies. */
static void xg_firstprivate_copy(char *buf, size_t mapnum, void **hostaddrs, const size_t *sizes,
				 const unsigned short *kinds)
{
	size_t at = 0;

	for (size_t i = 0; i < mapnum; i++) {
		size_t a;

		if ((kinds[i] & 0xff) != XG_MAP_FIRSTPRIVATE || !hostaddrs[i])
			continue;
		a = (size_t)1 << (kinds[i] >> 8);
		at = (at + a - 1) & ~(a - 1);
		memcpy(buf + at, hostaddrs[i], sizes[i]);
		hostaddrs[i] = buf + at;
		at += sizes[i];
	}
}

/* A deferred target region: the maps and the firstprivate copies in one
 * allocation, owned by the task. */
struct xg_target_task {
	void (*fn)(void *);
	uint32_t thread_limit;
	void **hostaddrs;           /* mapnum pointers, then the copies */
};

static void xg_target_task_main(void *data)
{
	struct xg_target_task *tt = *(struct xg_target_task **)data;

	xg_target_run(tt->fn, tt->hostaddrs, tt->thread_limit);
	free(tt);
}

static void xg_target_nowait(void (*fn)(void *), size_t mapnum, void **hostaddrs,
			     const size_t *sizes, const unsigned short *kinds, void **depend,
			     void **args)
{
	size_t align, fp = xg_firstprivate_size(mapnum, sizes, kinds, &align);
	size_t head = sizeof(struct xg_target_task) + mapnum * sizeof(void *);
	struct xg_target_task *tt;
	char *copies;

	tt = malloc(head + fp + align);
	if (!tt) {
		xg_warn("out of memory for a target task of %zu maps", mapnum);
		abort();
	}
	tt->fn = fn;
	tt->thread_limit = xg_target_thread_limit(args);
	tt->hostaddrs = (void **)(tt + 1);
	memcpy(tt->hostaddrs, hostaddrs, mapnum * sizeof(void *));
	copies = (char *)(((uintptr_t)tt + head + align - 1) & ~(uintptr_t)(align - 1));
	xg_firstprivate_copy(copies, mapnum, tt->hostaddrs, sizes, kinds);
	GOMP_task(xg_target_task_main, &tt, NULL, sizeof(tt), _Alignof(void *), true,
		  depend ? XG_TASK_DEPEND : 0, depend, 0, NULL);
}

XG_EXPORT void GOMP_target_ext(int device, void (*fn)(void *), size_t mapnum, void **hostaddrs,
			       size_t *sizes, unsigned short *kinds, unsigned flags,
			       void **depend, void **args)
{
	size_t align, fp;

	xg_target_device(device, "target");
	if (flags & XG_TARGET_NOWAIT) {
		xg_target_nowait(fn, mapnum, hostaddrs, sizes, kinds, depend, args);
		return;
	}
	if (depend)
		xg_depend_wait_self(depend);
	fp = xg_firstprivate_size(mapnum, sizes, kinds, &align);
	if (fp) {
		char buf[fp + align];

		xg_firstprivate_copy((char *)(((uintptr_t)buf + align - 1) & ~(uintptr_t)(align - 1)),
				     mapnum, hostaddrs, sizes, kinds);
		xg_target_run(fn, hostaddrs, xg_target_thread_limit(args));
		return;
	}
	xg_target_run(fn, hostaddrs, xg_target_thread_limit(args));
}

/* gcc 4.9's form: no firstprivate maps, no flags. */
XG_EXPORT void GOMP_target(int device, void (*fn)(void *), const void *unused, size_t mapnum,
			   void **hostaddrs, size_t *sizes, unsigned char *kinds)
{
	(void)unused, (void)mapnum, (void)sizes, (void)kinds;
	xg_target_device(device, "target");
	xg_target_run(fn, hostaddrs, 0);
}

/* Data constructs: the host's data environment is the device's. */
XG_EXPORT void GOMP_target_data(int device, const void *unused, size_t mapnum, void **hostaddrs,
				size_t *sizes, unsigned char *kinds)
{
	(void)unused, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
	xg_target_device(device, "target data");
}

XG_EXPORT void GOMP_target_data_ext(int device, size_t mapnum, void **hostaddrs, size_t *sizes,
				    unsigned short *kinds)
{
	(void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
	xg_target_device(device, "target data");
}

XG_EXPORT void GOMP_target_end_data(void)
{
}

XG_EXPORT void GOMP_target_update(int device, const void *unused, size_t mapnum,
				  void **hostaddrs, size_t *sizes, unsigned char *kinds)
{
	(void)unused, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
	xg_target_device(device, "target update");
}

/* With depend, the update (nothing to copy) still waits for its
 * predecessors; nowait or not, it is then complete. */
XG_EXPORT void GOMP_target_update_ext(int device, size_t mapnum, void **hostaddrs,
				      size_t *sizes, unsigned short *kinds, unsigned flags,
				      void **depend)
{
	(void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds, (void)flags;
	xg_target_device(device, "target update");
	if (depend)
		xg_depend_wait_self(depend);
}

XG_EXPORT void GOMP_target_enter_exit_data(int device, size_t mapnum, void **hostaddrs,
					   size_t *sizes, unsigned short *kinds, unsigned flags,
					   void **depend)
{
	(void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds, (void)flags;
	xg_target_device(device, "target enter/exit data");
	if (depend)
		xg_depend_wait_self(depend);
}

/* ------------------------------------------------------------------ */
/* Device memory routines: only the host (device 0) exists. */

static bool xg_is_host(int device)
{
	return device == 0; /* omp_get_initial_device() */
}

XG_EXPORT void *omp_target_alloc(size_t size, int device)
{
	return xg_is_host(device) ? malloc(size) : NULL;
}

XG_EXPORT void omp_target_free(void *ptr, int device)
{
	if (xg_is_host(device))
		free(ptr);
}

XG_EXPORT int omp_target_is_present(const void *ptr, int device)
{
	return !ptr || xg_is_host(device);
}

XG_EXPORT int omp_target_memcpy(void *dst, const void *src, size_t length, size_t dst_offset,
				size_t src_offset, int dst_device, int src_device)
{
	if (!xg_is_host(dst_device) || !xg_is_host(src_device))
		return EINVAL;
	memcpy((char *)dst + dst_offset, (const char *)src + src_offset, length);
	return 0;
}

/* One dimension at a time, the outermost first; a size that overflows is
 * EINVAL. */
static int xg_memcpy_rect(char *dst, const char *src, size_t elem, int dims, const size_t *volume,
			  const size_t *dst_off, const size_t *src_off, const size_t *dst_dims,
			  const size_t *src_dims)
{
	size_t dst_slice = elem, src_slice = elem, d, s;

	if (dims == 1) {
		size_t len;

		if (__builtin_mul_overflow(elem, volume[0], &len) ||
		    __builtin_mul_overflow(elem, dst_off[0], &d) ||
		    __builtin_mul_overflow(elem, src_off[0], &s))
			return EINVAL;
		memcpy(dst + d, src + s, len);
		return 0;
	}
	for (int i = 1; i < dims; i++)
		if (__builtin_mul_overflow(dst_slice, dst_dims[i], &dst_slice) ||
		    __builtin_mul_overflow(src_slice, src_dims[i], &src_slice))
			return EINVAL;
	if (__builtin_mul_overflow(dst_slice, dst_off[0], &d) ||
	    __builtin_mul_overflow(src_slice, src_off[0], &s))
		return EINVAL;
	for (size_t j = 0; j < volume[0]; j++) {
		int ret = xg_memcpy_rect(dst + d + dst_slice * j, src + s + src_slice * j, elem,
					 dims - 1, volume + 1, dst_off + 1, src_off + 1,
					 dst_dims + 1, src_dims + 1);

		if (ret)
			return ret;
	}
	return 0;
}

XG_EXPORT int omp_target_memcpy_rect(void *dst, const void *src, size_t element_size,
				     int num_dims, const size_t *volume,
				     const size_t *dst_offsets, const size_t *src_offsets,
				     const size_t *dst_dimensions, const size_t *src_dimensions,
				     int dst_device, int src_device)
{
	if (!dst && !src)
		return INT_MAX; /* the dimensions supported */
	if (!xg_is_host(dst_device) || !xg_is_host(src_device) || num_dims < 1)
		return EINVAL;
	return xg_memcpy_rect(dst, src, element_size, num_dims, volume, dst_offsets, src_offsets,
			      dst_dimensions, src_dimensions);
}

/* Associating host memory with device memory needs a device. */
XG_EXPORT int omp_target_associate_ptr(const void *host_ptr, const void *device_ptr,
				       size_t size, size_t device_offset, int device)
{
	(void)host_ptr, (void)device_ptr, (void)size, (void)device_offset, (void)device;
	return EINVAL;
}

XG_EXPORT int omp_target_disassociate_ptr(const void *ptr, int device)
{
	(void)ptr, (void)device;
	return EINVAL;
}
