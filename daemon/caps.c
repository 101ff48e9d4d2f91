// SPDX-License-Identifier: MIT
/*
 * caps.c - keep only the capabilities the running daemon needs.
 *
 * Start-up (loading and attaching BPF, the read-only map descriptor, the
 * runtime directory and socket) is done by now. Afterwards the BPF mode
 * registers workers and writes their slots by running the programs'
 * syscall program and task iterators with bpf(2), which kernels with
 * unprivileged BPF disabled allow only with CAP_BPF; nothing else needs
 * privilege (stat of /proc/PID/task/TID, SO_PEERCRED, our own files). So
 * CAP_BPF is kept in BPF mode, nothing in degraded mode, and the bounding
 * set is emptied so that no exec can regain more.
 */
#include <errno.h>
#include <string.h>
#include <sys/prctl.h>

#include <sys/capability.h>

#include "xschedd.h"

int xsd_caps_drop(bool keep_bpf)
{
	cap_value_t keep[] = { CAP_BPF };
	int nkeep = keep_bpf ? 1 : 0, ret = 0;
	cap_t caps = NULL;

	for (cap_value_t v = 0; v <= CAP_LAST_CAP; v++) {
		if (nkeep && v == CAP_BPF)
			continue;
		/* EINVAL: the running kernel does not know this capability */
		if (cap_drop_bound(v) && errno != EINVAL && errno != EPERM) {
			ret = -errno;
			xsd_log("capabilities: dropping %s from the bounding set: %s\n",
				cap_to_name(v), strerror(errno));
			goto out;
		}
	}
	caps = cap_init(); /* empty */
	if (!caps ||
	    (nkeep && (cap_set_flag(caps, CAP_PERMITTED, nkeep, keep, CAP_SET) ||
		       cap_set_flag(caps, CAP_EFFECTIVE, nkeep, keep, CAP_SET))) ||
	    cap_set_proc(caps)) {
		ret = -errno;
		xsd_log("capabilities: %s\n", strerror(errno));
		goto out;
	}
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	xsd_log("capabilities: kept %s%s\n", nkeep ? "cap_bpf" : "none",
		nkeep ? " (worker registration)" : "");
out:
	cap_free(caps);
	return ret;
}
