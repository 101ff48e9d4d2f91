/* SPDX-License-Identifier: MIT */
/*
 * device.cuh - the device surface of the kernels: CUDA's own headers under
 * nvcc, or the host SIMT emulator of the tests (tests/simt/simt.h) when
 * compiled with -DXS_SIMT by a host C++ compiler. Kernel headers that both
 * can build (lb_schedules.cuh, msgbuf.cuh, the *_ops.cuh) include this and
 * nothing of the CUDA runtime.
 *
 *   XS_EXTERN_SHARED(T, name)   the block's dynamic shared memory as T *
 *   XS_SPIN_WAIT()              the body of a loop that polls memory no
 *                               atomic of its own touches (nothing on the
 *                               GPU; a scheduling point in the emulator,
 *                               whose threads never preempt each other)
 */
#ifndef XSCHED_CUDA_DEVICE_CUH
#define XSCHED_CUDA_DEVICE_CUH

#ifdef XS_SIMT
#include "simt.h"
#else
#include <cooperative_groups.h>

#define XS_EXTERN_SHARED(type, name) \
	extern __shared__ __align__(16) type name[]
#define XS_SPIN_WAIT() ((void)0)
#endif

#endif /* XSCHED_CUDA_DEVICE_CUH */
