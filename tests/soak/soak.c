// SPDX-License-Identifier: MIT
/*
 * soak.c - many randomized spawn trees with checksums, for a long time.
 *
 *   SOAK_TASKS=N [SOAK_SEED=S] build/soak/soak
 *
 * Rounds until N tasks ran: each creates a runtime of 1..8 workers (in
 * turn), runs random trees (tests/checksum-tree.h: waits inside and at
 * the end, uneven fan-out) whose node count and leaf checksum must match
 * the serial walk, plus continuations made ready from another thread,
 * which must each run once, then destroys the runtime. A pinned CPU hog
 * (tools/bench/noise.h) runs on CPU 0 throughout. tests/soak/soak.sh adds
 * SIGSTOP/SIGCONT and xschedd restarts around it.
 *
 * Prints a progress line every 10 rounds (the driver's hang detector) and
 * a last line: tasks, lost (node count differences), bad checksums, lost
 * continuations, and RSS and open fds after the first round and at the end.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../checksum-tree.h"
#include "../../tools/bench/noise.h"
#include "proc-usage.h"

static const struct tree_shape shape = { .wide_every = 7, .wide_fanout = 6,
					 .wait_each_mod = 5, .wait_at_end = 1 };

struct root_arg {
	uint64_t seed;
	int depth;
	_Atomic uint64_t *sum, *nodes, *conts;
	pthread_t *readier;
};

static void cont_fn(void *arg)
{
	atomic_fetch_add_explicit(*(_Atomic uint64_t **)arg, 1, memory_order_relaxed);
}

static void *ready_later(void *c)
{
	usleep(100);
	xs_continuation_ready(c);
	return NULL;
}

static void root(void *p)
{
	struct root_arg *a = p;
	struct tree t = { a->seed, a->depth, &shape, a->sum, a->nodes };
	struct xs_continuation *c = xs_continuation_create(cont_fn, &a->conts, sizeof(a->conts));

	/* the continuation becomes ready from outside while the tree runs */
	if (c && pthread_create(a->readier, NULL, ready_later, c))
		xs_continuation_ready(c);
	tree_node(&t);
	xs_task_wait();
}

int main(void)
{
	const char *e = getenv("SOAK_TASKS");
	uint64_t want = e ? strtoull(e, NULL, 10) : 1000000000ull;
	uint64_t seed = getenv("SOAK_SEED") ? strtoull(getenv("SOAK_SEED"), NULL, 10) : 1;
	uint64_t tasks = 0, lost = 0, badsum = 0, lost_conts = 0, rounds = 0;
	long rss0 = 0;
	int fds0 = 0;

	if (noise_start(0, 50) < 0)
		fprintf(stderr, "soak: no CPU hog (noise_start failed); going on without\n");
	while (tasks < want) {
		unsigned int workers = 1 + rounds % 8;
		struct xs_runtime *rt = xs_runtime_create(workers);

		if (!rt) {
			perror("soak: xs_runtime_create");
			return 1;
		}
		for (int i = 0; i < 4; i++) {
			_Atomic uint64_t sum = 0, nodes = 0, conts = 0;
			pthread_t readier;
			uint64_t s = seed++;
			struct root_arg a = { tree_mix(s), 8 + (int)(s % 6), &sum, &nodes, &conts,
					      &readier };
			uint64_t want_sum = 0, want_nodes = 0;

			tree_serial(&shape, a.seed, a.depth, &want_sum, &want_nodes);
			if (xs_runtime_run(rt, root, &a)) {
				fprintf(stderr, "soak: xs_runtime_run failed\n");
				return 1;
			}
			pthread_join(readier, NULL);
			lost += want_nodes > nodes ? want_nodes - nodes : nodes - want_nodes;
			badsum += sum != want_sum;
			lost_conts += conts != 1;
			tasks += nodes + 1;
		}
		xs_runtime_destroy(rt);
		if (++rounds == 1) {
			rss0 = rss_kib();
			fds0 = open_fds();
		}
		if (rounds % 10 == 0)
			printf("soak: progress %llu rounds %llu tasks\n", (unsigned long long)rounds,
			       (unsigned long long)tasks);
		fflush(stdout);
	}
	noise_stop();
	printf("soak: tasks %llu rounds %llu lost %llu bad-checksums %llu lost-continuations %llu "
	       "rss-kib %ld->%ld fds %d->%d\n",
	       (unsigned long long)tasks, (unsigned long long)rounds, (unsigned long long)lost,
	       (unsigned long long)badsum, (unsigned long long)lost_conts, rss0, rss_kib(), fds0,
	       open_fds());
	return lost || badsum || lost_conts;
}
