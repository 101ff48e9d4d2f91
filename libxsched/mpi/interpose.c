// SPDX-License-Identifier: MIT
/*
 * interpose.c - the MPI entry points libxsched-mpi defines; each accounts
 * its time (account.c), maybe lends the rank's CPUs while it waits
 * (lend.c), and calls the MPI library's PMPI_* twin. Every other MPI
 * function is not defined here and resolves to the MPI library itself.
 *
 * How a call waits when lending is on (XSCHED_MPI_LEND=1, the MPI_Init
 * thread, outermost call):
 *   - MPI_Wait, Waitall, Waitany, Waitsome, MPI_Recv, MPI_Probe poll with
 *     their PMPI_Test(all,any,some), PMPI_Irecv, PMPI_Iprobe twins for XSCHED_MPI_SPIN_US,
 *     then lend, block in the PMPI call, and reclaim on return. What the
 *     caller gets (statuses, indices, errors) is what the blocking call
 *     returns, as the standard defines the pairs to be equivalent.
 *   - MPI_Test lends after XSCHED_MPI_TEST_SPIN consecutive calls that
 *     complete nothing, and reclaims when one completes or at the thread's
 *     next other MPI call.
 *   - MPI_Send, MPI_Sendrecv and the collectives cannot be polled without
 *     changing which calls match (a nonblocking collective does not match
 *     a blocking one), so they lend on entry when this thread's previous
 *     call of the same class took XSCHED_MPI_SPIN_US or longer.
 */
#include <stddef.h> /* Open MPI 4.1's mpi.h uses ptrdiff_t without it */
#include <mpi.h>

#include <xsched/stats_page.h>

#include "mpi_int.h"

/* Account the call: t is NULL outside MPI_Init..MPI_Finalize or when the
 * thread's state could not be allocated; the call then just goes through. */
#define ENTER(cls)                                                           \
	struct xs_mpi_thread *t = xs_mpi_active() ? xs_mpi_self() : NULL;   \
	uint64_t t0 = t ? xs_mpi_enter(t, (cls)) : 0
#define LEAVE(cls)                                                           \
	do {                                                                 \
		if (t)                                                       \
			xs_mpi_leave(t, (cls), t0);                          \
	} while (0)

/* Whether this call may lend: lending on, the MPI_Init thread, the
 * outermost intercepted call. Reclaims a lend MPI_Test left. */
static bool may_lend(struct xs_mpi_thread *t, enum xs_mpi_class c)
{
	if (!t || t->depth != 1 || !xs_mpi_lend_thread())
		return false;
	if (c != XS_MPI_C_TEST) {
		t->test_fails = 0;
		xs_mpi_reclaim();
	}
	return true;
}

/* Polling budget: the deadline of XSCHED_MPI_SPIN_US from @t0. */
static uint64_t spin_deadline(uint64_t t0)
{
	return t0 + (uint64_t)xs_mpi_opt(XS_MPI_OPT_SPIN_US) * 1000u;
}

/* Predicted long: the previous call of this class took the spin time. */
static bool predicted_long(struct xs_mpi_thread *t, enum xs_mpi_class c)
{
	return t->last_ns[c] >= (uint64_t)xs_mpi_opt(XS_MPI_OPT_SPIN_US) * 1000u;
}

/* ---- initialization and finalization ---- */

static void init_done(void)
{
	char job[XS_STATS_MPI_JOB_LEN + 1] = "";
	int rank = 0, size = 1;

	PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
	PMPI_Comm_size(MPI_COMM_WORLD, &size);
	xs_mpi_options_load(rank);
	xs_mpi_lend_init(rank);
	/* The job's name on the pages: rank 0's, so that every rank
	 * agrees even where the launcher sets none (%j's rank 0 pid).
	 * Every rank reads the same XSCHED_MPI_PAGE (mpirun -x / -genv),
	 * so all or none take part. The page too before the accounting
	 * starts: the program's own clock starts after MPI_Init, which
	 * includes this wait for the slowest rank and the page's creation;
	 * the page shows the rank's times once the accounting runs. */
	if (xs_mpi_opt(XS_MPI_OPT_PAGE)) {
		if (rank == 0)
			xs_mpi_job_id(job, sizeof(job));
		PMPI_Bcast(job, sizeof(job), MPI_CHAR, 0, MPI_COMM_WORLD);
		job[sizeof(job) - 1] = '\0';
		xs_mpi_page_start(rank, size, job);
	}
	xs_mpi_account_start();
}

int MPI_Init(int *argc, char ***argv)
{
	int ret = PMPI_Init(argc, argv);

	if (ret == MPI_SUCCESS)
		init_done();
	return ret;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	int ret = PMPI_Init_thread(argc, argv, required, provided);

	if (ret == MPI_SUCCESS)
		init_done();
	return ret;
}

int MPI_Finalize(void)
{
	struct xs_mpi_totals tot;
	uint64_t borrowed;

	if (xs_mpi_active()) {
		xs_mpi_reclaim();
		borrowed = xs_mpi_page_stop();
		xs_mpi_account_stop(&tot);
		tot.borrowed_cpu_ns = borrowed;
		xs_mpi_summary_write(&tot);
		xs_mpi_lend_fini();
	}
	return PMPI_Finalize();
}

/* ---- point to point ---- */

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
	int ret;
	ENTER(XS_MPI_C_SEND);
	bool lend = may_lend(t, XS_MPI_C_SEND) && predicted_long(t, XS_MPI_C_SEND);

	if (lend)
		xs_mpi_lend();
	ret = PMPI_Send(buf, count, type, dest, tag, comm);
	if (lend)
		xs_mpi_reclaim();
	LEAVE(XS_MPI_C_SEND);
	return ret;
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
	     MPI_Status *status)
{
	int ret, flag = 0;
	ENTER(XS_MPI_C_RECV);

	if (!may_lend(t, XS_MPI_C_RECV)) {
		ret = PMPI_Recv(buf, count, type, source, tag, comm, status);
	} else {
		MPI_Request req;
		uint64_t end = spin_deadline(t0);

		ret = PMPI_Irecv(buf, count, type, source, tag, comm, &req);
		while (ret == MPI_SUCCESS && !flag) {
			ret = PMPI_Test(&req, &flag, status);
			if (!flag && xs_now_ns() >= end)
				break;
		}
		if (ret == MPI_SUCCESS && !flag) {
			xs_mpi_lend();
			ret = PMPI_Wait(&req, status);
			xs_mpi_reclaim();
		}
	}
	LEAVE(XS_MPI_C_RECV);
	return ret;
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
		 int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source,
		 int recvtag, MPI_Comm comm, MPI_Status *status)
{
	int ret;
	ENTER(XS_MPI_C_SENDRECV);
	bool lend = may_lend(t, XS_MPI_C_SENDRECV) && predicted_long(t, XS_MPI_C_SENDRECV);

	if (lend)
		xs_mpi_lend();
	ret = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
			    recvtype, source, recvtag, comm, status);
	if (lend)
		xs_mpi_reclaim();
	LEAVE(XS_MPI_C_SENDRECV);
	return ret;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
	int ret = MPI_SUCCESS, flag = 0;
	ENTER(XS_MPI_C_RECV);

	if (may_lend(t, XS_MPI_C_RECV)) {
		uint64_t end = spin_deadline(t0);

		do
			ret = PMPI_Iprobe(source, tag, comm, &flag, status);
		while (ret == MPI_SUCCESS && !flag && xs_now_ns() < end);
	}
	if (ret == MPI_SUCCESS && !flag) {
		bool lend = t && xs_mpi_lend_thread() && t->depth == 1;

		if (lend)
			xs_mpi_lend();
		ret = PMPI_Probe(source, tag, comm, status);
		if (lend)
			xs_mpi_reclaim();
	}
	LEAVE(XS_MPI_C_RECV);
	return ret;
}

/* ---- completion ---- */

int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
	int ret = MPI_SUCCESS, flag = 0;
	ENTER(XS_MPI_C_WAIT);
	bool lend = may_lend(t, XS_MPI_C_WAIT);

	if (lend) {
		uint64_t end = spin_deadline(t0);

		do
			ret = PMPI_Test(req, &flag, status);
		while (ret == MPI_SUCCESS && !flag && xs_now_ns() < end);
	}
	if (ret == MPI_SUCCESS && !flag) {
		if (lend)
			xs_mpi_lend();
		ret = PMPI_Wait(req, status);
		if (lend)
			xs_mpi_reclaim();
	}
	LEAVE(XS_MPI_C_WAIT);
	return ret;
}

int MPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[])
{
	int ret = MPI_SUCCESS, flag = 0;
	ENTER(XS_MPI_C_WAIT);
	bool lend = may_lend(t, XS_MPI_C_WAIT);

	if (lend) {
		uint64_t end = spin_deadline(t0);

		do
			ret = PMPI_Testall(count, reqs, &flag, statuses);
		while (ret == MPI_SUCCESS && !flag && xs_now_ns() < end);
	}
	if (ret == MPI_SUCCESS && !flag) {
		if (lend)
			xs_mpi_lend();
		ret = PMPI_Waitall(count, reqs, statuses);
		if (lend)
			xs_mpi_reclaim();
	}
	LEAVE(XS_MPI_C_WAIT);
	return ret;
}

int MPI_Waitany(int count, MPI_Request reqs[], int *index, MPI_Status *status)
{
	int ret = MPI_SUCCESS, flag = 0;
	ENTER(XS_MPI_C_WAIT);
	bool lend = may_lend(t, XS_MPI_C_WAIT);

	if (lend) {
		uint64_t end = spin_deadline(t0);

		/* Testany sets flag also when no request is active (index
		 * MPI_UNDEFINED), which is what Waitany returns then. */
		do
			ret = PMPI_Testany(count, reqs, index, &flag, status);
		while (ret == MPI_SUCCESS && !flag && xs_now_ns() < end);
	}
	if (ret == MPI_SUCCESS && !flag) {
		if (lend)
			xs_mpi_lend();
		ret = PMPI_Waitany(count, reqs, index, status);
		if (lend)
			xs_mpi_reclaim();
	}
	LEAVE(XS_MPI_C_WAIT);
	return ret;
}

int MPI_Waitsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
		 MPI_Status statuses[])
{
	int ret = MPI_SUCCESS;
	bool done = false;
	ENTER(XS_MPI_C_WAIT);
	bool lend = may_lend(t, XS_MPI_C_WAIT);

	if (lend) {
		uint64_t end = spin_deadline(t0);

		/* Done when something completed or nothing is active
		 * (MPI_UNDEFINED), as Waitsome returns. */
		do {
			ret = PMPI_Testsome(incount, reqs, outcount, indices, statuses);
			done = ret != MPI_SUCCESS || *outcount != 0;
		} while (!done && xs_now_ns() < end);
	}
	if (!done) {
		if (lend)
			xs_mpi_lend();
		ret = PMPI_Waitsome(incount, reqs, outcount, indices, statuses);
		if (lend)
			xs_mpi_reclaim();
	}
	LEAVE(XS_MPI_C_WAIT);
	return ret;
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
	int ret;
	ENTER(XS_MPI_C_TEST);
	bool lend = may_lend(t, XS_MPI_C_TEST);

	ret = PMPI_Test(req, flag, status);
	if (lend) {
		if (ret != MPI_SUCCESS || *flag) {
			t->test_fails = 0;
			xs_mpi_reclaim();
		} else if (++t->test_fails >= xs_mpi_opt(XS_MPI_OPT_TEST_SPIN)) {
			xs_mpi_lend(); /* no-op while lent */
		}
	}
	LEAVE(XS_MPI_C_TEST);
	return ret;
}

/* ---- collectives ---- */

/* A collective: lend on entry when predicted long, call, reclaim. */
#define COLLECTIVE(cls, call)                                                 \
	do {                                                                  \
		int ret;                                                      \
		ENTER(cls);                                                   \
		bool lend = may_lend(t, cls) && predicted_long(t, cls);       \
                                                                              \
		if (lend)                                                     \
			xs_mpi_lend();                                        \
		ret = call;                                                   \
		if (lend)                                                     \
			xs_mpi_reclaim();                                     \
		LEAVE(cls);                                                   \
		return ret;                                                   \
	} while (0)

int MPI_Barrier(MPI_Comm comm)
{
	COLLECTIVE(XS_MPI_C_BARRIER, PMPI_Barrier(comm));
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
		  MPI_Comm comm)
{
	COLLECTIVE(XS_MPI_C_COLL, PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm));
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
	       int root, MPI_Comm comm)
{
	COLLECTIVE(XS_MPI_C_COLL, PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm));
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
	COLLECTIVE(XS_MPI_C_COLL, PMPI_Bcast(buf, count, type, root, comm));
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	COLLECTIVE(XS_MPI_C_COLL, PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf,
						 recvcount, recvtype, comm));
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	COLLECTIVE(XS_MPI_C_COLL, PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount,
						recvtype, comm));
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
	       int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	COLLECTIVE(XS_MPI_C_COLL, PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
					      recvtype, root, comm));
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	COLLECTIVE(XS_MPI_C_COLL, PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf,
							recvcount, recvtype, root, comm));
}
