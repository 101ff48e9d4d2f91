// SPDX-License-Identifier: MIT
/*
 * affinity_choice.c - what an affinity loop runs, kept once it is settled.
 *
 * An XS_LOOP_AFFINITY loop asks the replay (affinity_file.c) for a schedule
 * that fits its trip count and this runtime, then the trial
 * (affinity_trial.c) which kind to run, and times itself while the trial
 * lasts. Each asks under its own mutex, and the timing reads the clock
 * twice: together about a tenth of a microsecond, which was 15% of the
 * static schedule's time for SpMV of a 9-row matrix on 2 workers, long
 * after the trial had kept static.
 *
 * Once the trial has kept a kind (or there is no trial, or no schedule
 * fits), nothing of that answer can change until a schedule is replaced
 * (xs_affinity_override(), another XSCHED_AFFINITY_FILE loaded) or a kept
 * verdict is forgotten (xs_affinity_trial_reset(), a slot evicted): each of
 * these moves the epoch. So the runtime remembers its settled answers for
 * a few trip counts, tagged with the epoch read before it asked, and a
 * later loop with the same trip count and trial rounds repeats the answer
 * with no lock and no clock read.
 *
 * The memo slots live in the runtime and are read and written only by the
 * thread that runs a loop on it: loops on one runtime run one at a time
 * (xs_for_run() refuses a nested one; a caller hands the runtime to
 * another thread only through its own synchronization).
 *
 * Tagging with the epoch read *before* asking (affinity_epoch.c) means
 * that a change during the asking leaves a memo that is already stale.
 */

#include "affinity/affinity.h"
#include "core/runtime.h"

static struct xs_aff_memo *xs_memo_find(struct xs_runtime *rt, uint64_t epoch, uint64_t n,
					int64_t trials)
{
	for (int i = 0; i < XS_AFF_MEMO_SLOTS; i++) {
		struct xs_aff_memo *s = &rt->aff_memo[i];

		if (s->epoch == epoch && s->n == n && s->trials == trials)
			return s;
	}
	return NULL;
}

/* Keep (@n, @trials) -> @c: the slot of a stale epoch first, else the
 * next in turn. */
static void xs_memo_keep(struct xs_runtime *rt, uint64_t epoch, uint64_t n, int64_t trials,
			 const struct xs_aff_choice *c)
{
	struct xs_aff_memo *s = NULL;

	for (int i = 0; i < XS_AFF_MEMO_SLOTS && !s; i++)
		if (rt->aff_memo[i].epoch != epoch)
			s = &rt->aff_memo[i];
	if (!s)
		s = &rt->aff_memo[rt->aff_memo_next++ % XS_AFF_MEMO_SLOTS];
	*s = (struct xs_aff_memo){ .epoch = epoch, .n = n, .trials = trials, .map = c->map,
				   .kind = c->kind };
}

void xs_affinity_choose(struct xs_runtime *rt, uint64_t n, struct xs_aff_choice *c)
{
	uint64_t epoch = xs_affinity_epoch();
	int64_t trials = rt->opt.affinity_trial;
	const struct xs_aff_memo *s = xs_memo_find(rt, epoch, n, trials);
	const struct xs_affinity_map *m;
	bool settled;

	if (s) {
		*c = (struct xs_aff_choice){ .map = s->map, .kind = s->kind };
		return;
	}
	m = xs_affinity_lookup(rt, n, rt->nworkers);
	*c = (struct xs_aff_choice){ .kind = XS_AFF_RUN_HYBRID };
	if (!m) {
		xs_memo_keep(rt, epoch, n, trials, c);
		return;
	}
	c->kind = xs_affinity_trial_pick(m, n, (uint32_t)trials, &settled);
	c->map = c->kind == XS_AFF_RUN_SCHEDULE ? m : NULL;
	if (settled)
		xs_memo_keep(rt, epoch, n, trials, c);
	else
		c->tried = m;
}
