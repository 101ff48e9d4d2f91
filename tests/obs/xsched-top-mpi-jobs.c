// SPDX-License-Identifier: MIT
/*
 * The job view (-J): statistics pages of MPI ranks (XS_STATS_F_MPI, as
 * libxsched-mpi publishes them), forged for live processes, are grouped
 * by job and rank, with each job's load balance, communication and
 * parallel efficiency computed from the ranks' useful and MPI time, and
 * the CPU-seconds lent and borrowed summed; --json and -b say the same.
 * The ranks' pages are not processes of the main view. A rank page whose
 * MPI fields contradict themselves (rank beyond the job's size, more MPI
 * time than elapsed, more CPUs lent than a machine has, a job name of
 * other characters, a job key that is not its name's hash) is left out
 * with a note saying why, and never shown. Over a refresh interval in
 * which the ranks' pages move on, each rank's MPI% and the job's
 * efficiencies of that interval. On the screen, J switches to the job
 * view and back, and -J starts there.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xs_test.h"
#include "xsched-top-test.h"
#include "tmux-test.h"

#define NS 1000000000ull

struct rank_page {
	const char *job;        /* name; its hash unless bad_key */
	unsigned int rank, size;
	double elapsed, mpi, lent, borrowed; /* seconds */
	unsigned int lent_now, borrowed_now, lends;
	int bad_key;
	pid_t pid;
};

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/* A rank's page, as libxsched-mpi writes it (libxsched/mpi/page.c). */
static int forge_rank(const char *dir, const struct rank_page *r)
{
	_Alignas(struct xs_stats_header) unsigned char page[sizeof(struct xs_stats_header) +
							     sizeof(struct xs_stats_worker)];
	struct xs_stats_header *h = (struct xs_stats_header *)page;
	char path[4200];
	int fd, ret = 0;

	memset(page, 0, sizeof(page));
	h->magic = XS_STATS_MAGIC;
	h->version = XS_STATS_VERSION;
	h->header_size = sizeof(*h);
	h->total_size = sizeof(page);
	h->worker_off = sizeof(*h);
	h->worker_size = sizeof(struct xs_stats_worker);
	h->nworkers = 1;
	h->pid = (__u32)r->pid;
	h->uid = (__u32)getuid();
	h->runtime_id = XS_STATS_MPI_RUNTIME_ID;
	h->nnodes = 1;
	memcpy(h->comm, "rank", 4);
	h->created_ns = NS;
	h->mpi_job = fnv1a(r->job) + (r->bad_key ? 1 : 0);
	h->mpi_rank = r->rank;
	h->mpi_size = r->size;
	memcpy(h->mpi_job_name, r->job, strnlen(r->job, XS_STATS_MPI_JOB_LEN));
	h->generation = 1;
	h->published_ns = 2 * NS;
	h->period_ns = NS / 10;
	h->flags = XS_STATS_F_MPI;
	h->mpi_elapsed_ns = (__u64)(r->elapsed * NS);
	h->mpi_ns = (__u64)(r->mpi * NS);
	h->mpi_lent_cpu_ns = (__u64)(r->lent * NS);
	h->mpi_borrowed_cpu_ns = (__u64)(r->borrowed * NS);
	h->mpi_lends = r->lends;
	h->mpi_lent_now = r->lent_now;
	h->mpi_borrowed_now = r->borrowed_now;
	snprintf(path, sizeof(path), "%s/" XS_STATS_PREFIX "%d.%u", dir, (int)r->pid,
		 XS_STATS_MPI_RUNTIME_ID);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, page, sizeof(page)) != (ssize_t)sizeof(page))
		ret = -EIO;
	close(fd);
	return ret;
}

/* Job "job.A": 3 of its 4 ranks here, useful 4, 6, 9 of 10 s: LB
 * 19/3/9 = 0.703704, CommE 9/10, PE 0.633333. Job "job-B": one rank,
 * useful 1.5 of 2 s. Then one page per way of being corrupt. */
#define RANK(j, r, n, el, m) .job = (j), .rank = (r), .size = (n), .elapsed = (el), .mpi = (m)
static struct rank_page ranks[] = {
	{ RANK("job.A", 2, 4, 10, 1), .borrowed = 1.0, .borrowed_now = 1 },
	{ RANK("job.A", 0, 4, 10, 6), .lent = 1.5, .lent_now = 1, .lends = 3 },
	{ RANK("job.A", 1, 4, 10, 4), .lent = 0.5, .borrowed = 0.25, .lends = 1 },
	{ RANK("job-B", 0, 1, 2, 0.5) },
	{ RANK("job.A", 5, 4, 10, 1) },
	{ RANK("job.A", 3, 4, 10, 11) },
	{ RANK("job.A", 3, 4, 10, 1), .lent = 1e9 },
	{ RANK("job A\"", 0, 1, 10, 1) },
	{ RANK("job.A", 3, 4, 10, 1), .bad_key = 1 },
};
#define NRANKS (sizeof(ranks) / sizeof(ranks[0]))
#define NGOOD 4

static const char *const why[] = {
	"rank outside its job's size",
	"more time in MPI than elapsed",
	"more CPUs lent or borrowed than a machine has",
	"a job name of other characters than [A-Za-z0-9._-]",
	"a job key that is not its name's",
};

FIXTURE(jobs)
{
	char dir[64], shm[96];
	pid_t plain;
};

FIXTURE_SETUP(jobs)
{
	struct xs_stats_worker w = { .tasks_executed = 10 };

	snprintf(self->dir, sizeof(self->dir), "/tmp/xsched-top-jobs-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->shm, sizeof(self->shm), "%s/shm", self->dir);
	ASSERT_EQ(0, mkdir(self->shm, 0755));
	for (size_t i = 0; i < NRANKS; i++) {
		ranks[i].pid = tt_sleeper("mpi-rank");
		ASSERT_LT(0, ranks[i].pid);
		ASSERT_EQ(0, forge_rank(self->shm, &ranks[i]));
	}
	self->plain = tt_sleeper("plain-runtime");
	ASSERT_LT(0, self->plain);
	ASSERT_EQ(0, tt_forge_page(self->shm, self->plain, "plain-runtime", &w));
}

FIXTURE_TEARDOWN(jobs)
{
	char path[4200];

	for (size_t i = 0; i < NRANKS; i++) {
		tt_sleeper_end(ranks[i].pid);
		snprintf(path, sizeof(path), "%s/" XS_STATS_PREFIX "%d.%u", self->shm,
			 (int)ranks[i].pid, XS_STATS_MPI_RUNTIME_ID);
		unlink(path);
	}
	tt_sleeper_end(self->plain);
	snprintf(path, sizeof(path), "%s/" XS_STATS_PREFIX "%d.0", self->shm, (int)self->plain);
	unlink(path);
	rmdir(self->shm);
	rmdir(self->dir);
}

TEST_F(jobs, json_groups_ranks_and_computes_efficiencies)
{
	static char out[1 << 16];
	const char *a, *b, *p;
	char key[64];

	ASSERT_EQ(0, tt_run(out, sizeof(out), "--json -J -n1 --runtime-dir %s --shm-dir %s",
			    self->dir, self->shm));
	b = strstr(out, "{\"job\":\"job-B\",");
	a = strstr(out, "{\"job\":\"job.A\",");
	ASSERT_NE(NULL, a) TH_LOG("%s", out);
	ASSERT_NE(NULL, b) TH_LOG("%s", out);
	EXPECT_LT(b, a); /* by name */
	EXPECT_EQ(NULL, strstr(a + 1, "{\"job\":\"job.A\",")) TH_LOG("one job.A: %s", out);
	EXPECT_NE(NULL, strstr(a, "\"ranks_total\":4,\"ranks_here\":3,\"runtime_s\":10.000000,"
				  "\"useful_s_avg\":6.333333,\"useful_s_max\":9.000000,"
				  "\"load_balance\":0.703704,\"communication_efficiency\":0.900000,"
				  "\"parallel_efficiency\":0.633333,\"lent_cpu_s\":2.000000,"
				  "\"borrowed_cpu_s\":1.250000,\"lent_now\":1,\"borrowed_now\":1,"))
		TH_LOG("%s", a);
	EXPECT_NE(NULL, strstr(b, "\"ranks_total\":1,\"ranks_here\":1,\"runtime_s\":2.000000,"
				  "\"useful_s_avg\":1.500000,\"useful_s_max\":1.500000,"
				  "\"load_balance\":1.000000,\"communication_efficiency\":0.750000,"
				  "\"parallel_efficiency\":0.750000,"))
		TH_LOG("%s", b);
	/* Ranks in order, each its own numbers. */
	snprintf(key, sizeof(key), "{\"rank\":0,\"pid\":%d,", (int)ranks[1].pid);
	p = strstr(a, key);
	ASSERT_NE(NULL, p) TH_LOG("%s", a);
	EXPECT_NE(NULL, strstr(p, "\"useful_s\":4.000000,\"mpi_s\":6.000000,\"mpi_pct_int\":null,"
				  "\"lent_cpu_s\":1.500000,\"borrowed_cpu_s\":0.000000,\"lends\":3,"
				  "\"lent_now\":1,\"borrowed_now\":0"))
		TH_LOG("%s", p);
	snprintf(key, sizeof(key), "{\"rank\":1,\"pid\":%d,", (int)ranks[2].pid);
	EXPECT_LT(p, strstr(a, key)) TH_LOG("%s", a);
	p = strstr(a, key);
	snprintf(key, sizeof(key), "{\"rank\":2,\"pid\":%d,", (int)ranks[0].pid);
	EXPECT_LT(p, strstr(a, key)) TH_LOG("%s", a);
	/* The corrupt ones: a note each, never a rank. */
	for (size_t i = NGOOD; i < NRANKS; i++) {
		snprintf(key, sizeof(key), "\"pid\":%d,", (int)ranks[i].pid);
		EXPECT_EQ(NULL, strstr(out, key)) TH_LOG("%zu shown: %s", i, out);
		snprintf(key, sizeof(key), "%d.%u: corrupt MPI rank page (", (int)ranks[i].pid,
			 XS_STATS_MPI_RUNTIME_ID);
		p = strstr(out, key);
		ASSERT_NE(NULL, p) TH_LOG("%zu: no note: %s", i, out);
		EXPECT_EQ(0, strncmp(p + strlen(key), why[i - NGOOD], strlen(why[i - NGOOD])))
			TH_LOG("%s", p);
	}
}

TEST_F(jobs, ranks_are_not_processes)
{
	static char out[1 << 16];

	ASSERT_EQ(0, tt_run(out, sizeof(out), "--json -n1 --runtime-dir %s --shm-dir %s",
			    self->dir, self->shm));
	ASSERT_NE(NULL, tt_json_proc(out, self->plain)) TH_LOG("%s", out);
	for (size_t i = 0; i < NRANKS; i++) {
		EXPECT_EQ(NULL, tt_json_proc(out, ranks[i].pid)) TH_LOG("%zu: %s", i, out);
	}
	ASSERT_EQ(0, tt_run(out, sizeof(out), "--json -J -n1 --runtime-dir %s --shm-dir %s",
			    self->dir, self->shm));
	EXPECT_EQ(NULL, tt_json_proc(out, self->plain)) TH_LOG("%s", out);
}

TEST_F(jobs, batch_says_the_same)
{
	static char out[1 << 16];
	char key[256];
	const char *p;

	ASSERT_EQ(0, tt_run(out, sizeof(out), "-bJn1 --runtime-dir %s --shm-dir %s", self->dir,
			    self->shm));
	snprintf(key, sizeof(key), "job job.A (uid %u): 3 of 4 ranks here, runtime 10.0 s, "
				   "LB 0.704, CommE 0.900, PE 0.633, lent 2.00 CPU-s (now 1), "
				   "borrowed 1.25 CPU-s (now 1)\n", (unsigned)getuid());
	p = strstr(out, key);
	ASSERT_NE(NULL, p) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(p, "USEFUL_S     MPI_S  MPI%_INT LENT_CPU_S BORR_CPU_S")) TH_LOG("%s", p);
	snprintf(key, sizeof(key), "\n  1      %-8d rank                  6.00      4.00         -       "
				   "0.50       0.25        1        0        0\n", (int)ranks[2].pid);
	EXPECT_NE(NULL, strstr(p, key)) TH_LOG("%s", p);
	EXPECT_NE(NULL, strstr(out, "note: ")) TH_LOG("%s", out);
	/* The usual view's legend is not printed in the job view. */
	EXPECT_EQ(NULL, strstr(out, "# columns:")) TH_LOG("%s", out);
}

/* Two refreshes; between them (after the first line is out) job.A's
 * ranks run 2 s more, of which 1, 0.5 and 0 s in MPI: in that interval
 * useful 1, 1.5, 2: LB 0.75, CommE 1, PE 0.75; MPI% 50, 25, 0. */
TEST_F(jobs, interval_efficiencies)
{
	static char first[1 << 16], second[1 << 16];
	const size_t moved[] = { 1, 2, 0 }; /* ranks 0, 1, 2 of job.A */
	const double mpi_more[] = { 1.0, 0.5, 0 };
	char cmd[8192], key[64];
	const char *a, *p;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "'%s' --json -J -n2 -d1 --runtime-dir %s --shm-dir %s",
		 tt_tool(), self->dir, self->shm);
	f = popen(cmd, "r");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(first, sizeof(first), f));
	for (size_t i = 0; i < 3; i++) {
		struct rank_page r = ranks[moved[i]];

		r.elapsed += 2;
		r.mpi += mpi_more[i];
		ASSERT_EQ(0, forge_rank(self->shm, &r));
	}
	ASSERT_NE(NULL, fgets(second, sizeof(second), f));
	pclose(f);
	EXPECT_NE(NULL, strstr(first, "\"interval\":null")) TH_LOG("%s", first);
	a = strstr(second, "{\"job\":\"job.A\",");
	ASSERT_NE(NULL, a) TH_LOG("%s", second);
	EXPECT_NE(NULL, strstr(a, "\"interval\":{\"load_balance\":0.750000,"
				  "\"communication_efficiency\":1.000000,"
				  "\"parallel_efficiency\":0.750000}"))
		TH_LOG("%s", a);
	for (size_t i = 0; i < 3; i++) {
		snprintf(key, sizeof(key), "{\"rank\":%zu,\"pid\":%d,", i, (int)ranks[moved[i]].pid);
		p = strstr(a, key);
		ASSERT_NE(NULL, p) TH_LOG("%s", a);
		p = strstr(p, "\"mpi_pct_int\":");
		ASSERT_NE(NULL, p);
		EXPECT_EQ(100 * mpi_more[i] / 2, strtod(p + strlen("\"mpi_pct_int\":"), NULL))
			TH_LOG("%s", p);
	}
	/* job-B did not move: no interval. */
	EXPECT_NE(NULL, strstr(strstr(second, "{\"job\":\"job-B\","), "\"interval\":null"))
		TH_LOG("%s", second);
}

TEST_F(jobs, screen_key_switches_views)
{
	static char screen[16384];

	if (system("tmux -V >/dev/null 2>&1"))
		SKIP(return, "tmux is not installed (scripts/deps.sh installs it)");
	snprintf(tmux_sock, sizeof(tmux_sock), "xsched-top-jobs-%d", (int)getpid());
	ASSERT_EQ(0, tmux("new-session -d -x 120 -y 30 \"TERM=xterm '%s' -d 3600 "
			  "--runtime-dir %s --shm-dir %s\"", tt_tool(), self->dir, self->shm));
	EXPECT_EQ(1, tmux_wait_for(screen, sizeof(screen), "plain-runtime")) TH_LOG("%s", screen);
	EXPECT_EQ(NULL, strstr(screen, "job job.A")) TH_LOG("%s", screen);
	tmux("send-keys J");
	EXPECT_EQ(1, tmux_wait_for(screen, sizeof(screen), "job job.A")) TH_LOG("%s", screen);
	EXPECT_NE(NULL, strstr(screen, "LB 0.704, CommE 0.900, PE 0.633")) TH_LOG("%s", screen);
	EXPECT_NE(NULL, strstr(screen, "job job-B")) TH_LOG("%s", screen);
	EXPECT_EQ(NULL, strstr(screen, "plain-runtime")) TH_LOG("%s", screen);
	tmux("send-keys J");
	EXPECT_EQ(1, tmux_wait_for(screen, sizeof(screen), "plain-runtime")) TH_LOG("%s", screen);
	tmux("kill-server 2>/dev/null");

	snprintf(tmux_sock, sizeof(tmux_sock), "xsched-top-jobs-J-%d", (int)getpid());
	ASSERT_EQ(0, tmux("new-session -d -x 120 -y 30 \"TERM=xterm '%s' -J -d 3600 "
			  "--runtime-dir %s --shm-dir %s\"", tt_tool(), self->dir, self->shm));
	EXPECT_EQ(1, tmux_wait_for(screen, sizeof(screen), "job job.A")) TH_LOG("%s", screen);
	tmux("kill-server 2>/dev/null");
}

TEST_HARNESS_MAIN
