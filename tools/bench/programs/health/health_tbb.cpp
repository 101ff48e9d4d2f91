// SPDX-License-Identifier: MIT
// health_tbb.cpp - health on oneTBB: a task_group task per child village.
#include <tbb/task_group.h>
#include "health.h"

static void health_village(struct health_village *v)
{
	tbb::task_group g;

	for (int c = 0; c < HEALTH_CITIES && v->child[c]; c++) {
		struct health_village *child = v->child[c];

		g.run([=] { health_village(child); });
	}
	health_before_wait(v);
	g.wait();
	health_after_wait(v);
}

extern "C" void health_tbb(void *p)
{
	struct health_state *st = static_cast<struct health_state *>(p);

	for (long t = 0; t < st->steps; t++)
		health_village(&st->v[0]);
}
