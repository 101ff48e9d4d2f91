// SPDX-License-Identifier: MIT
/*
 * tui.c - xsched-top's screen (ncurses): a header, per-CPU bars grouped by
 * node, the process table; a process's workers, a CPU's victim table and
 * the help screen as views of their own. Keys are on the help screen.
 */
#include <curses.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "top.h"

enum top_view { VIEW_MAIN, VIEW_DETAIL, VIEW_CPU, VIEW_JOBS, VIEW_HELP };

struct top_ui {
	struct top_opts *o;
	struct top_snap snap, prev;
	enum top_view view, back;
	int paused;
	uint32_t sel_pid, sel_rt;       /* selected process, by identity */
	size_t sel;                     /* its index in snap.procs */
	uint32_t cpu;                   /* CPU view: index into d.cpus */
	char msg[160];                  /* message on the last line ... */
	uint64_t msg_until;             /* ... until then (top_now_ns()) */
	int typing;                     /* the / prompt is open: it owns the last line */
};

/* Screens narrower than this get the compact tables (80 columns fit). */
#define TOP_WIDE_COLS 110

/* Line @y from column 0, cut at the screen's width: nothing wraps. */
static void top_put(int y, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void top_put(int y, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (y >= LINES)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	mvaddnstr(y, 0, line, COLS);
}

static void top_message(struct top_ui *u, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void top_message(struct top_ui *u, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(u->msg, sizeof(u->msg), fmt, ap);
	va_end(ap);
	u->msg_until = top_now_ns() + 3000000000u;
}

static void top_refresh_snap(struct top_ui *u)
{
	top_snap_free(&u->prev);
	u->prev = u->snap;
	top_snap_take(&u->snap, u->o, &u->prev);
}

static bool top_shown(struct top_ui *u, size_t i)
{
	return i < u->snap.nprocs && top_proc_shown(&u->snap.procs[i], u->o);
}

/* The shown process after (@dir 1) or before (-1) @i, or @i. */
static size_t top_step(struct top_ui *u, size_t i, int dir)
{
	for (size_t j = i; dir > 0 ? j + 1 < u->snap.nprocs : j > 0;) {
		j = dir > 0 ? j + 1 : j - 1;
		if (top_shown(u, j))
			return j;
	}
	return i;
}

/* Keep the selection on the same process across refreshes, sorts and
 * filters; when it has gone or is filtered out, the nearest shown one. */
static void top_fix_selection(struct top_ui *u)
{
	size_t i;

	for (i = 0; i < u->snap.nprocs; i++)
		if (u->snap.procs[i].h.pid == u->sel_pid && u->snap.procs[i].h.runtime_id == u->sel_rt)
			break;
	if (i == u->snap.nprocs)
		i = u->sel < u->snap.nprocs ? u->sel : u->snap.nprocs ? u->snap.nprocs - 1 : 0;
	if (!top_shown(u, i)) {
		size_t j = top_step(u, i, -1);

		i = top_shown(u, j) ? j : top_step(u, i, 1);
	}
	u->sel = i;
	if (i < u->snap.nprocs) {
		u->sel_pid = u->snap.procs[i].h.pid;
		u->sel_rt = u->snap.procs[i].h.runtime_id;
	}
}

static size_t top_nshown(struct top_ui *u)
{
	size_t n = 0;

	for (size_t i = 0; i < u->snap.nprocs; i++)
		n += top_shown(u, i);
	return n;
}

static void top_header(struct top_ui *u, int *y)
{
	const struct top_daemon *d = &u->snap.d;
	char fr[16], tot[16], filter[48] = "";

	/* Two or three lines of at most ~75 columns: an 80-column
	 * terminal shows them whole. */
	attron(A_BOLD);
	if (d->present)
		top_put((*y)++, "xsched-top  daemon %s (pid %u), %u CPUs, %u nodes", d->mode,
			d->pid, d->ncpus, d->nnodes);
	else
		top_put((*y)++, "xsched-top  daemon absent: showing what processes publish");
	attroff(A_BOLD);
	/* One node: its memory here; several: on each node's line. */
	if (d->present && d->nnodes == 1)
		top_put((*y)++, "  tick %.0f ms, heartbeat %.2f s ago%s, memory free %s of %s",
			d->tick_ns / 1e6, d->heartbeat_age_ns / 1e9, d->fresh ? "" : " (stale)",
			top_human(fr, sizeof(fr), d->nodes[0].mem_free_kib * 1024.0, 1024),
			top_human(tot, sizeof(tot), d->nodes[0].mem_total_kib * 1024.0, 1024));
	else if (d->present)
		top_put((*y)++, "  tick %.0f ms, heartbeat %.2f s ago%s", d->tick_ns / 1e6,
			d->heartbeat_age_ns / 1e9, d->fresh ? "" : " (stale)");
	else
		top_put((*y)++, "  (%s)", d->why);
	if (u->o->filter[0])
		snprintf(filter, sizeof(filter), "  /%.12s%s", u->o->filter,
			 strlen(u->o->filter) > 12 ? "~" : "");
	if (d->nshares)
		top_put((*y)++, "  CPU shares: %u CPUs for xsched processes, divided among %u",
			d->share_cpus, d->share_active);
	top_put((*y)++, "delay %.1f s  sort %s %s%s%s  %zu processes   h help  q quit",
		u->o->delay_s, top_sort_names[u->o->sort], top_sort_dir(u->o),
		u->paused ? "  [paused]" : "", filter, top_nshown(u));
}

/* One bar of @width: xsched workers '#', other tasks '=', idle '.'. */
static void top_bar(int y, int x, int width, const struct xs_abi_cpu *c)
{
	int xs = (int)((long)c->worker_permille * width / 1000);
	int other = (int)((long)c->foreign_permille * width / 1000);

	if (xs > width)
		xs = width;
	if (other > width - xs)
		other = width - xs;
	mvaddch(y, x, '[');
	for (int i = 0; i < width; i++)
		addch(i < xs ? '#' | COLOR_PAIR(1) : i < xs + other ? '=' | COLOR_PAIR(2) : '.');
	addch(']');
}

static void top_cpus(struct top_ui *u, int *y, int max_rows)
{
	const struct top_daemon *d = &u->snap.d;
	int shown = 0, width = COLS > 100 ? 40 : 20;

	if (!d->present)
		return;
	/* The legend in the bar's width, the numbers' names over them. */
	mvprintw((*y)++, 0, "CPU   %-*s %7s %7s %7s %7s", width + 2,
		 width >= 30 ? "bar: # xsched  = other  . idle" : "#xsched =other .idle", "XSCHED%",
		 "OTHER%", "IDLE%", "RQLAT");
	for (uint32_t n = 0; n <= d->nnodes; n++) {
		bool header = false;

		for (uint32_t i = 0; i < d->ncpus; i++) {
			const struct xs_abi_cpu *c = &d->cpus[i];

			if (n < d->nnodes ? c->node != n : c->node < d->nnodes)
				continue;
			if (shown == max_rows) {
				mvprintw((*y)++, 0, "  ... %u more CPUs", d->ncpus - (uint32_t)shown);
				return;
			}
			if (!header && d->nnodes > 1 && n < d->nnodes) {
				char fr[16], tot[16];

				mvprintw((*y)++, 0, "node %u  memory free %s of %s", d->nodes[n].node,
					 top_human(fr, sizeof(fr), d->nodes[n].mem_free_kib * 1024.0,
						   1024),
					 top_human(tot, sizeof(tot),
						   d->nodes[n].mem_total_kib * 1024.0, 1024));
				header = true;
			} else if (!header && d->nnodes > 1) {
				mvprintw((*y)++, 0, "node ?");
				header = true;
			}
			mvprintw(*y, 0, "%-5u", c->cpu);
			top_bar(*y, 6, width, c);
			printw(" %7.1f %7.1f %7.1f %5uus", c->worker_permille / 10.0,
			       c->foreign_permille / 10.0, c->idle_permille / 10.0, c->rq_latency_us);
			(*y)++;
			shown++;
		}
	}
}

/* @p's CPU share (CPUs, or - without one) through @fmt, a "%s" format. */
static void top_share(char *buf, size_t len, const char *fmt, const struct top_proc *p)
{
	char n[16] = "-";

	if (p->share_cpus >= 0)
		top_human(n, sizeof(n), (double)p->share_cpus, 1000);
	snprintf(buf, len, fmt, n);
}

/* The columns of a process row other than COMMAND, and its widest. */
#define TOP_ROW_FIXED 64
#define TOP_ROW_SHARE 4
#define TOP_ROW_TOTALS 30
#define TOP_CMD_MAX 127

static void top_procs(struct top_ui *u, int *y)
{
	bool wide = COLS >= TOP_WIDE_COLS;
	int cmd_w = 12, room = COLS - TOP_ROW_FIXED - (wide ? TOP_ROW_SHARE + TOP_ROW_TOTALS : 0);
	size_t shown = 0;

	/* COMMAND is as wide as the longest name shown, if the screen has
	 * room: 80 columns give it 16, 200 give it 102. Wide screens also
	 * show SHR, the CPU share (an 80-column screen: the detail view). */
	for (size_t i = 0; i < u->snap.nprocs; i++) {
		int n = (int)strlen(u->snap.procs[i].cmd);

		if (top_shown(u, i) && n > cmd_w)
			cmd_w = n;
	}
	if (cmd_w > room)
		cmd_w = room > 12 ? room : 12;
	if (cmd_w > TOP_CMD_MAX)
		cmd_w = TOP_CMD_MAX;
	attron(A_BOLD);
	top_put((*y)++, "%-8s %-2s %-*s %3s%s %9s %9s %9s %5s %5s %-4s%s", "PID", "RT", cmd_w,
		"COMMAND", "WRK", wide ? " SHR" : "", "TASKS/S", "STEAL_L/S", "STEAL_R/S", "IMM%",
		"IDLE%", "DLB", wide ? "  REQ_SENT_TOTAL REQ_HNDL_TOTAL" : "");
	attroff(A_BOLD);
	for (size_t i = 0; i < u->snap.nprocs && *y < LINES - 1; i++) {
		const struct top_proc *p = &u->snap.procs[i];
		char totals[64] = "", t[16], sl[16], sr[16], rs[16], rh[16], sh[16] = "";

		if (!top_shown(u, i))
			continue;
		shown++;
		if (wide)
			top_share(sh, sizeof(sh), " %3s", p);
		if (wide)
			snprintf(totals, sizeof(totals), "  %14s %14s",
				 top_human(rs, sizeof(rs), (double)p->sent, 1000),
				 top_human(rh, sizeof(rh), (double)p->handled, 1000));
		if (i == u->sel)
			attron(A_REVERSE);
		top_put((*y)++, "%-8u %-2u %-*.*s %3u%s %9s %9s %9s %5.1f %5.1f %-4s%s", p->h.pid,
			p->h.runtime_id, cmd_w, cmd_w, p->cmd, p->h.nworkers, sh,
			top_human(t, sizeof(t), p->tasks_s, 1000),
			top_human(sl, sizeof(sl), p->steals_local_s, 1000),
			top_human(sr, sizeof(sr), p->steals_remote_s, 1000), 100 * p->immediate_ratio,
			p->idle_pct, top_dlb_name(p->h.dlb), totals);
		if (i == u->sel)
			attroff(A_REVERSE);
	}
	if (!u->snap.nprocs)
		top_put((*y)++, "(no xsched processes publish statistics)");
	else if (!shown)
		top_put((*y)++, "(no process matches the filter '%s'; Esc clears it)", u->o->filter);
}

static void top_notes(struct top_ui *u)
{
	if (u->typing) {
		top_put(LINES - 1, "filter (Enter: keep, Esc: clear): %s", u->o->filter);
		curs_set(1);
	} else if (u->msg[0] && top_now_ns() < u->msg_until) {
		attron(A_BOLD);
		top_put(LINES - 1, "%s", u->msg);
		attroff(A_BOLD);
	} else if (u->snap.nnotes) {
		top_put(LINES - 1, "note: %s%s", u->snap.notes[0],
			u->snap.nnotes > 1 ? " (and more)" : "");
	}
}

static void top_draw_main(struct top_ui *u)
{
	int y = 0, cpu_rows = LINES / 2 - 4;

	top_header(u, &y);
	y++;
	if (cpu_rows < 1)
		cpu_rows = 1;
	top_cpus(u, &y, cpu_rows);
	if (u->snap.d.present)
		y++;
	top_procs(u, &y);
}

static void top_draw_detail(struct top_ui *u)
{
	const struct top_proc *p;
	char share[32];
	int y = 0;

	if (u->sel >= u->snap.nprocs) {
		mvprintw(0, 0, "process %u has gone; Esc: back", u->sel_pid);
		return;
	}
	p = &u->snap.procs[u->sel];
	top_share(share, sizeof(share), "CPU share %s   ", p);
	attron(A_BOLD);
	top_put(y++, "workers of %u (%s), runtime %u: %u workers, dlb %s, %llu jobs%s", p->h.pid,
		p->cmd, p->h.runtime_id, p->h.nworkers, top_dlb_name(p->h.dlb),
		(unsigned long long)p->h.jobs, p->h.flags & XS_STATS_F_DAEMON ? ", with xschedd" : "");
	attroff(A_BOLD);
	top_put(y++, "%sEsc: back   h help   q quit", p->share_cpus >= 0 ? share : "");
	y++;
	/* Counts are totals since the runtime started; TASKS/S and IDLE%
	 * are over the last interval. 80 columns show the first eleven. */
	attron(A_BOLD);
	top_put(y++, "%-4s %-8s %4s %4s %9s %10s %9s %9s %5s %5s %-4s %10s %8s %8s %8s %8s %8s",
		"WKR", "TID", "CPU", "NODE", "TASKS/S", "EXECUTED", "STEAL_L", "STEAL_R", "IDLE%",
		"QUEUE", "NOW", "CREATED", "SELF", "LOCAL", "REMOTE", "IMMED", "REQ_SENT");
	attroff(A_BOLD);
	for (uint32_t i = 0; i < p->h.nworkers && y < LINES - 1; i++) {
		const struct xs_stats_worker *w = &p->w[i];
		char n[11][16];

		top_put(y++,
			"%-4u %-8u %4u %4u %9s %10s %9s %9s %5.1f %5s %-4s %10s %8s %8s %8s %8s %8s",
			i, w->tid, w->cpu, w->node, top_human(n[0], 16, p->w_tasks_s[i], 1000),
			top_human(n[1], 16, (double)w->tasks_executed, 1000),
			top_human(n[2], 16, (double)w->stolen_local, 1000),
			top_human(n[3], 16, (double)w->stolen_remote, 1000), p->w_idle_pct[i],
			top_human(n[4], 16, (double)w->queue_depth, 1000),
			w->flags & XS_STATS_W_IDLE ? "idle" : "busy",
			top_human(n[5], 16, (double)w->tasks_created, 1000),
			top_human(n[6], 16, (double)w->tasks_self, 1000),
			top_human(n[7], 16, (double)w->tasks_local, 1000),
			top_human(n[8], 16, (double)w->tasks_remote, 1000),
			top_human(n[9], 16, (double)w->immediate, 1000),
			top_human(n[10], 16, (double)w->requests_sent, 1000));
	}
}

static void top_draw_cpu(struct top_ui *u)
{
	const struct top_daemon *d = &u->snap.d;
	const struct xs_abi_cpu *c;
	int y = 0;

	if (!d->present) {
		top_put(0, "victim tables come from xschedd, which is absent (%s)", d->why);
		mvprintw(1, 0, "Esc: back   h help   q quit");
		return;
	}
	if (u->cpu >= d->ncpus)
		u->cpu = 0;
	c = &d->cpus[u->cpu];
	attron(A_BOLD);
	mvprintw(y++, 0, "victim table of CPU %u (node %d): who a thief on it asks, best first",
		 c->cpu, c->node < d->nnodes ? (int)d->nodes[c->node].node : -1);
	attroff(A_BOLD);
	mvprintw(y++, 0, "arrows: other CPU   Esc: back   h help   q quit");
	y++;
	attron(A_BOLD);
	mvprintw(y++, 0, "%-5s %-6s %-7s %7s %8s %8s %7s", "RANK", "VICTIM", "CLASS", "WEIGHT",
		 "XSCHED%", "OTHER%", "RQLAT");
	attroff(A_BOLD);
	for (uint32_t k = 0; k < d->row_len && y < LINES - 1; k++) {
		const struct xs_abi_victim *v = &d->victims[(size_t)u->cpu * d->row_len + k];
		const struct xs_abi_cpu *vc = v->cpu_index < d->ncpus ? &d->cpus[v->cpu_index] : NULL;

		if (!vc) {
			mvprintw(y++, 0, "%-5u (invalid entry)", k + 1);
			continue;
		}
		mvprintw(y++, 0, "%-5u %-6u %-7s %7u %8.1f %8.1f %5uus", k + 1, vc->cpu,
			 top_victim_class(v->locality), v->weight, vc->worker_permille / 10.0,
			 vc->foreign_permille / 10.0, vc->rq_latency_us);
	}
}

/* The job view (jobs.c): its text, line by line, under the header. */
static void top_draw_jobs(struct top_ui *u)
{
	char *text = NULL, *line, *save = NULL;
	size_t len = 0;
	int y = 0;
	FILE *f;

	top_header(u, &y);
	y++;
	f = open_memstream(&text, &len);
	if (!f)
		return;
	top_print_jobs_text(f, &u->snap, 0);
	fclose(f);
	for (line = strtok_r(text, "\n", &save); line && y < LINES - 1;
	     line = strtok_r(NULL, "\n", &save))
		top_put(y++, "%s", line);
	free(text);
}

static void top_draw_help(void)
{
	static const char *const lines[] = {
		"xsched-top help",
		"",
		"  q, F10        quit (q on this screen: back, like any key)",
		"  h, ?, F1      this help",
		"  Up, Down      select a process",
		"  Enter, w      the selected process's workers (detail view)",
		"  c             the victim table of a CPU (xschedd); Left, Right: other CPU",
		"  J             the job view: MPI ranks by job (again: back); -J starts there",
		"  Esc           back to the main view",
		"  s             sort by the next key: tasks/s, steals/s, idle%, pid, command",
		"  R             reverse the sort (the header says desc or asc)",
		"  /             filter by command or pid as you type; Enter keeps the",
		"                filter, Esc (at the prompt or on the main view) clears it",
		"  p             pause / resume refreshing",
		"  d             set the delay between refreshes (seconds)",
		"",
		"Columns: /S per second over the last interval, _TOTAL since the start.",
		"WRK workers; SHR the CPUs xschedd gives it now (wide screens, detail view);",
		"TASKS/S tasks executed; STEAL_L/S, STEAL_R/S tasks stolen or redirected to",
		"thieves on the same or another NUMA node; IMM% of all tasks, run at once",
		"(full queue); IDLE% of the last interval spent waiting; DLB the balancing",
		"strategy; REQ_SENT_TOTAL, REQ_HNDL_TOTAL steal requests (wide screens).",
		"CPU bars (from xschedd): # xsched workers, = other tasks, . idle; RQLAT the",
		"mean run-queue latency; memory free per node. 12.3K, 1.2M: powers of 1000",
		"(memory: of 1024); --json prints every number exact.",
	};

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]) && (int)i < LINES; i++) {
		if (!i)
			attron(A_BOLD);
		mvprintw((int)i, 0, "%s", lines[i]);
		if (!i)
			attroff(A_BOLD);
	}
}

static void top_draw(struct top_ui *u)
{
	erase();
	switch (u->view) {
	case VIEW_MAIN: top_draw_main(u); break;
	case VIEW_DETAIL: top_draw_detail(u); break;
	case VIEW_CPU: top_draw_cpu(u); break;
	case VIEW_JOBS: top_draw_jobs(u); break;
	case VIEW_HELP: top_draw_help(); break;
	}
	if (u->view != VIEW_HELP)
		top_notes(u);
	refresh();
}

static void top_ask_delay(struct top_ui *u)
{
	char buf[32] = "";
	char *end;
	double v;

	move(LINES - 1, 0);
	clrtoeol();
	printw("delay in seconds (0.1..3600): ");
	echo();
	timeout(-1);
	getnstr(buf, sizeof(buf) - 1);
	noecho();
	if (!buf[0]) {
		top_message(u, "delay unchanged: %.1f s", u->o->delay_s);
		return;
	}
	v = strtod(buf, &end);
	if (end != buf && !*end && v >= 0.1 && v <= 3600) {
		u->o->delay_s = v;
		top_message(u, "delay %.1f s", v);
	} else {
		top_message(u, "delay '%.20s' rejected: expected seconds in 0.1..3600; still %.1f s",
			    buf, u->o->delay_s);
	}
}

/* The / prompt: the table follows each key typed; Enter keeps the
 * filter, Esc clears it. Printable ASCII only, TOP_FILTER_LEN - 1 at most. */
static void top_ask_filter(struct top_ui *u)
{
	char *f = u->o->filter;

	u->view = VIEW_MAIN;
	u->typing = 1;
	timeout(-1);
	for (;;) {
		size_t n = strlen(f);
		int k;

		top_fix_selection(u);
		top_draw(u);
		k = getch();
		if (k == '\n' || k == '\r' || k == KEY_ENTER)
			break;
		if (k == 27) {
			f[0] = '\0';
			break;
		}
		if ((k == KEY_BACKSPACE || k == 127 || k == 8) && n)
			f[n - 1] = '\0';
		else if (k >= 0x20 && k <= 0x7e && n + 1 < TOP_FILTER_LEN) {
			f[n] = (char)k;
			f[n + 1] = '\0';
		}
	}
	u->typing = 0;
	curs_set(0);
	top_fix_selection(u);
	if (f[0])
		top_message(u, "filter '%s': %zu of %zu processes", f, top_nshown(u),
			    u->snap.nprocs);
	else
		top_message(u, "filter cleared");
}

/* Handle key @k; returns 1 to quit, 2 when a fresh snapshot is wanted. */
static int top_key(struct top_ui *u, int k)
{
	if (k == KEY_F(10)) /* htop's quit, on every screen */
		return 1;
	/* Any key leaves the help screen, q too (as in top and htop). */
	if (u->view == VIEW_HELP) {
		u->view = u->back;
		return 0;
	}
	switch (k) {
	case 'q': return 1;
	case 'h': case '?': case KEY_F(1): u->back = u->view; u->view = VIEW_HELP; break;
	case 27: case KEY_BACKSPACE:
		if (u->view == VIEW_MAIN && u->o->filter[0]) {
			u->o->filter[0] = '\0';
			top_fix_selection(u);
			top_message(u, "filter cleared");
		}
		u->view = VIEW_MAIN;
		break;
	case '/': top_ask_filter(u); break;
	case 'R':
		u->o->reverse = !u->o->reverse;
		top_snap_sort(&u->snap, u->o->sort, u->o->reverse);
		top_message(u, "sorted by %s, %s", top_sort_names[u->o->sort], top_sort_dir(u->o));
		break;
	case '\n': case KEY_ENTER: case 'w':
		if (u->view != VIEW_DETAIL && !top_shown(u, u->sel)) {
			top_message(u, "no process shown to select");
			break;
		}
		u->view = u->view == VIEW_DETAIL ? VIEW_MAIN : VIEW_DETAIL;
		break;
	case 'c': u->view = VIEW_CPU; break;
	case 'J': u->view = u->view == VIEW_JOBS ? VIEW_MAIN : VIEW_JOBS; break;
	case 's':
		u->o->sort = (u->o->sort + 1) % TOP_SORT_N;
		top_snap_sort(&u->snap, u->o->sort, u->o->reverse);
		top_message(u, "sorted by %s, %s", top_sort_names[u->o->sort], top_sort_dir(u->o));
		break;
	case 'p': u->paused = !u->paused; break;
	case 'd': top_ask_delay(u); break;
	case KEY_UP:
		if (u->view == VIEW_CPU)
			u->cpu = u->cpu ? u->cpu - 1 : u->cpu;
		else
			u->sel = top_step(u, u->sel, -1);
		break;
	case KEY_DOWN:
		if (u->view == VIEW_CPU)
			u->cpu++;
		else
			u->sel = top_step(u, u->sel, 1);
		break;
	case KEY_LEFT: if (u->cpu) u->cpu--; break;
	case KEY_RIGHT: u->cpu++; break;
	default: return 0;
	}
	if (u->cpu >= u->snap.d.ncpus)
		u->cpu = u->snap.d.ncpus ? u->snap.d.ncpus - 1 : 0;
	if (u->sel < u->snap.nprocs) {
		u->sel_pid = u->snap.procs[u->sel].h.pid;
		u->sel_rt = u->snap.procs[u->sel].h.runtime_id;
	}
	return 0;
}

int top_tui(struct top_opts *o)
{
	struct top_ui u = { .o = o, .view = o->jobs ? VIEW_JOBS : VIEW_MAIN };
	long refreshes = 1;
	uint64_t next;

	if (!newterm(NULL, stdout, stdin)) {
		fprintf(stderr, "xsched-top: cannot use the terminal (TERM=%s); try -b or --json\n",
			getenv("TERM") ? getenv("TERM") : "");
		return 1;
	}
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	if (has_colors()) {
		start_color();
		use_default_colors();
		init_pair(1, COLOR_GREEN, -1);
		init_pair(2, COLOR_RED, -1);
	}
	top_snap_take(&u.snap, o, NULL);
	top_fix_selection(&u);
	next = top_now_ns() + (uint64_t)(o->delay_s * 1e9);
	for (;;) {
		uint64_t now;
		int k;

		top_draw(&u);
		now = top_now_ns();
		timeout(now < next ? (int)((next - now) / 1000000) + 1 : 0);
		k = getch();
		if (k != ERR) {
			if (top_key(&u, k))
				break;
			continue;
		}
		if (top_now_ns() < next)
			continue;
		next = top_now_ns() + (uint64_t)(o->delay_s * 1e9);
		if (u.paused)
			continue;
		if (o->iterations && ++refreshes > o->iterations)
			break;
		top_refresh_snap(&u);
		top_fix_selection(&u);
	}
	endwin();
	top_snap_free(&u.snap);
	top_snap_free(&u.prev);
	return 0;
}
