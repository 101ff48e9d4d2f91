// SPDX-License-Identifier: MIT
/*
 * text.c - xsched-top's batch output: -b prints plain-text snapshots (the
 * screen's content, for logs), --json one JSON object per refresh on one
 * line (for scripts and tests). Every string printed in JSON is either ours
 * or was made printable and quote-free when read (pages.c).
 */
#include <string.h>

#include "../common/json_write.h"
#include "top.h"

void top_print_json_notes_end(FILE *out, const struct top_snap *s)
{
	fputs("],\"notes\":[", out);
	for (size_t i = 0; i < s->nnotes; i++) {
		if (i)
			fputc(',', out);
		json_put_string(out, s->notes[i]);
	}
	fputs("]}\n", out);
	fflush(out);
}

void top_print_text(FILE *out, const struct top_snap *s, const struct top_opts *o)
{
	const struct top_daemon *d = &s->d;
	int cmd_w = 16;
	char when[64];

	top_format_time(s->real_ns, when, sizeof(when));
	fprintf(out, "xsched-top at %s\n", when);
	if (d->present)
		fprintf(out,
			"xsched-top: daemon %s (pid %u), tick %.0f ms, heartbeat %.2f s ago%s%s, "
			"%u CPUs, %u nodes\n",
			d->mode, d->pid, d->tick_ns / 1e6, d->heartbeat_age_ns / 1e9,
			d->fresh ? "" : ", stale: ", d->fresh ? "" : d->why, d->ncpus, d->nnodes);
	else
		fprintf(out, "xsched-top: daemon absent (%s); showing what processes publish\n",
			d->why);
	if (d->present) {
		fprintf(out, "%-5s %-5s %8s %8s %8s %10s\n", "CPU", "NODE", "XSCHED%", "OTHER%",
			"IDLE%", "RQLAT_US");
		for (uint32_t n = 0; n < d->nnodes + 1; n++) {
			for (uint32_t i = 0; i < d->ncpus; i++) {
				const struct xs_abi_cpu *c = &d->cpus[i];
				uint32_t node = c->node;

				/* node by node; a CPU with a bad node index last */
				if (n < d->nnodes ? node != n : node < d->nnodes)
					continue;
				fprintf(out, "%-5u %-5d %8.1f %8.1f %8.1f %10u\n", c->cpu,
					node < d->nnodes ? (int)d->nodes[node].node : -1,
					c->worker_permille / 10.0, c->foreign_permille / 10.0,
					c->idle_permille / 10.0, c->rq_latency_us);
			}
		}
	}
	if (d->nshares)
		fprintf(out, "xsched-top: CPU shares: %u CPUs for xsched processes, divided among %u\n",
			d->share_cpus, d->share_active);
	for (uint32_t n = 0; d->present && n < d->nnodes; n++) {
		char fr[16], tot[16];

		fprintf(out, "node %u: memory free %s of %s\n", d->nodes[n].node,
			top_human(fr, sizeof(fr), d->nodes[n].mem_free_kib * 1024.0, 1024),
			top_human(tot, sizeof(tot), d->nodes[n].mem_total_kib * 1024.0, 1024));
	}
	/* Column names say what they count: /S per second over the last
	 * interval, _TOTAL since the runtime started, _NOW at this refresh
	 * (top_print_legend()). Rates and totals as 12.3K, 1.2M (--json has
	 * them exact); COMMAND as wide as the longest name. */
	for (size_t i = 0; i < s->nprocs; i++)
		if (strlen(s->procs[i].cmd) > (size_t)cmd_w)
			cmd_w = (int)strlen(s->procs[i].cmd);
	fprintf(out, "%-8s %-3s %-*s %7s %7s %9s %9s %14s %14s %10s %9s %-4s %10s %13s\n", "PID",
		"RT", cmd_w, "COMMAND", "WORKERS", "TASKS/S", "STEAL_L/S", "STEAL_R/S",
		"REQ_SENT_TOTAL", "REQ_HNDL_TOTAL", "IMM%_TOTAL", "IDLE%_INT", "DLB", "QUEUED_NOW",
		"CPU_SHARE_NOW");
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct top_proc *p = &s->procs[i];
		char t[16], sl[16], sr[16], rs[16], rh[16], q[16], sh[24] = "-";

		if (p->share_cpus >= 0)
			snprintf(sh, sizeof(sh), "%lld", (long long)p->share_cpus);
		fprintf(out, "%-8u %-3u %-*s %7u %7s %9s %9s %14s %14s %10.1f %9.1f %-4s %10s %13s\n",
			p->h.pid, p->h.runtime_id, cmd_w, p->cmd, p->h.nworkers,
			top_human(t, sizeof(t), p->tasks_s, 1000),
			top_human(sl, sizeof(sl), p->steals_local_s, 1000),
			top_human(sr, sizeof(sr), p->steals_remote_s, 1000),
			top_human(rs, sizeof(rs), (double)p->sent, 1000),
			top_human(rh, sizeof(rh), (double)p->handled, 1000), 100 * p->immediate_ratio,
			p->idle_pct, top_dlb_name(p->h.dlb),
			top_human(q, sizeof(q), (double)p->queued, 1000), sh);
	}
	if (!s->nprocs)
		fprintf(out, "(no xsched processes%s%s)\n",
			o->npids == 1 ? " with that pid" : o->npids ? " with those pids" : "",
			o->filter[0] ? " matching the filter" : "");
	for (size_t i = 0; i < s->nnotes; i++)
		fprintf(out, "note: %s\n", s->notes[i]);
	fputc('\n', out);
	fflush(out);
}

void top_print_legend(FILE *out)
{
	fprintf(out, "# columns: /S per second over the last interval; _TOTAL since the runtime "
		     "started;\n# _INT over the last interval; _NOW at the refresh. Times are "
		     "UTC.\n# 12.3K, 1.2M: powers of 1000; memory in powers of 1024 (G: GiB).\n"
		     "# CPU_SHARE_NOW: CPUs xschedd's arbitration gives the process now (-: no "
		     "share).\n\n");
}

static void top_json_worker(FILE *out, const struct top_proc *p, uint32_t i)
{
	const struct xs_stats_worker *w = &p->w[i];

	fprintf(out,
		"{\"id\":%u,\"tid\":%u,\"cpu\":%u,\"node\":%u,\"idle\":%s,\"tasks_executed\":%llu,"
		"\"tasks_created\":%llu,\"tasks_self\":%llu,\"tasks_local\":%llu,"
		"\"tasks_remote\":%llu,\"immediate\":%llu,\"static_pushes\":%llu,"
		"\"requests_sent\":%llu,\"requests_handled\":%llu,\"requests_with_steal\":%llu,"
		"\"stolen_local\":%llu,\"stolen_remote\":%llu,\"parks\":%llu,\"idle_ns\":%llu,"
		"\"queue_depth\":%llu,\"tasks_per_s\":%.1f,\"idle_pct\":%.1f}",
		i, w->tid, w->cpu, w->node, w->flags & XS_STATS_W_IDLE ? "true" : "false",
		(unsigned long long)w->tasks_executed, (unsigned long long)w->tasks_created,
		(unsigned long long)w->tasks_self, (unsigned long long)w->tasks_local,
		(unsigned long long)w->tasks_remote, (unsigned long long)w->immediate,
		(unsigned long long)w->static_pushes, (unsigned long long)w->requests_sent,
		(unsigned long long)w->requests_handled, (unsigned long long)w->requests_with_steal,
		(unsigned long long)w->stolen_local, (unsigned long long)w->stolen_remote,
		(unsigned long long)w->parks, (unsigned long long)w->idle_ns,
		(unsigned long long)w->queue_depth, p->w_tasks_s[i], p->w_idle_pct[i]);
}

void top_print_json(FILE *out, const struct top_snap *s)
{
	const struct top_daemon *d = &s->d;

	char when[64];

	top_format_time(s->real_ns, when, sizeof(when));
	/* time: wall clock (CLOCK_REALTIME) as ISO 8601 UTC and in ns since
	 * the epoch; monotonic_ns: CLOCK_MONOTONIC, for intervals. */
	fprintf(out, "{\"time\":\"%s\",\"time_unix_ns\":%llu,\"monotonic_ns\":%llu,"
		     "\"daemon\":{\"mode\":",
		when, (unsigned long long)s->real_ns, (unsigned long long)s->now_ns);
	json_put_string(out, d->present ? d->mode : "absent");
	if (d->present) {
		fprintf(out,
			",\"pid\":%u,\"fresh\":%s,\"tick_ms\":%.1f,\"heartbeat_age_ms\":%.1f,"
			"\"generation\":%llu,\"cpus\":%u,\"nodes\":%u",
			d->pid, d->fresh ? "true" : "false", d->tick_ns / 1e6,
			d->heartbeat_age_ns / 1e6, (unsigned long long)d->generation, d->ncpus,
			d->nnodes);
		if (d->nshares)
			fprintf(out, ",\"share_cpus\":%u,\"share_active\":%u", d->share_cpus,
				d->share_active);
	}
	if (d->why[0]) {
		fputs(",\"why\":", out);
		json_put_string(out, d->why);
	}
	fputs(",\"cpu\":[", out);
	for (uint32_t i = 0; d->present && i < d->ncpus; i++) {
		const struct xs_abi_cpu *c = &d->cpus[i];

		fprintf(out,
			"%s{\"cpu\":%u,\"node\":%d,\"xsched_pct\":%.1f,\"other_pct\":%.1f,"
			"\"idle_pct\":%.1f,\"rq_latency_us\":%u}",
			i ? "," : "", c->cpu, c->node < d->nnodes ? (int)d->nodes[c->node].node : -1,
			c->worker_permille / 10.0, c->foreign_permille / 10.0,
			c->idle_permille / 10.0, c->rq_latency_us);
	}
	fputs("]", out);
	if (d->present) {
		fputs(",\"node\":[", out);
		for (uint32_t n = 0; n < d->nnodes; n++)
			fprintf(out, "%s{\"node\":%u,\"mem_free_kib\":%llu,\"mem_total_kib\":%llu}",
				n ? "," : "", d->nodes[n].node,
				(unsigned long long)d->nodes[n].mem_free_kib,
				(unsigned long long)d->nodes[n].mem_total_kib);
		fputs("]", out);
	}
	fputs("},\"processes\":[", out);
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct top_proc *p = &s->procs[i];

		fprintf(out, "%s{\"pid\":%u,\"runtime\":%u,\"command\":", i ? "," : "", p->h.pid,
			p->h.runtime_id);
		json_put_string(out, p->comm);
		fputs(",\"command_full\":", out);
		json_put_string(out, p->cmd);
		fputs(",\"path\":", out);
		json_put_string(out, p->path);
		if (p->share_cpus >= 0)
			fprintf(out, ",\"share_cpus\":%lld,\"share_running\":%u",
				(long long)p->share_cpus, p->share_running);
		else
			fputs(",\"share_cpus\":null", out);
		fprintf(out,
			",\"workers\":%u,\"dlb\":\"%s\",\"jobs\":%llu,\"in_job\":%s,\"daemon\":%s,"
			"\"generation\":%llu,\"tasks_executed\":%llu,\"tasks_created\":%llu,"
			"\"immediate\":%llu,\"stolen_local\":%llu,\"stolen_remote\":%llu,"
			"\"requests_sent\":%llu,\"requests_handled\":%llu,"
			"\"requests_with_steal\":%llu,\"queue_depth\":%llu,\"idle_ns\":%llu,"
			"\"tasks_per_s\":%.1f,\"created_per_s\":%.1f,\"steals_local_per_s\":%.1f,"
			"\"steals_remote_per_s\":%.1f,\"requests_sent_per_s\":%.1f,"
			"\"requests_handled_per_s\":%.1f,\"immediate_ratio\":%.4f,\"idle_pct\":%.1f,"
			"\"worker\":[",
			p->h.nworkers, top_dlb_name(p->h.dlb), (unsigned long long)p->h.jobs,
			p->h.flags & XS_STATS_F_IN_JOB ? "true" : "false",
			p->h.flags & XS_STATS_F_DAEMON ? "true" : "false",
			(unsigned long long)p->h.generation, (unsigned long long)p->executed,
			(unsigned long long)p->created, (unsigned long long)p->immediate,
			(unsigned long long)p->stolen_local, (unsigned long long)p->stolen_remote,
			(unsigned long long)p->sent, (unsigned long long)p->handled,
			(unsigned long long)p->with_steal, (unsigned long long)p->queued,
			(unsigned long long)p->idle_ns, p->tasks_s, p->created_s, p->steals_local_s,
			p->steals_remote_s, p->sent_s, p->handled_s, p->immediate_ratio, p->idle_pct);
		for (uint32_t w = 0; w < p->h.nworkers; w++) {
			if (w)
				fputc(',', out);
			top_json_worker(out, p, w);
		}
		fputs("]}", out);
	}
	top_print_json_notes_end(out, s);
}
