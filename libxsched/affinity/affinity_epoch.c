// SPDX-License-Identifier: MIT
/*
 * affinity_epoch.c - the epoch of the affinity answers.
 *
 * What an affinity loop runs depends on the schedules loaded (the replay,
 * affinity_file.c) and on the verdicts kept (the trial, affinity_trial.c).
 * Each change to either moves the epoch; the choice (affinity_choice.c)
 * tags the answers it remembers with the epoch read before it asked, and
 * asks afresh once the epoch has moved. The epoch has a file of its own
 * so that the replay and the trial, which move it, and the choice, which
 * reads it, do not call each other.
 *
 * Relaxed: the epoch orders nothing else. A loop that follows a change in
 * the program's order (the same thread, or one that synchronized with the
 * changer) reads the new epoch by coherence and asks afresh; a loop racing
 * the change may use either answer, as it could under the locks (the
 * caller keeps an overridden schedule alive while loops may use it).
 */
#include "affinity/affinity.h"
#include "base/atomics.h"

static _Atomic uint64_t xs_affinity_epoch_now = 1; /* 0 marks an empty memo */

void xs_affinity_epoch_bump(void)
{
	xs_fetch_add_relaxed(&xs_affinity_epoch_now, 1);
}

uint64_t xs_affinity_epoch(void)
{
	return xs_load_relaxed(&xs_affinity_epoch_now);
}
