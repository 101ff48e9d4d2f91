// SPDX-License-Identifier: MIT
/*
 * soak.c - many randomized spawn trees with checksums, for a long time.
 *
 *   SOAK_TASKS=N [SOAK_SEED=S] build/soak/soak
 *
 * Rounds until N tasks ran. Round k creates a runtime of 1 + k % 8
 * workers and runs random trees on it (tests/checksum-tree.h: waits inside
 * and at the end, uneven fan-out, 12..23 levels: 10^3 to 10^6 tasks each)
 * until SOAK_ROUND_TASKS tasks ran (default 10^7), then destroys it. Each
 * tree's node count and leaf checksum must match the serial walk, and a
 * continuation made ready from another thread while the tree runs must run
 * once. Rounds are long so that the tasks run at the runtime's own speed;
 * the runtime's creation and teardown are exercised once per round. A
 * pinned CPU hog (tools/bench/harness/noise.h) runs on CPU 0 throughout.
 * tests/soak/soak.sh adds SIGSTOP/SIGCONT and xschedd restarts around it.
 *
 * Prints a progress line per round (the driver's hang detector) with the
 * RSS and open fds, and a last line: tasks, lost (node count differences),
 * bad checksums, lost continuations, RSS after the first round, its
 * largest value and the round where it last grew, and open fds after the
 * first round and at the end.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../checksum-tree.h"
#include "../../tools/bench/harness/noise.h"
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

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *e = getenv(name);
	char *end;
	uint64_t v;

	if (!e || !*e)
		return def;
	v = strtoull(e, &end, 10);
	if (*end || !v) {
		fprintf(stderr, "soak: %s=%s is not a positive count\n", name, e);
		exit(2);
	}
	return v;
}

int main(void)
{
	uint64_t want = env_u64("SOAK_TASKS", 1000000000ull);
	uint64_t per_round = env_u64("SOAK_ROUND_TASKS", 10000000ull);
	uint64_t seed = env_u64("SOAK_SEED", 1);
	uint64_t tasks = 0, lost = 0, badsum = 0, lost_conts = 0, rounds = 0, grew_at = 1;
	long rss0 = 0, rss_max = 0;
	int fds0 = 0;

	if (noise_start(0, 50) < 0)
		fprintf(stderr, "soak: no CPU hog (noise_start failed); going on without\n");
	while (tasks < want) {
		unsigned int workers = 1 + rounds % 8;
		struct xs_runtime *rt = xs_runtime_create(workers);
		uint64_t round_tasks = 0;
		long rss;

		if (!rt) {
			perror("soak: xs_runtime_create");
			return 1;
		}
		while (round_tasks < per_round && tasks + round_tasks < want) {
			_Atomic uint64_t sum = 0, nodes = 0, conts = 0;
			pthread_t readier;
			uint64_t s = seed++;
			struct root_arg a = { tree_mix(s), 12 + (int)(s % 12), &sum, &nodes, &conts,
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
			round_tasks += nodes + 1;
		}
		xs_runtime_destroy(rt);
		tasks += round_tasks;
		rss = rss_kib();
		if (++rounds == 1) {
			rss0 = rss_max = rss;
			fds0 = open_fds();
		} else if (rss > rss_max) {
			rss_max = rss;
			grew_at = rounds;
		}
		printf("soak: progress %llu rounds %llu tasks rss-kib %ld fds %d\n",
		       (unsigned long long)rounds, (unsigned long long)tasks, rss, open_fds());
		fflush(stdout);
	}
	noise_stop();
	printf("soak: tasks %llu rounds %llu lost %llu bad-checksums %llu lost-continuations %llu "
	       "rss-kib %ld->%ld max %ld (last grew in round %llu) fds %d->%d\n",
	       (unsigned long long)tasks, (unsigned long long)rounds, (unsigned long long)lost,
	       (unsigned long long)badsum, (unsigned long long)lost_conts, rss0, rss_kib(), rss_max,
	       (unsigned long long)grew_at, fds0, open_fds());
	return lost || badsum || lost_conts;
}
