// SPDX-License-Identifier: MIT
/*
 * pages.c - reading the statistics pages that runtimes publish
 * (include/xsched/stats_page.h).
 *
 * Nothing in a page is trusted: it is copied out of its mapping once (a
 * copy that a truncation cuts short is dropped, guard.c) and only the
 * copy is looked at. The file must be a regular file of a sane size whose
 * copy's layout passes xs_stats_check_layout(), whose pid matches its
 * name and whose owner is the uid it claims (or root). A page that fails
 * is skipped with a note. A page whose process is gone (no such pid, or a
 * pid whose start time differs: reused) is dead and removed, when this
 * reader may remove it (its owner, or root; /dev/shm is sticky).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xsched/proc_start.h"

#include "top.h"

/* Whether the process that wrote @h is still the one running as its pid. */
static bool top_page_alive(const struct xs_stats_header *h)
{
	uint64_t start;

	if (kill((pid_t)h->pid, 0) && errno == ESRCH)
		return false;
	start = xs_proc_start_time(h->pid);
	/* A start time we cannot read (another pid namespace, hidepid) is
	 * given the benefit of the doubt. */
	return !start || !h->pid_start || start == h->pid_start;
}

static const char *top_layout_why(int err)
{
	return err == -EPROTO ? "bad magic or version" : "inconsistent layout";
}

/* A page being copied out of its mapping (top_page_copy(), guarded). */
struct top_page_copy {
	const void *map;        /* the mapping, size bytes */
	void *buf;              /* private memory, size bytes */
	size_t size;            /* a multiple of 8 */
};

/* The whole page into private memory, once (xs_stats_page_copy()): what
 * the reader checks and uses is this copy, never the mapping again (its
 * owner may rewrite any of it, lines 0-1 included, or shrink the file:
 * top_guard()). */
static void top_page_copy(void *arg)
{
	struct top_page_copy *pc = arg;

	xs_stats_page_copy(pc->buf, pc->map, pc->size);
}

/* Copy page @path (name @name in its directory) into a new entry of @s. */
static void top_page_read(struct top_snap *s, const char *path, const char *name, uint32_t want)
{
	struct top_page_copy pc = { .map = MAP_FAILED };
	const struct xs_stats_header *h;
	struct top_proc *pr, *procs;
	unsigned long name_pid, name_id;
	struct stat st;
	int fd, err;
	char *end;

	name_pid = strtoul(name + strlen(XS_STATS_PREFIX), &end, 10);
	if (*end != '.' || !name_pid)
		return; /* not a page name: nothing of ours */
	name_id = strtoul(end + 1, &end, 10);
	if (*end)
		return;
	if (want && name_pid != want)
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0) {
		if (errno != ENOENT) /* removed while we looked: its runtime ended */
			top_note(s, "skipped %s: %s", path, strerror(errno));
		return;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		top_note(s, "skipped %s: not a regular file", path);
		goto out;
	}
	/* Every valid page is a whole number of 256-byte records. */
	if ((uint64_t)st.st_size < sizeof(*h) ||
	    (uint64_t)st.st_size > xs_stats_page_size(XS_STATS_MAX_WORKERS) ||
	    st.st_size % sizeof(*h)) {
		top_note(s, "skipped %s: corrupt page (size %lld)", path, (long long)st.st_size);
		goto out;
	}
	pc.size = (size_t)st.st_size;
	pc.map = mmap(NULL, pc.size, PROT_READ, MAP_SHARED, fd, 0);
	if (pc.map == MAP_FAILED) {
		top_note(s, "skipped %s: %s", path, strerror(errno));
		goto out;
	}
	pc.buf = aligned_alloc(_Alignof(struct xs_stats_header), pc.size);
	if (!pc.buf) {
		top_note(s, "skipped %s: %s", path, strerror(ENOMEM));
		goto out;
	}
	if (top_guard(top_page_copy, &pc)) {
		top_note(s, "skipped %s: truncated while read (it had %lld bytes)", path,
			 (long long)st.st_size);
		goto out;
	}
	/* From here on, only the copy. */
	h = pc.buf;
	err = xs_stats_check_layout(h, pc.size);
	if (err) {
		top_note(s, "skipped %s: corrupt page (%s)", path, top_layout_why(err));
		goto out;
	}
	if (h->pid != name_pid || h->runtime_id != name_id ||
	    (st.st_uid != 0 && st.st_uid != h->uid)) {
		top_note(s, "skipped %s: corrupt page (pid, runtime or owner differ from its name)",
			 path);
		goto out;
	}
	if (!top_page_alive(h)) {
		if (!unlink(path))
			top_note(s, "removed %s: process %u is gone", path, h->pid);
		else if (errno != ENOENT)
			top_note(s, "stale %s: process %u is gone, cannot remove it: %s", path,
				 h->pid, strerror(errno));
		goto out;
	}
	procs = realloc(s->procs, (s->nprocs + 1) * sizeof(*procs));
	if (!procs)
		goto out;
	s->procs = procs;
	pr = &procs[s->nprocs];
	memset(pr, 0, sizeof(*pr));
	pr->w = calloc(h->nworkers, sizeof(*pr->w));
	pr->w_tasks_s = calloc(h->nworkers, sizeof(double));
	pr->w_idle_pct = calloc(h->nworkers, sizeof(double));
	if (!pr->w || !pr->w_tasks_s || !pr->w_idle_pct) {
		free(pr->w);
		free(pr->w_tasks_s);
		free(pr->w_idle_pct);
		goto out;
	}
	snprintf(pr->path, sizeof(pr->path), "%s", path);
	pr->h = *h;
	/* Inside the copy: xs_stats_check_layout() bounded the workers. */
	memcpy(pr->w, (const char *)pc.buf + h->worker_off, h->nworkers * sizeof(*pr->w));
	memcpy(pr->comm, pr->h.comm, 16);
	pr->comm[16] = '\0';
	for (char *c = pr->comm; *c; c++) /* shown on a terminal and in JSON */
		if ((unsigned char)*c < 0x20 || *c == '"' || *c == '\\' || *c == 0x7f)
			*c = '?';
	s->nprocs++;
out:
	free(pc.buf);
	if (pc.map != MAP_FAILED)
		munmap((void *)pc.map, pc.size);
	close(fd);
}

void top_pages_scan(struct top_snap *s, const char *dir, uint32_t pid)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[4200];

		if (strncmp(e->d_name, XS_STATS_PREFIX, strlen(XS_STATS_PREFIX)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		top_page_read(s, path, e->d_name, pid);
	}
	closedir(d);
}
