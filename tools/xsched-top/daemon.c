// SPDX-License-Identifier: MIT
/*
 * daemon.c - xschedd's state, as xsched-top shows it: the state file
 * mapped read-only, its layout checked with xs_abi_check_layout(), copied
 * under the seqlock (xs_abi_read_begin()/xs_abi_read_retry()), and the copy
 * checked again: a torn, invalid or foreign state is "absent" with the
 * reason, never a crash.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "top.h"

/* The largest state file we map (as libxsched's client). */
#define TOP_MAX_STATE (256ull << 20)

static const char *const top_classes[] = { "smt", "llc", "node", "remote" };

const char *top_victim_class(unsigned int c)
{
	return c < 4 ? top_classes[c] : "?";
}

static void top_daemon_absent(struct top_daemon *d, const char *fmt, const char *a,
			      const char *b)
{
	d->present = 0;
	d->mode = "absent";
	snprintf(d->why, sizeof(d->why), fmt, a, b);
}

void top_daemon_read(struct top_snap *s, const char *runtime_dir)
{
	struct top_daemon *d = &s->d;
	const struct xs_abi_header *h = MAP_FAILED;
	struct xs_abi_header *copy = NULL;
	char path[4200];
	struct stat st;
	uint64_t seq = 0;
	int fd, err, tries;

	memset(d, 0, sizeof(*d));
	snprintf(path, sizeof(path), "%s/" XS_ABI_STATE_FILE, runtime_dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		top_daemon_absent(d, "%s: %s", path, strerror(errno));
		return;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size < sizeof(*h) ||
	    (uint64_t)st.st_size > TOP_MAX_STATE) {
		top_daemon_absent(d, "%s: %s", path, "not a state file (type or size)");
		goto out;
	}
	h = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED) {
		top_daemon_absent(d, "%s: %s", path, strerror(errno));
		goto out;
	}
	err = xs_abi_check_layout(h, (uint64_t)st.st_size);
	if (err) {
		top_daemon_absent(d, "%s: %s", path,
				  err == -EPROTO ? "another daemon or ABI version"
						 : "inconsistent layout");
		goto out;
	}
	copy = malloc((size_t)st.st_size);
	if (!copy) {
		top_daemon_absent(d, "%s: %s", path, strerror(ENOMEM));
		goto out;
	}
	for (tries = 0;; tries++) {
		seq = xs_abi_read_begin(h);
		memcpy(copy, h, (size_t)st.st_size);
		if (!xs_abi_read_retry(h, seq))
			break;
		if (tries == XS_ABI_READ_RETRIES) {
			top_daemon_absent(d, "%s: %s", path,
					  "torn on every read (writer stopped mid-write?)");
			goto out;
		}
	}
	/* The copy is what we use: check it, not the live mapping. */
	if (xs_abi_check_layout(copy, (uint64_t)st.st_size)) {
		top_daemon_absent(d, "%s: %s", path, "layout changed while read");
		goto out;
	}
	d->present = 1;
	d->mode = copy->mode == XS_ABI_MODE_BPF	       ? "BPF"
		  : copy->mode == XS_ABI_MODE_DEGRADED ? "degraded"
						       : "unknown";
	d->pid = copy->daemon_pid;
	d->tick_ns = copy->tick_ns;
	d->generation = copy->generation;
	d->heartbeat_age_ns = s->now_ns > copy->heartbeat_ns ? s->now_ns - copy->heartbeat_ns : 0;
	/* Four ticks without a heartbeat, at least a second: stale. */
	d->fresh = xs_abi_fresh(copy->heartbeat_ns, copy->flags, s->now_ns,
				copy->tick_ns * 4 > 1000000000ull ? copy->tick_ns * 4 : 1000000000ull);
	if (copy->flags & XS_ABI_F_EXITED) {
		d->present = 0;
		top_daemon_absent(d, "%s: %s", path, "xschedd has exited");
		goto out;
	}
	if (!d->fresh)
		snprintf(d->why, sizeof(d->why), "heartbeat %.1f s old", d->heartbeat_age_ns / 1e9);
	d->ncpus = copy->ncpus;
	d->nnodes = copy->nnodes;
	d->row_len = copy->row_len;
	d->cpus = malloc((size_t)d->ncpus * sizeof(*d->cpus));
	d->nodes = malloc(((size_t)d->nnodes + 1) * sizeof(*d->nodes));
	d->victims = malloc(((size_t)d->ncpus * d->row_len + 1) * sizeof(*d->victims));
	if (!d->cpus || !d->nodes || !d->victims) {
		free(d->cpus);
		free(d->nodes);
		free(d->victims);
		d->cpus = NULL;
		d->nodes = NULL;
		d->victims = NULL;
		top_daemon_absent(d, "%s: %s", path, strerror(ENOMEM));
		goto out;
	}
	memcpy(d->cpus, xs_abi_at(copy, copy->cpu_off), (size_t)d->ncpus * sizeof(*d->cpus));
	memcpy(d->nodes, xs_abi_at(copy, copy->node_off), (size_t)d->nnodes * sizeof(*d->nodes));
	memcpy(d->victims, xs_abi_at(copy, copy->victim_off),
	       (size_t)d->ncpus * d->row_len * sizeof(*d->victims));
	/* Indexes are shown and followed: clamp what is out of range. */
	for (uint32_t i = 0; i < d->ncpus; i++)
		if (d->cpus[i].node >= d->nnodes)
			d->cpus[i].node = UINT32_MAX;
	for (size_t i = 0; i < (size_t)d->ncpus * d->row_len; i++)
		if (d->victims[i].cpu_index >= d->ncpus)
			d->victims[i].cpu_index = UINT32_MAX;
out:
	free(copy);
	if (h != MAP_FAILED)
		munmap((void *)h, (size_t)st.st_size);
	close(fd);
}
