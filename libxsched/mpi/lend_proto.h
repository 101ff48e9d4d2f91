/* SPDX-License-Identifier: MIT */
/*
 * lend_proto.h - the lending messages libxsched-mpi sends to xschedd, on
 * the client socket of include/xsched/abi.h (struct xs_abi_request and
 * struct xs_abi_reply, unchanged). PROPOSED: xschedd of ABI 3 does not
 * know these types; it answers XS_ABI_ERROR and closes the connection, and
 * the library then stops lending and says so once. docs/mpi.md has the
 * daemon's half (leases, shares, the 1 ms return). When the daemon takes
 * them, these definitions move to abi.h in their own ABI commit.
 *
 *   LEND      request.count = 1, tids[0] = CPUs lent (the rank keeps
 *             XSCHED_MPI_KEEP); reply.status 0 or -errno, reply.count =
 *             CPUs the daemon took (it may take fewer than offered).
 *   RECLAIM   request.count = 0; reply.status 0. The daemon republishes
 *             the shares before it replies, so the borrowers see the CPUs
 *             go at their next task or loop boundary.
 *
 * A lend is a lease on the connection: the daemon ends it when the
 * connection closes (the process exited, crashed or was MPI_Abort'ed) or
 * on RECLAIM, whichever comes first. A process can lend only CPUs of its
 * own share; the daemon caps tids[0] at that share less one.
 */
#ifndef XSCHED_MPI_LEND_PROTO_H
#define XSCHED_MPI_LEND_PROTO_H

#define XS_MPI_ABI_LEND 4u    /* proposed request.type */
#define XS_MPI_ABI_RECLAIM 5u /* proposed request.type */

#endif /* XSCHED_MPI_LEND_PROTO_H */
