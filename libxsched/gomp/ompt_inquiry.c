// SPDX-License-Identifier: MIT
/*
 * ompt_inquiry.c - the entry points the OMPT lookup function hands a tool
 * (OpenMP 5.1, 19.6): ompt_set_callback and ompt_get_callback, the
 * inquiry functions (thread data, parallel and task info with their
 * ancestors, unique ids, processors and places, state, the enumerations
 * of states and mutex implementations, task memory), and
 * ompt_finalize_tool. They read the calling thread's records
 * (ompt_records.h); none blocks.
 */
#include <sched.h>
#include <string.h>

#include "ompt_records.h"

_Atomic(ompt_callback_t) xo_callbacks[XO_EVENTS];
/* ompt_get_unique_id(): ids from 1. */
static _Atomic uint64_t xo_next_id = 1;

static ompt_set_result_t xo_set_callback(ompt_callbacks_t event, ompt_callback_t callback)
{
	if ((unsigned)event >= XO_EVENTS)
		return ompt_set_error;
	/* Release pairs with xo_cb()'s acquire. */
	xs_store_release(&xo_callbacks[event], callback);
	switch (event) {
	case ompt_callback_thread_begin:
	case ompt_callback_thread_end:
	case ompt_callback_parallel_begin:
	case ompt_callback_parallel_end:
	case ompt_callback_task_create:
	case ompt_callback_task_schedule:
	case ompt_callback_implicit_task:
	case ompt_callback_mutex_released:
	case ompt_callback_dependences:
	case ompt_callback_work:
	case ompt_callback_sync_region_wait:
	case ompt_callback_sync_region:
	case ompt_callback_lock_init:
	case ompt_callback_lock_destroy:
	case ompt_callback_mutex_acquire:
	case ompt_callback_mutex_acquired:
	case ompt_callback_nest_lock:
		return ompt_set_always;
	default:
		return ompt_set_never;
	}
}

static int xo_get_callback(ompt_callbacks_t event, ompt_callback_t *callback)
{
	ompt_callback_t fn;

	if ((unsigned)event >= XO_EVENTS)
		return 0;
	fn = xo_cb(event);
	if (!fn)
		return 0;
	*callback = fn;
	return 1;
}

static ompt_data_t *xo_get_thread_data(void)
{
	return xo_self.begun ? &xo_self.data : NULL;
}

static int xo_get_parallel_info(int level, ompt_data_t **parallel_data, int *team_size)
{
	struct xo_region *r;

	if (!xo_self.begun || level < 0)
		return 0;
	for (r = xo_cur()->region; r && level > 0; level--)
		r = r->parent;
	if (!r)
		return 0;
	if (parallel_data)
		*parallel_data = &r->data;
	if (team_size)
		*team_size = (int)r->nthreads;
	return 2;
}

static int xo_get_task_info(int level, int *flags, ompt_data_t **task_data,
			    ompt_frame_t **task_frame, ompt_data_t **parallel_data, int *thread_num)
{
	struct xo_task *t;

	if (!xo_self.begun || level < 0)
		return 0;
	for (t = xo_cur(); t && level > 0; level--)
		t = t->parent;
	if (!t)
		return 0;
	if (flags)
		*flags = t->flags;
	if (task_data)
		*task_data = &t->data;
	if (task_frame)
		*task_frame = &t->frame;
	if (parallel_data)
		*parallel_data = &t->region->data;
	if (thread_num)
		*thread_num = (int)t->tid;
	return 2;
}

/* No task's private memory is known to the runtime (blocks are the
 * program's): 0, as the spec allows. */
static int xo_get_task_memory(void **addr, size_t *size, int block)
{
	(void)addr;
	(void)size;
	(void)block;
	return 0;
}

static uint64_t xo_get_unique_id(void)
{
	/* Relaxed: ids only need to differ. */
	return xs_fetch_add_relaxed(&xo_next_id, 1);
}

static int xo_get_num_procs(void)
{
	return (int)xg_env.nprocs;
}

static int xo_get_num_places(void)
{
	return (int)xg_env.num_places;
}

static int xo_get_place_num(void)
{
	return xg_places_current();
}

/* The process's places are the drop-in's business (places.c); tools ask
 * rarely: none are listed. */
static int xo_get_place_proc_ids(int place_num, int ids_size, int *ids)
{
	(void)place_num;
	(void)ids_size;
	(void)ids;
	return 0;
}

static int xo_get_partition_place_nums(int place_nums_size, int *place_nums)
{
	(void)place_nums_size;
	(void)place_nums;
	return 0;
}

static int xo_get_proc_id(void)
{
	return sched_getcpu();
}

static int xo_get_state(ompt_wait_id_t *wait_id)
{
	if (!xo_self.begun)
		return ompt_state_undefined;
	if (wait_id)
		*wait_id = xo_self.wait_id;
	return xo_self.state;
}

static const struct {
	int value;
	const char *name;
} xo_states[] = {
#define XO_STATE(name, value) { value, #name },
	FOREACH_OMPT_STATE(XO_STATE)
#undef XO_STATE
};

static int xo_enumerate_states(int current, int *next, const char **next_name)
{
	size_t n = sizeof(xo_states) / sizeof(xo_states[0]), i = 0;

	if (current != ompt_state_undefined) {
		while (i < n && xo_states[i].value != current)
			i++;
		i++;
	}
	/* The list starts with ompt_state_undefined itself: skip it. */
	while (i < n && xo_states[i].value == ompt_state_undefined)
		i++;
	if (i >= n)
		return 0;
	*next = xo_states[i].value;
	*next_name = xo_states[i].name;
	return 1;
}

static int xo_enumerate_mutex_impls(int current, int *next, const char **next_name)
{
	if (current != ompt_mutex_impl_none)
		return 0;
	*next = XO_MUTEX_IMPL;
	*next_name = "xsched_futex_word";
	return 1;
}

static int xo_get_num_devices(void)
{
	return 0;
}

static int xo_get_target_info(uint64_t *device_num, ompt_id_t *target_id,
			      ompt_id_t *target_op_id)
{
	(void)device_num;
	(void)target_id;
	(void)target_op_id;
	return 0;
}

static void xo_finalize_tool(void)
{
	xo_finalize();
}

static const struct {
	const char *name;
	ompt_interface_fn_t fn;
} xo_entry_points[] = {
#define XO_ENTRY(name, fn) { #name, (ompt_interface_fn_t)(fn) }
	XO_ENTRY(ompt_set_callback, xo_set_callback),
	XO_ENTRY(ompt_get_callback, xo_get_callback),
	XO_ENTRY(ompt_get_thread_data, xo_get_thread_data),
	XO_ENTRY(ompt_get_parallel_info, xo_get_parallel_info),
	XO_ENTRY(ompt_get_task_info, xo_get_task_info),
	XO_ENTRY(ompt_get_task_memory, xo_get_task_memory),
	XO_ENTRY(ompt_get_unique_id, xo_get_unique_id),
	XO_ENTRY(ompt_get_num_procs, xo_get_num_procs),
	XO_ENTRY(ompt_get_num_places, xo_get_num_places),
	XO_ENTRY(ompt_get_place_num, xo_get_place_num),
	XO_ENTRY(ompt_get_place_proc_ids, xo_get_place_proc_ids),
	XO_ENTRY(ompt_get_partition_place_nums, xo_get_partition_place_nums),
	XO_ENTRY(ompt_get_proc_id, xo_get_proc_id),
	XO_ENTRY(ompt_get_state, xo_get_state),
	XO_ENTRY(ompt_enumerate_states, xo_enumerate_states),
	XO_ENTRY(ompt_enumerate_mutex_impls, xo_enumerate_mutex_impls),
	XO_ENTRY(ompt_get_num_devices, xo_get_num_devices),
	XO_ENTRY(ompt_get_target_info, xo_get_target_info),
	XO_ENTRY(ompt_finalize_tool, xo_finalize_tool),
#undef XO_ENTRY
};

ompt_interface_fn_t xo_lookup(const char *name)
{
	for (size_t i = 0; i < sizeof(xo_entry_points) / sizeof(xo_entry_points[0]); i++)
		if (!strcmp(name, xo_entry_points[i].name))
			return xo_entry_points[i].fn;
	return NULL;
}
