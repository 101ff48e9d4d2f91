// SPDX-License-Identifier: MIT
// bench_tbb.cpp - run a oneTBB variant on exactly N threads.
//
// tbb::global_control caps the threads of the whole process and
// tbb::task_arena(N) asks for N of them (the default arena only ever has as
// many as there are CPUs), so --threads above nproc oversubscribes as it
// does for the other runtimes.
#include <new>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include "bench.h"

struct bench_tbb {
	tbb::global_control limit;
	tbb::task_arena arena;

	explicit bench_tbb(int threads)
		: limit(tbb::global_control::max_allowed_parallelism,
			(size_t)threads),
		  arena(threads)
	{
		arena.initialize();
	}
};

extern "C" struct bench_tbb *bench_tbb_open(int threads)
{
	try {
		return new bench_tbb(threads);
	} catch (...) {
		return nullptr;
	}
}

extern "C" int bench_tbb_threads(const struct bench_tbb *t)
{
	return (int)t->arena.max_concurrency();
}

extern "C" int bench_tbb_run(struct bench_tbb *t, void (*fn)(void *),
			     void *st)
{
	try {
		t->arena.execute([=] { fn(st); });
	} catch (...) {
		return -ENOMEM;
	}
	return 0;
}

extern "C" void bench_tbb_close(struct bench_tbb *t)
{
	delete t;
}
