/* SPDX-License-Identifier: MIT */
/*
 * xsched/stats_page_file.h - the writer's side of a statistics page
 * (xsched/stats_page.h): where its file goes, how it is created and filled
 * before anyone can see it, how a publication ends, how it is removed.
 * Shared by libxsched's runtimes (libxsched/obs/stats_page.c) and
 * libxsched-mpi's ranks (libxsched/mpi/page.c); header-only, because
 * libxsched-mpi is interposed into MPI programs that may not use
 * libxsched and links nothing of it. Readers need only stats_page.h.
 *
 * The functions need POSIX.1-2008 (openat flags, fchmod(), mmap()): an
 * includer compiled as strict ISO C without _POSIX_C_SOURCE sees none of
 * them.
 */
#ifndef XSCHED_STATS_PAGE_FILE_H
#define XSCHED_STATS_PAGE_FILE_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "abi.h"
#include "proc_start.h"
#include "stats_page.h"

#if defined(_POSIX_C_SOURCE) && _POSIX_C_SOURCE >= 200809L

/* A page's file, as its writer holds it. Invariant: h is NULL or maps the
 * whole file, size bytes, read-write; only the process pid removes the
 * name (a child forked after creation inherits the struct, not the page). */
struct xs_stats_page_file {
	struct xs_stats_header *h;
	size_t size;
	pid_t pid;
	char path[4200];
};

/* The process's command, NUL-padded, for the header's comm. */
static inline void xs_stats_page_comm(__u8 comm[16])
{
	char buf[32] = "";
	int fd = open("/proc/self/comm", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	memset(comm, 0, 16);
	memcpy(comm, buf, strnlen(buf, 15));
}

/*
 * Create the page of @nworkers workers numbered @runtime_id for this
 * process: in xschedd's runtime directory @runtime_dir when the daemon
 * publishes there (its state file exists) and this process may write it
 * (XS_STATS_F_RUNTIME_DIR), else in /dev/shm; mode 0644, whatever the
 * umask. The file is created under a temporary name, sized, mapped, its
 * layout and identity written (magic to comm, period_ns, flags), then
 * @fill(h, @arg) writes the caller's part (created_ns, nnodes, the
 * workers' places, ...), and only then is it renamed into place: a reader
 * never sees a page whose layout is unwritten. Returns 0 with @f filled,
 * or -errno with f->path naming the page that could not be made.
 */
static inline int xs_stats_page_file_create(struct xs_stats_page_file *f,
					    const char *runtime_dir, __u32 runtime_id,
					    __u32 nworkers, __u64 period_ns,
					    void (*fill)(struct xs_stats_header *h, void *arg),
					    void *arg)
{
	char tmp[sizeof(f->path) + 8], state[sizeof(f->path)];
	struct xs_stats_header *h;
	const char *dir = runtime_dir;
	int fd, in_runtime_dir, err = 0;

	f->h = NULL;
	f->pid = getpid();
	f->size = (size_t)xs_stats_page_size(nworkers);
	snprintf(state, sizeof(state), "%s/" XS_ABI_STATE_FILE, runtime_dir);
	in_runtime_dir = !access(state, F_OK) && !access(runtime_dir, W_OK);
	if (!in_runtime_dir)
		dir = XS_STATS_SHM_DIR;
	snprintf(f->path, sizeof(f->path), "%s/" XS_STATS_PREFIX "%d.%u", dir, (int)f->pid,
		 runtime_id);
	snprintf(tmp, sizeof(tmp), "%s/." XS_STATS_PREFIX "%d.%u.tmp", dir, (int)f->pid,
		 runtime_id);
	unlink(tmp); /* our pid's: a leftover of a process that had it before */
	fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, 0644) || ftruncate(fd, (off_t)f->size)) {
		err = -errno;
		goto out;
	}
	h = (struct xs_stats_header *)mmap(NULL, f->size, PROT_READ | PROT_WRITE, MAP_SHARED,
					   fd, 0);
	if (h == MAP_FAILED) {
		err = -errno;
		goto out;
	}
	h->magic = XS_STATS_MAGIC;
	h->version = XS_STATS_VERSION;
	h->header_size = sizeof(*h);
	h->total_size = f->size;
	h->worker_off = sizeof(*h);
	h->worker_size = sizeof(struct xs_stats_worker);
	h->nworkers = nworkers;
	h->pid = (__u32)f->pid;
	h->pid_start = xs_proc_start_time(0);
	h->uid = (__u32)getuid();
	h->runtime_id = runtime_id;
	xs_stats_page_comm(h->comm);
	h->period_ns = period_ns;
	h->flags = in_runtime_dir ? XS_STATS_F_RUNTIME_DIR : 0;
	fill(h, arg);
	if (rename(tmp, f->path)) {
		err = -errno;
		munmap(h, f->size);
		goto out;
	}
	f->h = h;
out:
	close(fd);
	if (err)
		unlink(tmp);
	return err;
}

/*
 * The end of a publication: every field of it stored (relaxed, by the one
 * publisher thread), then the generation. Release: the publication's
 * fields before the new generation; pairs with the acquire load of it in
 * xs_stats_page_copy(), so a reader that sees this generation sees at
 * least these fields. The plain read of generation is the publisher's own
 * last store.
 */
static inline void xs_stats_page_published(struct xs_stats_header *h)
{
	__atomic_store_n(&h->generation, h->generation + 1, __ATOMIC_RELEASE);
}

/* Remove the page's name, when this process created it (an exit path;
 * a mapping stays valid for a publisher still running). */
static inline void xs_stats_page_file_unlink(const struct xs_stats_page_file *f)
{
	if (f->h && f->pid == getpid())
		unlink(f->path);
}

/* Remove and unmap the page; f->h is NULL after. */
static inline void xs_stats_page_file_close(struct xs_stats_page_file *f)
{
	if (!f->h)
		return;
	xs_stats_page_file_unlink(f);
	munmap(f->h, f->size);
	f->h = NULL;
}

#endif /* POSIX.1-2008 */
#endif /* XSCHED_STATS_PAGE_FILE_H */
