// SPDX-License-Identifier: MIT
/*
 * jobs.c - the job view: the ranks of each MPI job on this node, grouped,
 * with the POP metrics of the ranks seen (docs/mpi.md).
 *
 * Each rank under libxsched-mpi publishes a statistics page flagged
 * XS_STATS_F_MPI (include/xsched/stats_page.h): its job, rank, and since
 * MPI_Init its elapsed time, MPI time, CPU-seconds lent and borrowed.
 * pages.c reads it like any page (copied once, layout and owner checked);
 * here its MPI fields are checked against each other, the page leaves the
 * process list, and the ranks are grouped by owner and job: a job is its
 * name's hash and its uid, so that another user's pages cannot join it.
 *
 * Per rank: useful = elapsed - MPI; MPI% of the last interval. Per job,
 * over its ranks on this node, from MPI_Init to now:
 *   LB    = avg useful / max useful            load balance
 *   CommE = max useful / max elapsed           communication efficiency
 *   PE    = LB x CommE                         parallel efficiency
 * the summary's definitions (libxsched/mpi/summary.c), live; and the
 * same over the last refresh interval, from each rank's differences,
 * once every rank of the job has been seen twice.
 */
#include <stdlib.h>
#include <string.h>

#include "top.h"

/* The most a page may claim: 64 Ki CPUs lent or borrowed all the time. */
#define TOP_MPI_MAX_CPUS 65536.0
#define TOP_MPI_MAX_RANKS (1u << 24)

static uint64_t top_fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/* A rank from the copy @p of its page, or a reason it is corrupt. */
static const char *top_rank_from(struct top_rank *r, const struct top_proc *p)
{
	const struct xs_stats_header *h = &p->h;
	double el = (double)h->mpi_elapsed_ns * 1e-9;

	memset(r, 0, sizeof(*r));
	if (h->runtime_id != XS_STATS_MPI_RUNTIME_ID)
		return "an MPI page with a runtime's number";
	if (!h->mpi_size || h->mpi_size > TOP_MPI_MAX_RANKS || h->mpi_rank >= h->mpi_size)
		return "rank outside its job's size";
	if (h->mpi_ns > h->mpi_elapsed_ns)
		return "more time in MPI than elapsed";
	if ((double)h->mpi_lent_cpu_ns * 1e-9 > el * TOP_MPI_MAX_CPUS ||
	    (double)h->mpi_borrowed_cpu_ns * 1e-9 > el * TOP_MPI_MAX_CPUS ||
	    h->mpi_lent_now > TOP_MPI_MAX_CPUS || h->mpi_borrowed_now > TOP_MPI_MAX_CPUS)
		return "more CPUs lent or borrowed than a machine has";
	for (size_t i = 0; i < XS_STATS_MPI_JOB_LEN && h->mpi_job_name[i]; i++) {
		char c = (char)h->mpi_job_name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-'))
			return "a job name of other characters than [A-Za-z0-9._-]";
		r->job_name[i] = c;
	}
	if (top_fnv1a(r->job_name) != h->mpi_job)
		return "a job key that is not its name's";
	r->job = h->mpi_job;
	r->uid = h->uid;
	r->pid = h->pid;
	r->created_ns = h->created_ns;
	r->rank = h->mpi_rank;
	r->size = h->mpi_size;
	memcpy(r->comm, p->comm, sizeof(r->comm));
	r->elapsed_s = el;
	r->mpi_s = (double)h->mpi_ns * 1e-9;
	r->useful_s = el - r->mpi_s;
	r->lent_cpu_s = (double)h->mpi_lent_cpu_ns * 1e-9;
	r->borrowed_cpu_s = (double)h->mpi_borrowed_cpu_ns * 1e-9;
	r->lends = h->mpi_lends;
	r->lent_now = h->mpi_lent_now;
	r->borrowed_now = h->mpi_borrowed_now;
	r->mpi_pct_int = -1;
	r->daemon = !!(h->flags & XS_STATS_F_DAEMON);
	return NULL;
}

static int top_rank_cmp(const void *pa, const void *pb)
{
	const struct top_rank *a = pa, *b = pb;

	if (a->uid != b->uid)
		return a->uid < b->uid ? -1 : 1;
	if (a->job != b->job)
		return strcmp(a->job_name, b->job_name) ? strcmp(a->job_name, b->job_name)
							 : (a->job < b->job ? -1 : 1);
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

/* MPI% of the interval since @prev's refresh, for the same rank there. */
static void top_rank_interval(struct top_rank *r, const struct top_snap *prev)
{
	for (size_t i = 0; prev && i < prev->nranks; i++) {
		const struct top_rank *q = &prev->ranks[i];
		double del;

		if (q->pid != r->pid || q->created_ns != r->created_ns)
			continue;
		del = r->elapsed_s - q->elapsed_s;
		if (del > 0 && r->mpi_s >= q->mpi_s && r->mpi_s - q->mpi_s <= del) {
			r->mpi_pct_int = 100.0 * (r->mpi_s - q->mpi_s) / del;
			r->d_elapsed_s = del;
			r->d_useful_s = del - (r->mpi_s - q->mpi_s);
		}
		if (r->mpi_pct_int > 100)
			r->mpi_pct_int = 100;
		return;
	}
}

static void top_job_metrics(struct top_job *j)
{
	double sum = 0;

	for (size_t i = 0; i < j->nranks; i++) {
		const struct top_rank *r = &j->ranks[i];

		sum += r->useful_s;
		j->useful_max = r->useful_s > j->useful_max ? r->useful_s : j->useful_max;
		j->runtime_s = r->elapsed_s > j->runtime_s ? r->elapsed_s : j->runtime_s;
		j->lent_cpu_s += r->lent_cpu_s;
		j->borrowed_cpu_s += r->borrowed_cpu_s;
		j->lent_now += r->lent_now;
		j->borrowed_now += r->borrowed_now;
	}
	j->useful_avg = sum / (double)j->nranks;
	j->lb = j->useful_max > 0 ? j->useful_avg / j->useful_max : 1.0;
	j->ce = j->runtime_s > 0 ? j->useful_max / j->runtime_s : 1.0;
	j->pe = j->lb * j->ce;
	/* The last interval's, from the ranks' differences: what the job
	 * does now rather than since it started. */
	j->has_int = 1;
	for (size_t i = 0; i < j->nranks && j->has_int; i++)
		j->has_int = j->ranks[i].mpi_pct_int >= 0;
	if (j->has_int) {
		double usum = 0, umax = 0, emax = 0;

		for (size_t i = 0; i < j->nranks; i++) {
			const struct top_rank *r = &j->ranks[i];

			usum += r->d_useful_s;
			umax = r->d_useful_s > umax ? r->d_useful_s : umax;
			emax = r->d_elapsed_s > emax ? r->d_elapsed_s : emax;
		}
		j->lb_int = umax > 0 ? usum / (double)j->nranks / umax : 1.0;
		j->ce_int = emax > 0 ? umax / emax : 1.0;
		j->pe_int = j->lb_int * j->ce_int;
	}
}

void top_jobs_take(struct top_snap *s, const struct top_snap *prev)
{
	size_t kept = 0;

	for (size_t i = 0; i < s->nprocs; i++) {
		struct top_proc *p = &s->procs[i];
		struct top_rank r, *ranks;
		const char *why;

		if (!(p->h.flags & XS_STATS_F_MPI)) {
			s->procs[kept++] = *p;
			continue;
		}
		why = top_rank_from(&r, p);
		if (why) {
			top_note(s, "skipped %s: corrupt MPI rank page (%s)", p->path, why);
		} else if ((ranks = realloc(s->ranks, (s->nranks + 1) * sizeof(*ranks)))) {
			s->ranks = ranks;
			top_rank_interval(&r, prev);
			s->ranks[s->nranks++] = r;
		}
		top_proc_free(p);
	}
	s->nprocs = kept;
	if (!s->nranks)
		return;
	qsort(s->ranks, s->nranks, sizeof(*s->ranks), top_rank_cmp);
	for (size_t i = 0; i < s->nranks; i++) {
		struct top_rank *r = &s->ranks[i];
		struct top_job *jobs, *j = s->njobs ? &s->jobs[s->njobs - 1] : NULL;

		if (j && j->uid == r->uid && j->id == r->job) {
			j->nranks++;
			continue;
		}
		jobs = realloc(s->jobs, (s->njobs + 1) * sizeof(*jobs));
		if (!jobs)
			break;
		s->jobs = jobs;
		j = &s->jobs[s->njobs++];
		memset(j, 0, sizeof(*j));
		j->id = r->job;
		j->uid = r->uid;
		j->size = r->size;
		memcpy(j->name, r->job_name, sizeof(j->name));
		j->ranks = r;
		j->nranks = 1;
	}
	for (size_t k = 0; k < s->njobs; k++)
		top_job_metrics(&s->jobs[k]);
}

void top_jobs_free(struct top_snap *s)
{
	free(s->ranks);
	free(s->jobs);
	s->ranks = NULL;
	s->jobs = NULL;
	s->nranks = s->njobs = 0;
}

void top_print_jobs_text(FILE *out, const struct top_snap *s, int header)
{
	if (header) {
		char when[64];

		top_format_time(s->real_ns, when, sizeof(when));
		fprintf(out, "xsched-top jobs at %s\n", when);
	}
	if (!s->njobs)
		fprintf(out, "xsched-top: no MPI rank publishes here (libxsched-mpi, "
			     "XSCHED_MPI_PAGE=1)\n");
	for (size_t k = 0; k < s->njobs; k++) {
		const struct top_job *j = &s->jobs[k];

		fprintf(out,
			"job %s (uid %u): %zu of %u ranks here, runtime %.1f s, LB %.3f, CommE %.3f, "
			"PE %.3f, lent %.2f CPU-s (now %u), borrowed %.2f CPU-s (now %u)\n",
			j->name[0] ? j->name : "?", j->uid, j->nranks, j->size, j->runtime_s, j->lb,
			j->ce, j->pe, j->lent_cpu_s, j->lent_now, j->borrowed_cpu_s,
			j->borrowed_now);
		if (j->has_int)
			fprintf(out, "  last interval: LB %.3f, CommE %.3f, PE %.3f\n", j->lb_int,
				j->ce_int, j->pe_int);
		fprintf(out, "  %-6s %-8s %-16s %9s %9s %9s %10s %10s %8s %8s %8s\n", "RANK", "PID",
			"COMMAND", "USEFUL_S", "MPI_S", "MPI%_INT", "LENT_CPU_S", "BORR_CPU_S",
			"LENDS", "LENT_NOW", "BORR_NOW");
		for (size_t i = 0; i < j->nranks; i++) {
			const struct top_rank *r = &j->ranks[i];
			char pct[16];

			if (r->mpi_pct_int < 0)
				snprintf(pct, sizeof(pct), "-");
			else
				snprintf(pct, sizeof(pct), "%.1f", r->mpi_pct_int);
			fprintf(out, "  %-6u %-8u %-16s %9.2f %9.2f %9s %10.2f %10.2f %8llu %8u %8u\n",
				r->rank, r->pid, r->comm, r->useful_s, r->mpi_s, pct, r->lent_cpu_s,
				r->borrowed_cpu_s, (unsigned long long)r->lends, r->lent_now,
				r->borrowed_now);
		}
	}
	if (header) {
		for (size_t i = 0; i < s->nnotes; i++)
			fprintf(out, "note: %s\n", s->notes[i]);
		fputc('\n', out);
		fflush(out);
	}
}

void top_print_jobs_json(FILE *out, const struct top_snap *s)
{
	char when[64];

	top_format_time(s->real_ns, when, sizeof(when));
	fprintf(out, "{\"time\":\"%s\",\"time_unix_ns\":%llu,\"monotonic_ns\":%llu,\"jobs\":[",
		when, (unsigned long long)s->real_ns, (unsigned long long)s->now_ns);
	for (size_t k = 0; k < s->njobs; k++) {
		const struct top_job *j = &s->jobs[k];

		/* The name is [A-Za-z0-9._-] (checked in top_rank_from()). */
		fprintf(out,
			"%s{\"job\":\"%s\",\"uid\":%u,\"ranks_total\":%u,\"ranks_here\":%zu,"
			"\"runtime_s\":%.6f,\"useful_s_avg\":%.6f,\"useful_s_max\":%.6f,"
			"\"load_balance\":%.6f,\"communication_efficiency\":%.6f,"
			"\"parallel_efficiency\":%.6f,\"lent_cpu_s\":%.6f,\"borrowed_cpu_s\":%.6f,"
			"\"lent_now\":%u,\"borrowed_now\":%u,\"interval\":",
			k ? "," : "", j->name, j->uid, j->size, j->nranks, j->runtime_s,
			j->useful_avg, j->useful_max, j->lb, j->ce, j->pe, j->lent_cpu_s,
			j->borrowed_cpu_s, j->lent_now, j->borrowed_now);
		if (j->has_int)
			fprintf(out,
				"{\"load_balance\":%.6f,\"communication_efficiency\":%.6f,"
				"\"parallel_efficiency\":%.6f}",
				j->lb_int, j->ce_int, j->pe_int);
		else
			fputs("null", out);
		fputs(",\"ranks\":[", out);
		for (size_t i = 0; i < j->nranks; i++) {
			const struct top_rank *r = &j->ranks[i];

			fprintf(out,
				"%s{\"rank\":%u,\"pid\":%u,\"command\":\"%s\",\"elapsed_s\":%.6f,"
				"\"useful_s\":%.6f,\"mpi_s\":%.6f,\"mpi_pct_int\":",
				i ? "," : "", r->rank, r->pid, r->comm, r->elapsed_s, r->useful_s,
				r->mpi_s);
			if (r->mpi_pct_int < 0)
				fputs("null", out);
			else
				fprintf(out, "%.1f", r->mpi_pct_int);
			fprintf(out,
				",\"lent_cpu_s\":%.6f,\"borrowed_cpu_s\":%.6f,\"lends\":%llu,"
				"\"lent_now\":%u,\"borrowed_now\":%u,\"daemon\":%s}",
				r->lent_cpu_s, r->borrowed_cpu_s, (unsigned long long)r->lends,
				r->lent_now, r->borrowed_now, r->daemon ? "true" : "false");
		}
		fputs("]}", out);
	}
	top_print_json_notes_end(out, s);
}
