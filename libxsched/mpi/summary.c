// SPDX-License-Identifier: MIT
/*
 * summary.c - the job's efficiency at MPI_Finalize, as the POP methodology
 * (and BSC's TALP) defines it, from every rank's accounting:
 *
 *   useful_r   = elapsed_r - mpi_r          (time outside MPI, rank r)
 *   runtime    = max_r elapsed_r
 *   LB         = avg_r useful_r / max_r useful_r     load balance
 *   CommE      = max_r useful_r / runtime            communication efficiency
 *   PE         = LB * CommE = avg_r useful_r / runtime   parallel efficiency
 *
 * and LB split the way POP splits it for hybrid codes, by node:
 *
 *   LB_inter   = avg_n (max_{r on n} useful_r) / max_r useful_r
 *   LB_intra   = LB / LB_inter
 *
 * LB_intra is the imbalance between the ranks of a node, the part that
 * lending CPUs within a node can recover. A node is a host name and a
 * network namespace (ranks in two namespaces of one machine are two nodes).
 *
 * Rank 0 gathers the ranks' totals with PMPI_Gather and writes JSON to
 * XSCHED_MPI_SUMMARY (%j: the job id, %p: rank 0's pid, %%: '%'), through
 * a temporary file and a rename, so a reader never sees half a summary.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stddef.h> /* Open MPI 4.1's mpi.h uses ptrdiff_t without it */
#include <mpi.h>

#include "mpi_int.h"

/* What each rank sends to rank 0: fixed size, the same build on every
 * rank of a job (one MPI, one libxsched-mpi), so MPI_BYTE is exact. */
struct rank_rec {
	struct xs_mpi_totals tot;
	uint64_t pid;
	uint64_t netns;         /* inode of /proc/self/ns/net: with host, the node */
	char host[64];
};

/* The job id for %j: the resource manager's, the launcher's, else rank
 * 0's pid; only [A-Za-z0-9._-] kept, so it cannot add a path component. */
void xs_mpi_job_id(char *out, size_t len)
{
	static const char *const vars[] = { "SLURM_JOB_ID", "PBS_JOBID", "OMPI_MCA_ess_base_jobid",
					     "PMIX_NAMESPACE", "PMI_KVSNAME" };
	const char *v = NULL;
	size_t o = 0;

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]) && !v; i++)
		if (getenv(vars[i]) && *getenv(vars[i]))
			v = getenv(vars[i]);
	if (!v) {
		snprintf(out, len, "%d", (int)getpid());
		return;
	}
	for (; *v && o + 1 < len; v++)
		if ((*v >= 'a' && *v <= 'z') || (*v >= 'A' && *v <= 'Z') ||
		    (*v >= '0' && *v <= '9') || *v == '.' || *v == '_' || *v == '-')
			out[o++] = *v;
	out[o] = '\0';
}

/* Expand %j, %p and %% of @tmpl into @out. Returns 0, or -EINVAL for an
 * unknown conversion, -ENAMETOOLONG when it does not fit. */
static int expand_path(const char *tmpl, char *out, size_t len)
{
	char id[128];
	size_t o = 0;

	for (const char *p = tmpl; *p; p++) {
		int n;

		if (*p != '%') {
			if (o + 1 >= len)
				return -ENAMETOOLONG;
			out[o++] = *p;
			continue;
		}
		switch (*++p) {
		case 'j': xs_mpi_job_id(id, sizeof(id)); break;
		case 'p': snprintf(id, sizeof(id), "%d", (int)getpid()); break;
		case '%': snprintf(id, sizeof(id), "%%"); break;
		default: return -EINVAL;
		}
		n = snprintf(out + o, len - o, "%s", id);
		if (n < 0 || (size_t)n >= len - o)
			return -ENAMETOOLONG;
		o += (size_t)n;
	}
	out[o] = '\0';
	return 0;
}

static double sec(uint64_t ns)
{
	return (double)ns * 1e-9;
}

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void write_json(FILE *f, const struct rank_rec *r, int n, const char *job)
{
	char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
	double useful_max = 0, useful_sum = 0, useful_min = 0, runtime = 0, mpi_sum = 0;
	double lb, ce, pe, lent = 0, borrowed = 0, lb_inter, lb_intra, node_max_sum = 0;
	int len = 0, nnodes = 0;
	int *node = calloc((size_t)n, sizeof(*node));

	if (!node) {
		fprintf(f, "{ \"error\": \"no memory for %d ranks\" }\n", n);
		return;
	}

	PMPI_Get_library_version(lib, &len);
	lib[strcspn(lib, "\n,")] = '\0';
	for (int i = 0; i < n; i++) {
		double el = sec(r[i].tot.elapsed_ns), u = sec(r[i].tot.elapsed_ns - r[i].tot.mpi_ns);

		useful_sum += u;
		mpi_sum += sec(r[i].tot.mpi_ns);
		lent += sec(r[i].tot.lent_cpu_ns);
		borrowed += sec(r[i].tot.borrowed_cpu_ns);
		useful_max = u > useful_max ? u : useful_max;
		useful_min = i == 0 || u < useful_min ? u : useful_min;
		runtime = el > runtime ? el : runtime;
	}
	lb = useful_max > 0 ? useful_sum / n / useful_max : 1.0;
	ce = runtime > 0 ? useful_max / runtime : 1.0;
	pe = lb * ce;
	/* Nodes: node[i] is the index of rank i's node (its first rank). */
	for (int i = 0; i < n; i++) {
		node[i] = i;
		for (int k = 0; k < i; k++) {
			if (r[k].netns == r[i].netns && !strcmp(r[k].host, r[i].host)) {
				node[i] = node[k];
				break;
			}
		}
	}
	for (int i = 0; i < n; i++) {
		double node_max = 0;

		if (node[i] != i)
			continue;
		nnodes++;
		for (int k = i; k < n; k++) {
			double u = sec(r[k].tot.elapsed_ns - r[k].tot.mpi_ns);

			if (node[k] == i && u > node_max)
				node_max = u;
		}
		node_max_sum += node_max;
	}
	lb_inter = useful_max > 0 ? node_max_sum / nnodes / useful_max : 1.0;
	lb_intra = lb_inter > 0 ? lb / lb_inter : 1.0;

	fprintf(f, "{\n  \"xsched_mpi_summary\": 1,\n  \"mpi_library\": ");
	json_string(f, lib);
	fprintf(f, ",\n  \"job\": ");
	json_string(f, job);
	fprintf(f, ",\n  \"ranks\": %d,\n", n);
	fprintf(f, "  \"runtime_s\": %.9f,\n", runtime);
	fprintf(f, "  \"useful_s\": { \"avg\": %.9f, \"max\": %.9f, \"min\": %.9f },\n",
		useful_sum / n, useful_max, useful_min);
	fprintf(f, "  \"mpi_s_avg\": %.9f,\n", mpi_sum / n);
	fprintf(f, "  \"load_balance\": %.6f,\n", lb);
	fprintf(f, "  \"communication_efficiency\": %.6f,\n", ce);
	fprintf(f, "  \"parallel_efficiency\": %.6f,\n", pe);
	fprintf(f, "  \"nodes\": %d,\n", nnodes);
	fprintf(f, "  \"load_balance_inter_node\": %.6f,\n", lb_inter);
	fprintf(f, "  \"load_balance_intra_node\": %.6f,\n", lb_intra);
	fprintf(f, "  \"lent_cpu_s\": %.9f,\n", lent);
	fprintf(f, "  \"borrowed_cpu_s\": %.9f,\n", borrowed);
	fprintf(f, "  \"per_rank\": [\n");
	for (int i = 0; i < n; i++) {
		const struct xs_mpi_totals *t = &r[i].tot;

		fprintf(f, "    { \"rank\": %d, \"node\": %d, \"host\": ", i, node[i]);
		json_string(f, r[i].host);
		fprintf(f, ", \"pid\": %" PRIu64 ", \"elapsed_s\": %.9f, \"useful_s\": %.9f, "
			   "\"mpi_s\": %.9f, \"lent_cpu_s\": %.9f, \"borrowed_cpu_s\": %.9f, "
			   "\"lends\": %" PRIu64 ",\n"
			   "      \"reclaim_p50_us\": %.3f, \"reclaim_p99_us\": %.3f, "
			   "\"reclaim_max_us\": %.3f, "
			   "\"reclaims_late\": %" PRIu64 ",\n"
			   "      \"mpi_by_class\": {", r[i].pid, sec(t->elapsed_ns),
			sec(t->elapsed_ns - t->mpi_ns), sec(t->mpi_ns), sec(t->lent_cpu_ns),
			sec(t->borrowed_cpu_ns), t->lends,
			t->reclaim_p50_ns / 1e3, t->reclaim_p99_ns / 1e3, t->reclaim_max_ns / 1e3,
			t->reclaims_late);
		for (int c = 0; c < XS_MPI_NCLASSES; c++)
			fprintf(f, "%s \"%s\": { \"s\": %.9f, \"calls\": %" PRIu64 " }", c ? "," : "",
				xs_mpi_class_name[c], sec(t->class_ns[c]), t->class_calls[c]);
		fprintf(f, " } }%s\n", i + 1 < n ? "," : "");
	}
	fprintf(f, "  ]\n}\n");
	free(node);
}

int xs_mpi_summary_write(const struct xs_mpi_totals *tot)
{
	const char *tmpl = xs_mpi_summary_path();
	struct rank_rec mine = { .tot = *tot, .pid = (uint64_t)getpid() };
	struct rank_rec *all = NULL;
	char path[PATH_MAX], tmp[PATH_MAX + 16], job[128];
	int rank = 0, size = 1, ret = 0, err;
	struct stat ns;
	FILE *f;

	/* Every rank reads the same environment (mpirun -x / -genv): when
	 * it is unset nobody gathers, so no rank waits for another. */
	if (!tmpl)
		return 0;
	PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
	PMPI_Comm_size(MPI_COMM_WORLD, &size);
	gethostname(mine.host, sizeof(mine.host) - 1);
	if (!stat("/proc/self/ns/net", &ns))
		mine.netns = (uint64_t)ns.st_ino;
	if (rank == 0) {
		all = calloc((size_t)size, sizeof(*all));
		if (!all)
			fprintf(stderr, "xsched-mpi: no memory for the summary of %d ranks\n", size);
	}
	/* Gather even when rank 0 has no buffer: the others are in it too.
	 * Rank 0 then receives into its own record, size 1 (count 0 would
	 * not match the senders), and writes nothing. */
	err = PMPI_Gather(&mine, sizeof(mine), MPI_BYTE, all ? (void *)all : (void *)&mine,
			  all ? (int)sizeof(mine) : 0, MPI_BYTE, 0, MPI_COMM_WORLD);
	if (rank != 0)
		return err == MPI_SUCCESS ? 0 : -EIO;
	if (!all)
		return -ENOMEM;
	if (err != MPI_SUCCESS) {
		fprintf(stderr, "xsched-mpi: gathering the summary failed (MPI error %d)\n", err);
		ret = -EIO;
		goto out;
	}
	ret = expand_path(tmpl, path, sizeof(path));
	if (ret) {
		fprintf(stderr, "xsched-mpi: XSCHED_MPI_SUMMARY='%s': %s (conversions: %%j job id, "
				"%%p pid, %%%% a percent sign)\n", tmpl,
			ret == -EINVAL ? "unknown %-conversion" : "too long");
		goto out;
	}
	xs_mpi_job_id(job, sizeof(job));
	snprintf(tmp, sizeof(tmp), "%s.tmp%d", path, (int)getpid());
	f = fopen(tmp, "w");
	if (!f) {
		ret = -errno;
		fprintf(stderr, "xsched-mpi: XSCHED_MPI_SUMMARY: %s: %s\n", tmp, strerror(errno));
		goto out;
	}
	write_json(f, all, size, job);
	if (fclose(f) || rename(tmp, path)) {
		ret = -errno;
		fprintf(stderr, "xsched-mpi: XSCHED_MPI_SUMMARY: %s: %s\n", path, strerror(errno));
		unlink(tmp);
	}
out:
	free(all);
	return ret;
}
