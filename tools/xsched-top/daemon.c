// SPDX-License-Identifier: MIT
/*
 * daemon.c - xschedd's state, as xsched-top shows it: read as every
 * reader reads it (xsched/abi_pread.h: pread(), never mapped, so a file
 * that shrinks meanwhile is a short read, not a SIGBUS), a copy of its
 * header checked with xs_abi_check_layout(), the whole copied under the
 * seqlock (xs_abi_pread_copy()), and that copy checked again and used
 * alone: a torn, truncated, invalid or foreign state is "absent" with the
 * reason, never a crash.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xsched/abi_pread.h"

#include "top.h"

/* The largest state file we read (as libxsched's client). */
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

/* The whole state file: one read section of xs_abi_pread_copy(). */
struct top_state_copy {
	void *buf;              /* private, size bytes */
	size_t size;
};

static int top_state_copy(int fd, void *arg)
{
	struct top_state_copy *sc = arg;

	return xs_abi_pread(fd, sc->buf, sc->size, 0);
}

/*
 * The CPU shares of the copy @h (abi.h, struct xs_abi_share), checked as
 * libxsched's reader checks them (daemon_share.c): the entries in use
 * within the table, share_cpus within the CPUs, the active processes
 * among the entries, no share above share_cpus, no more running workers
 * than workers. A table that fails is not shown, and a note says why. (A
 * pid listed twice shows its last entry: checking for it would cost a
 * scan per entry.)
 */
static void top_daemon_shares(struct top_snap *s, const struct xs_abi_header *h,
			      const char *path)
{
	struct top_daemon *d = &s->d;
	const struct xs_abi_share *e = xs_abi_at(h, h->share_off);
	const char *bad = NULL;
	uint32_t n = 0;

	if (h->share_count > h->nshares)
		bad = "share_count exceeds nshares";
	else if (h->share_count && (!h->share_cpus || h->share_cpus > h->ncpus ||
				    h->share_active > h->share_count))
		bad = "share_cpus or share_active out of range";
	if (!bad && h->share_count) {
		d->shares = malloc((size_t)h->share_count * sizeof(*d->shares));
		if (!d->shares) {
			top_note(s, "%s: CPU shares not shown: %s", path, strerror(ENOMEM));
			return;
		}
	}
	for (uint32_t i = 0; !bad && i < h->share_count; i++) {
		if (!e[i].pid)
			continue;
		if (e[i].cpus > h->share_cpus || e[i].running > e[i].workers) {
			bad = "an entry out of range";
			break;
		}
		d->shares[n++] = e[i];
	}
	if (bad) {
		free(d->shares);
		d->shares = NULL;
		top_note(s, "%s: CPU shares not shown: %s", path, bad);
		return;
	}
	d->nshares = n;
	d->share_cpus = h->share_cpus;
	d->share_active = h->share_active;
}

void top_daemon_read(struct top_snap *s, const char *runtime_dir)
{
	struct top_daemon *d = &s->d;
	struct top_state_copy sc;
	struct xs_abi_header *copy = NULL, hc;
	char path[4200];
	struct stat st;
	int fd, err;

	memset(d, 0, sizeof(*d));
	snprintf(path, sizeof(path), "%s/" XS_ABI_STATE_FILE, runtime_dir);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		top_daemon_absent(d, "%s: %s", path, strerror(errno));
		return;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size < sizeof(hc) ||
	    (uint64_t)st.st_size > TOP_MAX_STATE) {
		top_daemon_absent(d, "%s: %s", path, "not a state file (type or size)");
		goto out;
	}
	sc.size = (size_t)st.st_size;
	/* What the file is, from a copy of its header (a plain copy: lines
	 * 0-1 are checked in the final copy again). */
	if (xs_abi_pread(fd, &hc, sizeof(hc), 0)) {
		top_daemon_absent(d, "%s: %s", path, "truncated while read");
		goto out;
	}
	err = xs_abi_check_layout(&hc, sc.size);
	if (err) {
		top_daemon_absent(d, "%s: %s", path,
				  err == -EPROTO ? "another daemon or ABI version"
						 : "inconsistent layout");
		goto out;
	}
	copy = aligned_alloc(XS_ABI_CACHE_LINE, xs_abi_align(sc.size, XS_ABI_CACHE_LINE));
	if (!copy) {
		top_daemon_absent(d, "%s: %s", path, strerror(ENOMEM));
		goto out;
	}
	sc.buf = copy;
	/* A writer descheduled mid-write is waited for; one that died
	 * mid-write (seq odd for good) is not (abi_pread.h). */
	err = xs_abi_pread_copy(fd, top_state_copy, &sc, NULL);
	if (err) {
		top_daemon_absent(d, "%s: %s", path,
				  err == -EAGAIN    ? "torn on every read (writer stopped mid-write?)"
				  : err == -EBADMSG ? "truncated while read"
						    : strerror(-err));
		goto out;
	}
	/* The copy is what we use: check it, never the file again. */
	if (xs_abi_check_layout(copy, sc.size)) {
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
	/* A stale daemon's shares are no longer advice (daemon_share.c
	 * falls back then): shown only while its heartbeat is fresh. */
	if (d->fresh)
		top_daemon_shares(s, copy, path);
out:
	free(copy);
	close(fd);
}
