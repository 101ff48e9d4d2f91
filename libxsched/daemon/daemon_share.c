// SPDX-License-Identifier: MIT
/*
 * daemon_share.c - how many CPUs this process may use now: its share in
 * xschedd's arbitration (struct xs_abi_share, daemon/share.c), or, without
 * a usable daemon, libgomp's dyn-var rule.
 *
 * One reader per process, apart from the runtimes' connections (a share is
 * wanted before any runtime exists: the drop-in sizes a team before it
 * takes one): HELLO on the daemon's socket, the state file mapped
 * read-only, the connection kept (this reader registers nothing; the
 * runtimes register the workers the daemon counts, but the daemon counts a
 * process from its HELLO for its hold time, so that two programs started
 * together see each other before their first teams). Every call copies the
 * header and this process's entry under the seqlock, checks what it copied,
 * and answers. The state file is read with pread(), never mapped: whoever
 * runs the daemon can shrink it, and a mapping would then kill this process
 * with SIGBUS at its next parallel region; a short read is a corrupt state.
 * The first call after connecting waits for the daemon's next whole tick
 * (two generations, at most XS_SHARE_WAIT_TICKS ticks) so that the HELLO
 * is counted: once per process, up to two ticks (20 ms by default). A
 * mutex serialises callers: a call is a few system calls, once per
 * parallel region, and the descriptor can then be replaced (daemon
 * restarted) without a reader still using it.
 *
 * Fallbacks, each with its reason in struct xs_cpu_share:
 *   - XSCHED_DAEMON=off, no socket, a state that is stale or final: the
 *     load-average rule, silently (the daemon is optional);
 *   - a state that is corrupt or torn for good (layout changed, share
 *     count or CPU counts out of range, the seqlock never even): the same
 *     rule, and a message on stderr naming the file and what is wrong with
 *     it, once per distinct reason.
 * A failed connection is tried again at most every XS_DAEMON_RETRY_NS.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "daemon/daemon_client.h"
#include "base/options.h"
#include "core/runtime.h"

/* The first read after a HELLO waits for this many ticks at most, a tick
 * counted as the daemon's (10 ms if it says 0), 20 ms at most. */
#define XS_SHARE_WAIT_TICKS 3
#define XS_SHARE_TICK_NS 10000000ull
#define XS_SHARE_MAX_TICK_NS 20000000ull

static struct {
	pthread_mutex_t lock;
	bool loaded;                  /* options read */
	int64_t daemon_mode;          /* XSCHED_DAEMON */
	char dir[sizeof(((struct xs_options *)0)->runtime_dir)];
	int state_fd;                 /* the state file, read with pread(); -1: none */
	size_t state_size;
	int fd;                       /* the connection, kept: the daemon counts it */
	uint64_t hello_gen;           /* generation at HELLO; 0: its tick was seen */
	uint64_t tick_ns;
	unsigned char layout[2 * XS_ABI_CACHE_LINE]; /* the layout lines at connect */
	uint64_t last_attempt_ns;
	int last_said;                /* the last reason printed, 0: none */
} xs_share = { .lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1, .state_fd = -1 };

uint32_t xs_share_loadavg_rule(uint32_t ncpus, double loadavg)
{
	/* libgomp's gomp_dynamic_max_threads(): the CPUs less the load
	 * average plus 0.1 ("a kind of biased rounding"), at least 1. */
	double busy = loadavg + 0.1;

	if (!(busy >= 0)) /* NaN or negative: no load known */
		busy = 0;
	if (!ncpus)
		ncpus = 1;
	return busy >= (double)ncpus ? 1 : ncpus - (uint32_t)busy;
}

static uint32_t xs_share_fallback(struct xs_cpu_share *out, int why)
{
	double l[3];

	out->source = XS_SHARE_LOADAVG;
	out->err = why;
	/* libgomp takes the 15-minute average (dloadavg[2]). */
	out->cpus = xs_share_loadavg_rule(xs_affinity_cpus(),
					  getloadavg(l, 3) == 3 ? l[2] : 0.0);
	return out->cpus;
}

static void xs_share_drop(void)
{
	if (xs_share.state_fd >= 0)
		close(xs_share.state_fd);
	xs_share.state_fd = -1;
	if (xs_share.fd >= 0)
		close(xs_share.fd);
	xs_share.fd = -1;
}

/* HELLO, keep the state's descriptor, check its layout. 0 or -errno
 * (-ENOENT: no daemon). */
static int xs_share_connect(void)
{
	struct xs_daemon_hello h;
	struct xs_abi_header hc;
	const char *why;
	int ret;

	/* A daemon that accepts but does not answer costs a region this
	 * much (0.5 s), once per XS_DAEMON_RETRY_NS at most. */
	ret = xs_daemon_hello(xs_share.dir, 500000, &h, &why);
	if (ret)
		return ret;
	ret = xs_abi_pread_header(h.state_fd, &hc);
	if (!ret)
		ret = xs_abi_check_layout(&hc, h.state_size);
	if (!ret && hc.nslots != h.reply.nslots)
		ret = -EBADMSG;
	if (ret) {
		xs_daemon_hello_close(&h);
		return ret;
	}
	/* The worker states are the runtimes' business: only the state file
	 * and the socket (the daemon counts this process while it is open). */
	close(h.workers_fd);
	xs_share.state_fd = h.state_fd;
	xs_share.state_size = h.state_size;
	xs_share.fd = h.fd;
	memcpy(xs_share.layout, &hc, sizeof(xs_share.layout));
	xs_share.hello_gen = hc.generation ? hc.generation : 1;
	xs_share.tick_ns = hc.tick_ns;
	return 0;
}

/* Say once per distinct reason why a state that exists is not used. */
static void xs_share_say(int why, const char *what)
{
	if (why == xs_share.last_said)
		return;
	xs_share.last_said = why;
	fprintf(stderr,
		"xsched: xschedd state %s/" XS_ABI_STATE_FILE ": %s (%s); OMP_DYNAMIC team "
		"sizes from the load average until it is usable\n",
		xs_share.dir, what, strerror(-why));
}

/* daemon_client.h */
int xs_share_read(int fd, size_t size, const void *layout, struct xs_cpu_share *out,
		  const char **what)
{
	struct xs_abi_pread_share sc = { .size = size, .pid = (uint32_t)getpid() };
	int ret = xs_abi_pread_copy(fd, xs_abi_pread_share_copy, &sc, NULL);

	*what = NULL;
	if (ret == -EBADMSG) {
		*what = "shorter than its layout (truncated)";
		return -EBADMSG;
	}
	if (ret == -EAGAIN) {
		/* A daemon descheduled mid-write was waited for (abi.h). */
		*what = "torn: its seqlock never settled";
		return -EAGAIN;
	}
	if (ret) {
		*what = "cannot be read";
		return ret;
	}
	/* Checked on the consistent copy, never read again from the file. */
	if (sc.bad || memcmp(&sc.h, layout, 2 * XS_ABI_CACHE_LINE))
		*what = "its layout changed";
	else if (sc.h.share_count > sc.h.nshares)
		*what = "share_count exceeds nshares";
	else if (!sc.h.share_cpus || sc.h.share_cpus > sc.h.ncpus ||
		 sc.h.share_active > sc.h.share_count)
		*what = "share_cpus or share_active out of range";
	if (*what)
		return -EBADMSG;
	if (!xs_abi_fresh(sc.h.heartbeat_ns, sc.h.flags, xs_now_ns(),
			  xs_abi_max_age(sc.h.tick_ns)))
		return sc.h.flags & XS_ABI_F_EXITED ? -ESHUTDOWN : -ESTALE;
	if (sc.found && sc.mine.cpus > sc.h.share_cpus) {
		*what = "a share larger than share_cpus";
		return -EBADMSG;
	}
	out->err = 0;
	out->share_cpus = sc.h.share_cpus;
	out->active = sc.h.share_active;
	if (sc.found && sc.mine.cpus) {
		out->source = XS_SHARE_DAEMON;
		out->cpus = sc.mine.cpus;
	} else {
		/* Not counted now (new, or idle until now): a part as if every
		 * process listed were about to run too, until the next tick
		 * counts it. Programs started together are idle together just
		 * before: counting only the active ones, each would take all. */
		uint32_t others = sc.h.share_count - (sc.found ? 1 : 0);

		out->source = XS_SHARE_NEWCOMER;
		out->cpus = sc.h.share_cpus /
			    ((others > sc.h.share_active ? others : sc.h.share_active) + 1);
		if (!out->cpus)
			out->cpus = 1;
	}
	return 0;
}

uint32_t xs_daemon_share(struct xs_cpu_share *out)
{
	struct xs_cpu_share tmp;
	const char *what;
	uint64_t now;
	int ret;

	if (!out)
		out = &tmp;
	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&xs_share.lock);
	if (!xs_share.loaded) {
		struct xs_options *opt = malloc(sizeof(*opt));

		/* A bad XSCHED_* value was named on stderr by the table; the
		 * defaults stand for it here as they would not for a runtime. */
		if (opt && xs_options_load(opt) >= 0) {
			xs_share.daemon_mode = opt->daemon;
			snprintf(xs_share.dir, sizeof(xs_share.dir), "%s",
				 opt->runtime_dir[0] ? opt->runtime_dir
						     : XS_ABI_DEFAULT_RUNTIME_DIR);
		} else {
			snprintf(xs_share.dir, sizeof(xs_share.dir), "%s",
				 XS_ABI_DEFAULT_RUNTIME_DIR);
		}
		free(opt);
		xs_share.loaded = true;
	}
	if (xs_share.daemon_mode == XS_DAEMON_OFF) {
		xs_share_fallback(out, -ENOTCONN);
		goto out;
	}
	now = xs_now_ns();
	for (int pass = 0; pass < 2; pass++) {
		if (xs_share.state_fd < 0) {
			if (xs_share.last_attempt_ns &&
			    now - xs_share.last_attempt_ns < XS_DAEMON_RETRY_NS) {
				xs_share_fallback(out, -ENOTCONN);
				goto out;
			}
			xs_share.last_attempt_ns = now;
			ret = xs_share_connect();
			if (ret) {
				if (ret == -EBADMSG || ret == -EPROTO)
					xs_share_say(ret, ret == -EPROTO
								  ? "another daemon or ABI version"
								  : "its layout or HELLO reply is invalid");
				xs_share_fallback(out, ret);
				goto out;
			}
		}
		if (xs_share.hello_gen) {
			/* Our HELLO is counted from the daemon's next tick: wait
			 * for a whole one, three ticks (of 20 ms at most) at most. */
			uint64_t want = xs_share.hello_gen + 2, t = xs_share.tick_ns;
			uint64_t end;

			t = !t ? XS_SHARE_TICK_NS : t > XS_SHARE_MAX_TICK_NS ? XS_SHARE_MAX_TICK_NS : t;
			end = now + XS_SHARE_WAIT_TICKS * t;
			/* A count read alone (a copy, no ordering needed: the
			 * share itself is copied under the seqlock below); a
			 * file that cannot be read ends the wait, the read below
			 * says why. */
			for (;;) {
				uint64_t gen;

				if (xs_abi_pread(xs_share.state_fd, &gen, sizeof(gen),
						    offsetof(struct xs_abi_header, generation)) ||
				    gen >= want || xs_now_ns() >= end)
					break;
				usleep(500);
			}
			xs_share.hello_gen = 0;
		}
		ret = xs_share_read(xs_share.state_fd, xs_share.state_size, xs_share.layout, out,
				    &what);
		if (!ret) {
			xs_share.last_said = 0;
			goto out;
		}
		if (what)
			xs_share_say(ret, what);
		xs_share_drop();
		/* Stale or final: a restarted daemon may answer at once. */
		if (ret != -ESTALE && ret != -ESHUTDOWN)
			break;
		xs_share.last_attempt_ns = 0;
	}
	xs_share_fallback(out, ret);
out:
	pthread_mutex_unlock(&xs_share.lock);
	return out->cpus;
}

void xs_daemon_share_reset(void)
{
	pthread_mutex_lock(&xs_share.lock);
	xs_share_drop();
	xs_share.loaded = false;
	xs_share.last_attempt_ns = 0;
	xs_share.last_said = 0;
	pthread_mutex_unlock(&xs_share.lock);
}
