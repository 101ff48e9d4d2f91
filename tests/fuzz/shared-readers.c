// SPDX-License-Identifier: MIT
/*
 * shared-readers.c - fuzz the readers of shared pages while another thread
 * rewrites and truncates them (issue 31: every byte from shared memory is
 * untrusted, a file may shrink under its reader).
 *
 * Input: a mode byte, 16 bytes of a writer's schedule, then a file.
 *   mode & 1  the file is also xschedd's state (<dir>/state); else only a
 *             statistics page (xsched-stats.<our pid>.0, pid, uid made ours
 *             so that it is copied, not cleaned up)
 *   mode & 2  the file is also the page, when & 1 (the same bytes as both)
 *   mode & 4  the state's heartbeat is made fresh (so that the readers go
 *             past the staleness check)
 * The schedule is 8 operations of 2 bytes (kind, argument), which a writer
 * thread applies in a loop, to the page and the state in turn, for as long
 * as the readers run: set a byte (the argument picks it, in the first
 * 4 KiB, and its value), truncate the file (to argument x 64 bytes), grow
 * it back with its bytes, flip a bit of nworkers/worker_off or of ncpus/
 * share_count/share_off. A sequence made odd would be a write section that
 * never ends, which the readers wait out (XS_ABI_READ_WAIT_NS) before they
 * give up: time, not parsing; the writer keeps it even.
 *
 * The readers, each the real code: xsched-top's refresh (top_snap_take(),
 * its pages and its daemon state: mapped, copied under a SIGBUS guard),
 * the library's state reader (xs_abi_pread_header(), conn_state(),
 * rows(): pread), and the drop-in's share reader (xs_share_read()).
 * Promises: no crash (no SIGBUS, no read outside a buffer), every error is
 * one the reader documents, an accepted share is in range, every process
 * xsched-top shows has workers and printable names.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>

#include "fuzz.h"
#include "daemon/daemon_client.h"
#include "core/runtime.h"
#include "topo/topology.h"
#include "../../tools/xsched-top/top.h"

#define MAX_FILE (1u << 20)

static struct top_opts opts;
static FILE *sink;
static struct xs_runtime rt;
static char page_path[2048], state_path[2048];

/* The writer thread and the input it works on. run: the readers are
 * running, the writer goes on until it drops (seq_cst: commands, the
 * input is published by them); busy: the writer is inside its loop. */
static struct {
	pthread_t th;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t epoch, done_epoch;    /* under lock */
	_Atomic int run;
	uint8_t ops[16];
	const uint8_t *file;           /* the input's bytes */
	size_t size;
	int page_fd, state_fd;         /* rw, -1 when not used */
} w = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

/* Apply operation @k (2 bytes) to @fd holding the input's file. */
static void writer_op(int fd, const uint8_t *op, int state)
{
	uint8_t v = op[1];
	size_t at;

	switch (op[0] % 6) {
	case 0: /* set a byte */
		at = ((size_t)v * 16 + (op[0] >> 3)) % (w.size ? w.size : 1);
		if (at >= offsetof(struct xs_abi_header, seq) &&
		    at < offsetof(struct xs_abi_header, seq) + 8)
			v &= (uint8_t)(at == offsetof(struct xs_abi_header, seq) ? 0xfe : 0xff);
		if (pwrite(fd, &v, 1, (off_t)at) < 0)
			break;
		break;
	case 1: /* truncate */
		if (ftruncate(fd, (off_t)v * 64))
			break;
		break;
	case 2: /* grow back */
	case 3:
		if (ftruncate(fd, (off_t)w.size) ||
		    pwrite(fd, w.file, w.size, 0) != (ssize_t)w.size)
			break;
		if (state) { /* keep the sequence even, as written */
			uint64_t seq;

			if (pread(fd, &seq, 8, offsetof(struct xs_abi_header, seq)) == 8 &&
			    (seq & 1)) {
				seq &= ~1ull;
				if (pwrite(fd, &seq, 8, offsetof(struct xs_abi_header, seq)) < 0)
					break;
			}
		}
		break;
	case 4: { /* a count or an offset of the page, bit flipped */
		static const size_t f[] = { offsetof(struct xs_stats_header, nworkers),
					    offsetof(struct xs_stats_header, worker_off),
					    offsetof(struct xs_stats_header, total_size) };
		uint8_t b = (uint8_t)(1u << (v & 7));

		at = f[(v >> 3) % 3] + ((v >> 5) & 3);
		if (pread(fd, &v, 1, (off_t)at) == 1) {
			v ^= b;
			if (pwrite(fd, &v, 1, (off_t)at) < 0)
				break;
		}
		break;
	}
	default: { /* ... of the state */
		static const size_t f[] = { offsetof(struct xs_abi_header, ncpus),
					    offsetof(struct xs_abi_header, share_count),
					    offsetof(struct xs_abi_header, share_off),
					    offsetof(struct xs_abi_header, share_cpus) };
		uint8_t b = (uint8_t)(1u << (v & 7));

		at = f[(v >> 3) % 4] + ((v >> 5) & 3);
		if (pread(fd, &v, 1, (off_t)at) == 1) {
			v ^= b;
			if (pwrite(fd, &v, 1, (off_t)at) < 0)
				break;
		}
		break;
	}
	}
}

static void *writer(void *arg)
{
	uint64_t seen = 0;

	(void)arg;
	for (;;) {
		pthread_mutex_lock(&w.lock);
		while (w.epoch == seen)
			pthread_cond_wait(&w.cond, &w.lock);
		seen = w.epoch;
		pthread_mutex_unlock(&w.lock);
		for (unsigned i = 0; atomic_load(&w.run); i = (i + 2) % 16) {
			if (w.page_fd >= 0)
				writer_op(w.page_fd, &w.ops[i], 0);
			if (w.state_fd >= 0)
				writer_op(w.state_fd, &w.ops[(i + 8) % 16], 1);
		}
		pthread_mutex_lock(&w.lock);
		w.done_epoch = seen;
		pthread_cond_broadcast(&w.cond);
		pthread_mutex_unlock(&w.lock);
	}
	return NULL;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char root[4096];

	(void)argc;
	(void)argv;
	snprintf(opts.runtime_dir, sizeof(opts.runtime_dir), "%s", fuzz_tmpdir());
	snprintf(opts.shm_dir, sizeof(opts.shm_dir), "%s", fuzz_tmpdir());
	snprintf(page_path, sizeof(page_path), "%s/" XS_STATS_PREFIX "%u.0", fuzz_tmpdir(),
		 (unsigned)getpid());
	snprintf(state_path, sizeof(state_path), "%s/" XS_ABI_STATE_FILE, fuzz_tmpdir());
	sink = fopen("/dev/null", "w");
	snprintf(root, sizeof(root), "%s/tests/machines/2s2n4c", fuzz_srcdir());
	rt.topo = xs_topology_load(root);
	if (!sink || !rt.topo) {
		fprintf(stderr, "shared-readers: cannot open /dev/null or load %s\n", root);
		exit(1);
	}
	if (pthread_create(&w.th, NULL, writer, NULL))
		abort();
	return 0;
}

/* The library's state reader, as a connection and a poll use it. */
static void read_library(void)
{
	struct xs_daemon_client dc;
	struct xs_daemon_conn c;
	struct xs_abi_header hc;
	struct xs_victim_table *vt;
	struct stat st;
	int ret, err = 0, fd = open(state_path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	memset(&c, 0, sizeof(c));
	memset(&dc, 0, sizeof(dc));
	c.fd = c.workers_fd = -1;
	c.state_fd = fd;
	if (fstat(fd, &st) || (uint64_t)st.st_size < sizeof(hc))
		goto out;
	c.state_size = (size_t)st.st_size;
	ret = xs_abi_pread_header(fd, &hc);
	if (ret) {
		FUZZ_CHECK(ret == -EAGAIN || ret == -EBADMSG);
		goto out;
	}
	ret = xs_daemon_conn_state(&c, &rt, hc.nslots);
	if (ret) {
		FUZZ_CHECK(ret == -EAGAIN || ret == -EPROTO || ret == -EBADMSG || ret == -ENOMEM);
		goto out;
	}
	if (c.daemon_of && !xs_daemon_rows_alloc(&dc, &rt, &c) &&
	    !xs_abi_pread_header(fd, &hc) && !memcmp(&hc, c.layout, sizeof(c.layout))) {
		vt = xs_daemon_rows(&dc, &rt, &c, &hc, hc.seq, &err);
		if (vt) {
			FUZZ_CHECK(xs_victim_table_check(vt) == 0);
			xs_victim_table_free(vt);
		} else {
			FUZZ_CHECK(err == 0 || err == -EBADMSG || err == -EAGAIN ||
				   err == -ENOMEM);
		}
	}
	{
		/* The share reader, on the layout this connection checked. */
		struct xs_cpu_share s;
		const char *what = NULL;

		memset(&s, 0, sizeof(s));
		ret = xs_share_read(fd, c.state_size, c.layout, &s, &what);
		if (!ret) {
			FUZZ_CHECK(s.cpus >= 1 && s.cpus <= s.share_cpus);
			FUZZ_CHECK(s.source == XS_SHARE_DAEMON || s.source == XS_SHARE_NEWCOMER);
		} else {
			FUZZ_CHECK(ret == -EAGAIN || ret == -EBADMSG || ret == -ESTALE ||
				   ret == -ESHUTDOWN);
			FUZZ_CHECK(ret != -EBADMSG || what);
		}
	}
out:
	free(dc.scratch);
	free(dc.adopted);
	free(c.lib_of);
	free(c.daemon_of);
	close(fd);
}

static void read_top(void)
{
	struct top_snap a;

	top_snap_take(&a, &opts, NULL);
	for (size_t i = 0; i < a.nprocs; i++) {
		FUZZ_CHECK(a.procs[i].h.nworkers >= 1);
		for (const char *p = a.procs[i].comm; *p; p++)
			FUZZ_CHECK((unsigned char)*p >= 0x20 && *p != '"' && *p != '\\');
	}
	top_print_json(sink, &a);
	top_snap_free(&a);
}

static int open_file(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		abort();
	return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf;
	unsigned int mode;

	if (!sink)
		LLVMFuzzerInitialize(NULL, NULL);
	if (size < 17 || size - 17 > MAX_FILE)
		return 0;
	mode = data[0];
	memcpy(w.ops, data + 1, 16);
	size -= 17;
	buf = malloc(size ? size : 1);
	if (!buf)
		abort();
	memcpy(buf, data + 17, size);
	if (size >= sizeof(struct xs_stats_header) && (!(mode & 1) || (mode & 2))) {
		struct xs_stats_header h;

		memcpy(&h, buf, sizeof(h));
		h.pid = (uint32_t)getpid();
		h.pid_start = 0;
		h.uid = (uint32_t)getuid();
		h.runtime_id = 0;
		memcpy(buf, &h, sizeof(h));
	}
	if ((mode & 1) && size >= sizeof(struct xs_abi_header)) {
		struct xs_abi_header h;

		memcpy(&h, buf, sizeof(h));
		h.seq &= ~1ull; /* see the top */
		if (mode & 4)
			h.heartbeat_ns = xs_now_ns();
		memcpy(buf, &h, sizeof(h));
	}
	w.file = buf;
	w.size = size;
	w.page_fd = !(mode & 1) || (mode & 2) ? open_file(page_path, buf, size) : -1;
	w.state_fd = mode & 1 ? open_file(state_path, buf, size) : -1;

	/* The writer starts, the readers read, the writer stops. */
	atomic_store(&w.run, 1);
	pthread_mutex_lock(&w.lock);
	w.epoch++;
	pthread_cond_broadcast(&w.cond);
	pthread_mutex_unlock(&w.lock);
	read_top();
	if (mode & 1)
		read_library();
	atomic_store(&w.run, 0);
	pthread_mutex_lock(&w.lock);
	while (w.done_epoch != w.epoch)
		pthread_cond_wait(&w.cond, &w.lock);
	pthread_mutex_unlock(&w.lock);

	if (w.page_fd >= 0) {
		close(w.page_fd);
		unlink(page_path);
	}
	if (w.state_fd >= 0) {
		close(w.state_fd);
		unlink(state_path);
	}
	free(buf);
	return 0;
}
