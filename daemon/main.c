// SPDX-License-Identifier: MIT
/*
 * main.c - xschedd: start-up in a straight line, then one io_uring loop.
 *
 *   options -> topology and static victim table -> BPF (or degraded mode)
 *   -> runtime directory, state file, socket -> drop capabilities -> loop
 *
 * The loop waits on four kinds of completion, each re-armed when it fires:
 * the tick (a timerfd read), signals (a signalfd read: TERM and INT end the
 * loop, HUP re-reads the settings), the listening socket (accept) and each
 * client (a receive of one request). Exit removes what was published.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <liburing.h>

#include "xschedd.h"

/* user_data of a completion: a tag in the low bits of a pointer or 0 */
enum { XSD_EV_TICK = 1, XSD_EV_SIGNAL = 2, XSD_EV_ACCEPT = 3, XSD_EV_CLIENT = 0 };
#define XSD_EV_MASK 7u

struct xsd_loop {
	struct io_uring ring;
	int timer_fd, signal_fd;
	uint64_t timer_buf;
	struct signalfd_siginfo sig_buf;
	bool stop;
	bool accept_paused;  /* accept failed: tried again at the next tick */
};

static struct xsd_ratelimit xsd_rl_accept;

static struct io_uring_sqe *xsd_sqe(struct xsd_loop *l)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&l->ring);

	if (!sqe) { /* the ring is full: hand what we have to the kernel */
		io_uring_submit(&l->ring);
		sqe = io_uring_get_sqe(&l->ring);
	}
	return sqe;
}

static void xsd_arm_read(struct xsd_loop *l, int fd, void *buf, unsigned int len,
			 uint64_t tag)
{
	struct io_uring_sqe *sqe = xsd_sqe(l);

	io_uring_prep_read(sqe, fd, buf, len, 0);
	io_uring_sqe_set_data64(sqe, tag);
}

static void xsd_arm_accept(struct xsd_loop *l, struct xsd *d)
{
	struct io_uring_sqe *sqe = xsd_sqe(l);

	io_uring_prep_accept(sqe, d->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	io_uring_sqe_set_data64(sqe, XSD_EV_ACCEPT);
}

static void xsd_arm_client(struct xsd_loop *l, struct xsd_client *c)
{
	struct io_uring_sqe *sqe = xsd_sqe(l);
	size_t len;
	void *buf = xsd_client_buf(c, &len);

	io_uring_prep_recv(sqe, xsd_client_fd(c), buf, len, 0);
	io_uring_sqe_set_data(sqe, c); /* malloc'd: low bits are 0 */
}

static void xsd_arm_client_cb(void *ctx, struct xsd_client *c)
{
	xsd_arm_client(ctx, c);
}

static int xsd_timer_set(struct xsd_loop *l, const struct xsd *d)
{
	struct itimerspec its = { 0 };
	uint64_t ns = (uint64_t)d->opt.tick_ms * 1000000u;

	its.it_interval.tv_sec = (time_t)(ns / 1000000000u);
	its.it_interval.tv_nsec = (long)(ns % 1000000000u);
	its.it_value = its.it_interval;
	return timerfd_settime(l->timer_fd, 0, &its, NULL) ? -errno : 0;
}

static void xsd_tick(struct xsd *d, struct xsd_loop *l)
{
	uint64_t now = xsd_now_ns();
	uint32_t *load = malloc(d->topo->ncpus * sizeof(*load));
	bool second = (d->ticks + 1) % (1000 / (uint64_t)d->opt.tick_ms + 1) == 0;

	xsd_sample_tick(d, now);
	xsd_shares_tick(d, now);
	if (load) {
		for (uint32_t i = 0; i < d->topo->ncpus; i++)
			load[i] = d->cpu[i].foreign;
		xsd_victims_reweight(d->base, load, d->load_level, d->rows);
		free(load);
	}
	if (++d->ticks % (1000 / (uint64_t)d->opt.tick_ms + 1) == 0)
		xsd_clients_reap_dead_tids(d);
	xsd_clients_tick(d, now, second, xsd_arm_client_cb, l);
	/* Each tick that is due pings: a loop that hangs stops the pings and
	 * systemd restarts us (WatchdogSec=). */
	if (d->watchdog_ns && now - d->watchdog_last_ns >= d->watchdog_ns / 2) {
		xsd_notify("WATCHDOG=1");
		d->watchdog_last_ns = now;
	}
	if (l->accept_paused) {
		l->accept_paused = false;
		xsd_arm_accept(l, d);
	}
	xsd_state_publish(d, xsd_now_ns());
}

/* WATCHDOG_USEC (sd_watchdog_enabled(3)) in ns, 0: no watchdog or not
 * ours (WATCHDOG_PID names another process). */
static uint64_t xsd_watchdog_ns(void)
{
	const char *us = getenv("WATCHDOG_USEC"), *pid = getenv("WATCHDOG_PID");
	unsigned long long v;
	char *end;

	if (!us || !*us)
		return 0;
	if (pid && *pid && strtol(pid, NULL, 10) != (long)getpid())
		return 0;
	errno = 0;
	v = strtoull(us, &end, 10);
	if (errno || *end || !v || v > UINT64_MAX / 1000u) {
		xsd_log_at(XSD_LOG_WARNING, "WATCHDOG_USEC=\"%s\": not a period: no watchdog "
			   "pings\n", us);
		return 0;
	}
	return v * 1000u;
}

/* STATUS= for `systemctl status`: what the daemon does now. */
static void xsd_notify_status(const struct xsd *d)
{
	char msg[128];

	snprintf(msg, sizeof(msg), "READY=1\nSTATUS=publishing every %lld ms, %s mode",
		 (long long)d->opt.tick_ms, d->mode == XS_ABI_MODE_BPF ? "BPF" : "degraded");
	xsd_notify(msg);
}

/* HUP: settings that can change while running are taken, the others
 * need a restart and are reported. */
static void xsd_reload(struct xsd *d, struct xsd_loop *l)
{
	struct xsd_options o;

	if (xsd_options_load(&d->cl, &o)) {
		xsd_log("SIGHUP: settings not changed (errors above)\n");
		xsd_notify("STATUS=reload refused: a bad setting (see the journal); old settings "
			   "in effect");
		return;
	}
	if (strcmp(o.runtime_dir, d->opt.runtime_dir) || o.slots != d->opt.slots ||
	    o.bpf != d->opt.bpf || strcmp(o.sysfs_root, d->opt.sysfs_root) ||
	    o.socket_mode != d->opt.socket_mode)
		xsd_log("SIGHUP: XSCHEDD_RUNTIME_DIR, _SLOTS, _BPF, _SOCKET_MODE and "
			"_SYSFS_ROOT change only on restart\n");
	d->opt.tick_ms = o.tick_ms;
	d->opt.decay = o.decay;
	d->opt.share_hold_ms = o.share_hold_ms;
	d->opt.share_foreign = o.share_foreign;
	d->opt.client_slots = o.client_slots;
	d->opt.max_clients = o.max_clients;
	d->opt.user_slots = o.user_slots;
	d->opt.user_clients = o.user_clients;
	d->opt.user_rate = o.user_rate;
	d->opt.client_idle_ms = o.client_idle_ms;
	d->opt.verbose = o.verbose;
	xsd_timer_set(l, d);
	xsd_log("SIGHUP: settings re-read (tick %lld ms, decay %lld%%, %lld slots per "
		"client)\n", (long long)o.tick_ms, (long long)o.decay,
		(long long)o.client_slots);
	xsd_notify_status(d);
}

static int xsd_loop_run(struct xsd *d, struct xsd_loop *l)
{
	struct io_uring_cqe *cqe;
	int ret;

	xsd_arm_read(l, l->timer_fd, &l->timer_buf, sizeof(l->timer_buf), XSD_EV_TICK);
	xsd_arm_read(l, l->signal_fd, &l->sig_buf, sizeof(l->sig_buf), XSD_EV_SIGNAL);
	xsd_arm_accept(l, d);
	while (!l->stop) {
		ret = io_uring_submit_and_wait(&l->ring, 1);
		if (ret < 0 && ret != -EINTR) {
			xsd_log("io_uring: %s\n", strerror(-ret));
			return ret;
		}
		while (io_uring_peek_cqe(&l->ring, &cqe) == 0) {
			uint64_t tag = io_uring_cqe_get_data64(cqe);
			int res = cqe->res;

			io_uring_cqe_seen(&l->ring, cqe);
			switch (tag & XSD_EV_MASK ? tag : XSD_EV_CLIENT) {
			case XSD_EV_TICK:
				xsd_tick(d, l);
				xsd_arm_read(l, l->timer_fd, &l->timer_buf,
					     sizeof(l->timer_buf), XSD_EV_TICK);
				break;
			case XSD_EV_SIGNAL:
				if (res == sizeof(l->sig_buf)) {
					if (l->sig_buf.ssi_signo == SIGHUP) {
						xsd_reload(d, l);
					} else {
						xsd_log("%s: exiting\n",
							strsignal((int)l->sig_buf.ssi_signo));
						l->stop = true;
					}
				}
				xsd_arm_read(l, l->signal_fd, &l->sig_buf,
					     sizeof(l->sig_buf), XSD_EV_SIGNAL);
				break;
			case XSD_EV_ACCEPT:
				if (res >= 0) {
					struct xsd_client *c = xsd_client_new(d, res);

					if (c)
						xsd_arm_client(l, c);
				} else if (res != -EINTR && res != -ECONNABORTED) {
					/* EMFILE and the like do not pass by
					 * themselves: retrying at once would spin.
					 * The next tick tries again; the backlog
					 * waits. */
					xsd_log_limited(&xsd_rl_accept, XSD_LOG_WARNING,
							"accept: %s: accepting again at the next "
							"tick\n", strerror(-res));
					l->accept_paused = true;
					break;
				}
				xsd_arm_accept(l, d);
				break;
			default: {
				struct xsd_client *c = (struct xsd_client *)(uintptr_t)tag;

				if (xsd_client_input(d, c, res) == 0)
					xsd_arm_client(l, c);
				break;
			}
			}
		}
	}
	return 0;
}

/*
 * The runtime directory: created 0755 if missing; else it must be a
 * directory (not a link to one) owned by the daemon's user that no one
 * else may write, since whoever can write it could replace the socket or
 * swap a file for a symlink between two of our calls. Then one daemon per
 * directory: an flock() on <dir>/lock, held until exit.
 */
static int xsd_runtime_dir(struct xsd *d)
{
	const char *dir = d->opt.runtime_dir;
	char lock[PATH_MAX + 8];
	struct stat st;
	int fd;

	if (!mkdir(dir, 0755))
		d->created_dir = true;
	else if (errno != EEXIST)
		goto fail_errno;
	if (lstat(dir, &st))
		goto fail_errno;
	if (!S_ISDIR(st.st_mode)) {
		xsd_log_at(XSD_LOG_ERR, "XSCHEDD_RUNTIME_DIR=\"%s\": not a directory%s\n", dir,
			   S_ISLNK(st.st_mode) ? " (a symbolic link)" : "");
		return -ENOTDIR;
	}
	if (st.st_uid != geteuid()) {
		xsd_log_at(XSD_LOG_ERR,
			   "XSCHEDD_RUNTIME_DIR=\"%s\" is owned by uid %u, not by xschedd's uid "
			   "%u: refused (its owner could replace the socket)\n",
			   dir, (unsigned int)st.st_uid, (unsigned int)geteuid());
		return -EPERM;
	}
	if (st.st_mode & 022) {
		xsd_log_at(XSD_LOG_ERR,
			   "XSCHEDD_RUNTIME_DIR=\"%s\" is writable by its group or others (mode "
			   "%04o): refused (they could replace the socket); chmod go-w it\n",
			   dir, (unsigned int)(st.st_mode & 07777));
		return -EPERM;
	}
	snprintf(lock, sizeof(lock), "%s/lock", dir);
	fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		xsd_log_at(XSD_LOG_ERR, "%s: %s\n", lock, strerror(errno));
		return -errno;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int err = errno;

		xsd_log_at(XSD_LOG_ERR, "%s: %s\n", lock,
			   err == EWOULDBLOCK ? "another xschedd runs on this directory" :
			   strerror(err));
		close(fd);
		d->created_dir = false;
		return -EBUSY;
	}
	d->lock_fd = fd;
	return 0;

fail_errno:
	xsd_log_at(XSD_LOG_ERR, "XSCHEDD_RUNTIME_DIR=\"%s\": %s\n", dir, strerror(errno));
	return -errno;
}

int main(int argc, char **argv)
{
	struct xsd d = { .state_fd = -1, .state_ro_fd = -1, .workers_fd = -1,
			 .workers_ro_fd = -1, .listen_fd = -1, .lock_fd = -1 };
	struct xsd_loop l = { .timer_fd = -1, .signal_fd = -1 };
	bool ring = false;
	sigset_t mask;
	char path[PATH_MAX + sizeof(XS_ABI_SOCKET_FILE) + 1];
	int ret;

	setvbuf(stderr, NULL, _IOLBF, 0);
	ret = xsd_cmdline_parse(argc, argv, &d.cl);
	if (ret)
		return ret > 0 ? 0 : 2;
	if (xsd_options_load(&d.cl, &d.opt))
		return 2;
	if (d.opt.verbose)
		xsd_options_dump(&d.opt);
	d.nslots = (uint32_t)d.opt.slots;

	d.topo = xs_topology_load(*d.opt.sysfs_root ? d.opt.sysfs_root : NULL);
	d.base = d.topo ? xs_victim_table_build(d.topo) : NULL;
	if (!d.topo || !d.base || xsd_slots_init(&d)) {
		xsd_log("topology: %s\n", strerror(errno));
		ret = -ENOMEM;
		goto out;
	}
	d.rows = calloc((size_t)d.base->ncpus * (d.base->row_len ? d.base->row_len : 1),
			sizeof(*d.rows));
	d.load_level = malloc(d.topo->ncpus);
	ret = d.rows && d.load_level ? xsd_sample_init(&d) : -ENOMEM;
	if (!ret)
		ret = xsd_shares_init(&d);
	if (ret)
		goto out;
	memset(d.load_level, 0xff, d.topo->ncpus);
	if (d.base->row_len) /* the static table until the first tick */
		memcpy(d.rows, d.base->victims,
		       (size_t)d.base->ncpus * d.base->row_len * sizeof(*d.rows));

	ret = -1;
	if (d.opt.bpf != XSD_BPF_OFF)
		ret = xsd_bpf_start(&d);
	if (ret && d.opt.bpf == XSD_BPF_ON) {
		xsd_log("XSCHEDD_BPF=on but the BPF programs did not load: exiting\n");
		goto out;
	}
	d.mode = ret ? XS_ABI_MODE_DEGRADED : XS_ABI_MODE_BPF;
	if (d.mode == XS_ABI_MODE_DEGRADED)
		xsd_log("degraded mode: %s; load from /proc/stat and /proc/schedstat, "
			"worker state from /proc every tick\n",
			d.opt.bpf == XSD_BPF_OFF ? "XSCHEDD_BPF=off" : "no BPF");

	ret = xsd_runtime_dir(&d);
	if (!ret && d.mode == XS_ABI_MODE_DEGRADED)
		ret = xsd_workers_file_create(&d);
	if (!ret)
		ret = xsd_state_create(&d);
	if (!ret)
		ret = xsd_socket_open(&d);
	if (ret)
		goto out;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	signal(SIGPIPE, SIG_IGN);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	l.signal_fd = signalfd(-1, &mask, SFD_CLOEXEC);
	l.timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (l.signal_fd < 0 || l.timer_fd < 0 || xsd_timer_set(&l, &d)) {
		ret = -errno;
		xsd_log("signalfd/timerfd: %s\n", strerror(errno));
		goto out;
	}
	ret = io_uring_queue_init(256, &l.ring, 0);
	if (!ret)
		xsd_fd_budget(&d); /* everything the daemon keeps is open now */
	if (ret) {
		xsd_log("io_uring: %s\n", strerror(-ret));
		goto out;
	}
	ring = true;

	ret = xsd_caps_drop(d.mode == XS_ABI_MODE_BPF);
	if (ret)
		goto out;
	xsd_log("publishing %s/%s every %lld ms (%s mode, %u CPUs, %u nodes, %u slots)\n",
		d.opt.runtime_dir, XS_ABI_STATE_FILE, (long long)d.opt.tick_ms,
		d.mode == XS_ABI_MODE_BPF ? "BPF" : "degraded", d.topo->ncpus, d.topo->nnodes,
		d.nslots);
	if (!d.cl.foreground && daemon(1, 1)) {
		ret = -errno;
		goto out;
	}
	d.watchdog_ns = xsd_watchdog_ns();
	xsd_notify_status(&d);
	ret = xsd_loop_run(&d, &l);
	xsd_notify("STOPPING=1");

out:
	if (ring)
		io_uring_queue_exit(&l.ring);
	xsd_client_close_all(&d);
	if (d.listen_fd >= 0) {
		close(d.listen_fd);
		snprintf(path, sizeof(path), "%s/%s", d.opt.runtime_dir, XS_ABI_SOCKET_FILE);
		unlink(path);
	}
	xsd_state_remove(&d);
	if (d.lock_fd >= 0 && d.created_dir) {
		/* the directory goes: its lock with it, still held */
		snprintf(path, sizeof(path), "%s/lock", d.opt.runtime_dir);
		unlink(path);
	}
	if (d.created_dir)
		rmdir(d.opt.runtime_dir);
	if (d.lock_fd >= 0)
		close(d.lock_fd);
	xsd_bpf_stop(&d);
	if (l.timer_fd >= 0)
		close(l.timer_fd);
	if (l.signal_fd >= 0)
		close(l.signal_fd);
	free(d.cpu);
	free(d.wticks);
	free(d.wticks_moved);
	xsd_shares_free(&d);
	free(d.rows);
	free(d.load_level);
	xsd_slots_free(&d);
	xs_victim_table_free(d.base);
	xs_topology_free(d.topo);
	return ret ? 1 : 0;
}
