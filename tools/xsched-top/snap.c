// SPDX-License-Identifier: MIT
/*
 * snap.c - one refresh of xsched-top, and the rates against the previous.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "top.h"

const char *const top_sort_names[TOP_SORT_N] = { "tasks/s", "steals/s", "idle%", "pid",
						  "command" };

static const char *const top_dlb_names[] = { "slb", "ws", "rp", "auto" };

const char *top_dlb_name(uint32_t dlb)
{
	return dlb < 4 ? top_dlb_names[dlb] : "?";
}

uint64_t top_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void top_format_time(uint64_t real_ns, char *buf, size_t len)
{
	time_t t = (time_t)(real_ns / 1000000000u);
	struct tm tm;
	char day[32];

	gmtime_r(&t, &tm);
	strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%03uZ", day, (unsigned)(real_ns / 1000000u % 1000u));
}

void top_note(struct top_snap *s, const char *fmt, ...)
{
	va_list ap;

	if (s->nnotes == TOP_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(s->notes[s->nnotes++], sizeof(s->notes[0]), fmt, ap);
	va_end(ap);
}

/* The same runtime in the previous refresh: same file, same creation. */
static const struct top_proc *top_prev_of(const struct top_snap *prev, const struct top_proc *p)
{
	for (size_t i = 0; prev && i < prev->nprocs; i++)
		if (prev->procs[i].h.created_ns == p->h.created_ns &&
		    !strcmp(prev->procs[i].path, p->path))
			return &prev->procs[i];
	return NULL;
}

static double top_rate(uint64_t now, uint64_t before, double dt)
{
	return dt > 0 && now >= before ? (double)(now - before) / dt : 0;
}

/* Totals of @p and its rates since @q (or since creation). */
static void top_proc_rates(struct top_proc *p, const struct top_proc *q)
{
	uint64_t t1 = p->h.published_ns, t0 = q ? q->h.published_ns : p->h.created_ns;
	double dt = t1 > t0 ? (double)(t1 - t0) / 1e9 : 0;
	uint64_t e0 = 0, c0 = 0, sl0 = 0, sr0 = 0, s0 = 0, h0 = 0, i0 = 0;

	for (uint32_t i = 0; i < p->h.nworkers; i++) {
		const struct xs_stats_worker *w = &p->w[i];
		const struct xs_stats_worker *v = q && q->h.nworkers == p->h.nworkers ? &q->w[i] : NULL;

		p->executed += w->tasks_executed;
		p->created += w->tasks_created;
		p->stolen_local += w->stolen_local;
		p->stolen_remote += w->stolen_remote;
		p->sent += w->requests_sent;
		p->handled += w->requests_handled;
		p->with_steal += w->requests_with_steal;
		p->immediate += w->immediate;
		p->queued += w->queue_depth;
		p->idle_ns += w->idle_ns;
		p->w_tasks_s[i] = top_rate(w->tasks_executed, v ? v->tasks_executed : 0, dt);
		p->w_idle_pct[i] = dt > 0 ? 100.0 * (double)(w->idle_ns - (v ? v->idle_ns : 0)) /
						    (dt * 1e9)
					  : 0;
		if (p->w_idle_pct[i] > 100)
			p->w_idle_pct[i] = 100;
		if (p->w_idle_pct[i] < 0 || (v && w->idle_ns < v->idle_ns))
			p->w_idle_pct[i] = 0;
	}
	if (q) {
		e0 = q->executed;
		c0 = q->created;
		sl0 = q->stolen_local;
		sr0 = q->stolen_remote;
		s0 = q->sent;
		h0 = q->handled;
		i0 = q->idle_ns;
	}
	p->tasks_s = top_rate(p->executed, e0, dt);
	p->created_s = top_rate(p->created, c0, dt);
	p->steals_local_s = top_rate(p->stolen_local, sl0, dt);
	p->steals_remote_s = top_rate(p->stolen_remote, sr0, dt);
	p->sent_s = top_rate(p->sent, s0, dt);
	p->handled_s = top_rate(p->handled, h0, dt);
	p->idle_pct = dt > 0 && p->idle_ns >= i0
			      ? 100.0 * (double)(p->idle_ns - i0) / (dt * 1e9 * p->h.nworkers)
			      : 0;
	if (p->idle_pct > 100)
		p->idle_pct = 100;
	p->immediate_ratio = p->executed ? (double)p->immediate / (double)p->executed : 0;
}

/* @p's entry in the daemon's share table, if it has one. */
static void top_proc_share(struct top_proc *p, const struct top_daemon *d)
{
	p->share_cpus = -1;
	p->share_running = 0;
	for (uint32_t i = 0; i < d->nshares; i++)
		if (d->shares[i].pid == p->h.pid) {
			p->share_cpus = d->shares[i].cpus;
			p->share_running = d->shares[i].running;
		}
}

void top_proc_free(struct top_proc *p)
{
	free(p->w);
	free(p->w_tasks_s);
	free(p->w_idle_pct);
}

/* Printable ASCII without quotes: what a terminal and JSON can take. */
static void top_printable(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e || *s == '"' || *s == '\\')
			*s = '?';
}

/*
 * The full command name of @p into p->cmd: comm, unless comm has the
 * kernel's full 15 characters (TASK_COMM_LEN - 1: maybe cut) and the base
 * name of argv[0] (/proc/<pid>/cmdline) or of the executable is longer and
 * starts with it. Both are the process's to set: untrusted, made printable,
 * and only taken when they extend the comm the page carries.
 */
static void top_proc_command(struct top_proc *p)
{
	char path[64], buf[4096], comm[sizeof(p->comm)];
	size_t n = strlen(p->comm);

	snprintf(comm, sizeof(comm), "%s", p->comm);
	top_printable(comm);
	snprintf(p->cmd, sizeof(p->cmd), "%s", comm);
	if (n < 15)
		return;
	for (int k = 0; k < 2; k++) {
		const char *base;
		ssize_t r;
		int fd;

		if (!k) {
			snprintf(path, sizeof(path), "/proc/%u/cmdline", p->h.pid);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				continue;
			r = read(fd, buf, sizeof(buf) - 1);
			close(fd);
		} else {
			snprintf(path, sizeof(path), "/proc/%u/exe", p->h.pid);
			r = readlink(path, buf, sizeof(buf) - 1);
		}
		if (r <= 0)
			continue;
		buf[r] = '\0'; /* argv[0] ends at its NUL */
		base = strrchr(buf, '/') ? strrchr(buf, '/') + 1 : buf;
		snprintf(p->cmd, sizeof(p->cmd), "%.*s", (int)sizeof(p->cmd) - 1, base);
		top_printable(p->cmd);
		if (strlen(p->cmd) > n && !strncmp(p->cmd, comm, n))
			return;
	}
	snprintf(p->cmd, sizeof(p->cmd), "%s", comm);
}

/* Whether -p asked for @pid (no -p: every process). */
static bool top_pid_wanted(const struct top_opts *o, uint32_t pid)
{
	for (size_t i = 0; i < o->npids; i++)
		if (o->pids[i] == pid)
			return true;
	return !o->npids;
}

bool top_proc_shown(const struct top_proc *p, const struct top_opts *o)
{
	char pid[16];

	if (!o->filter[0])
		return true;
	snprintf(pid, sizeof(pid), "%u", p->h.pid);
	return strcasestr(p->cmd, o->filter) || strcasestr(p->comm, o->filter) ||
	       strstr(pid, o->filter);
}

void top_snap_filter(struct top_snap *s, const struct top_opts *o)
{
	size_t kept = 0;

	for (size_t i = 0; i < s->nprocs; i++) {
		if (top_proc_shown(&s->procs[i], o))
			s->procs[kept++] = s->procs[i];
		else
			top_proc_free(&s->procs[i]);
	}
	s->nprocs = kept;
}

const char *top_human(char *buf, size_t len, double v, double base)
{
	static const char units[] = "KMGTPE";

	if (!(v >= 0)) /* NaN too */
		v = 0;
	if (v < 9999.5) {
		snprintf(buf, len, "%.0f", v);
		return buf;
	}
	for (int u = 0;; u++) {
		v /= base;
		if (v < 99.95) {
			snprintf(buf, len, "%.1f%c", v, units[u]);
			break;
		}
		if (v < 999.5 || !units[u + 1]) {
			snprintf(buf, len, "%.0f%c", v, units[u]);
			break;
		}
	}
	return buf;
}

/* Keys sorted highest first by default: rates and shares. */
static bool top_sort_desc(int key)
{
	return key == TOP_SORT_TASKS || key == TOP_SORT_STEALS || key == TOP_SORT_IDLE;
}

const char *top_sort_dir(const struct top_opts *o)
{
	return top_sort_desc(o->sort) != !!o->reverse ? "desc" : "asc";
}

int top_snap_take(struct top_snap *s, const struct top_opts *o, const struct top_snap *prev)
{
	size_t kept = 0;

	memset(s, 0, sizeof(*s));
	s->now_ns = top_now_ns();
	{
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		s->real_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	}
	top_daemon_read(s, o->runtime_dir);
	/* One pid is read alone; several are picked after a full scan. */
	top_pages_scan(s, o->runtime_dir, o->npids == 1 ? o->pids[0] : 0);
	if (strcmp(o->shm_dir, o->runtime_dir))
		top_pages_scan(s, o->shm_dir, o->npids == 1 ? o->pids[0] : 0);
	for (size_t i = 0; i < s->nprocs; i++) {
		if (!top_pid_wanted(o, s->procs[i].h.pid)) {
			top_proc_free(&s->procs[i]);
			continue;
		}
		s->procs[kept] = s->procs[i];
		top_proc_command(&s->procs[kept]);
		top_proc_share(&s->procs[kept], &s->d);
		top_proc_rates(&s->procs[kept], top_prev_of(prev, &s->procs[kept]));
		kept++;
	}
	s->nprocs = kept;
	top_jobs_take(s, prev);
	top_snap_sort(s, o->sort, o->reverse);
	return 0;
}

void top_snap_free(struct top_snap *s)
{
	for (size_t i = 0; i < s->nprocs; i++)
		top_proc_free(&s->procs[i]);
	free(s->procs);
	top_jobs_free(s);
	free(s->d.cpus);
	free(s->d.nodes);
	free(s->d.victims);
	free(s->d.shares);
	memset(s, 0, sizeof(*s));
}

static int top_sort_key, top_sort_reverse;

static int top_cmp_double(double a, double b)
{
	return a < b ? 1 : a > b ? -1 : 0; /* descending */
}

static int top_cmp(const void *pa, const void *pb)
{
	const struct top_proc *a = pa, *b = pb;
	int c = 0;

	switch (top_sort_key) {
	case TOP_SORT_TASKS: c = top_cmp_double(a->tasks_s, b->tasks_s); break;
	case TOP_SORT_STEALS:
		c = top_cmp_double(a->steals_local_s + a->steals_remote_s,
				   b->steals_local_s + b->steals_remote_s);
		break;
	case TOP_SORT_IDLE: c = top_cmp_double(a->idle_pct, b->idle_pct); break;
	case TOP_SORT_CMD: c = strcmp(a->cmd, b->cmd); break;
	default: break;
	}
	if (!c)
		c = a->h.pid < b->h.pid ? -1 : a->h.pid > b->h.pid ? 1 : 0;
	if (!c)
		c = a->h.runtime_id < b->h.runtime_id ? -1 : a->h.runtime_id > b->h.runtime_id;
	return top_sort_reverse ? -c : c;
}

void top_snap_sort(struct top_snap *s, int key, int reverse)
{
	top_sort_key = key;
	top_sort_reverse = reverse;
	if (s->nprocs > 1)
		qsort(s->procs, s->nprocs, sizeof(*s->procs), top_cmp);
}
