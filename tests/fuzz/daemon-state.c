// SPDX-License-Identifier: MIT
/*
 * daemon-state.c - fuzz the library's reader of xschedd's state file.
 *
 * Input: 4 bytes (the slot count the daemon's HELLO reply announced, little
 * endian), then the state file (in a memfd: the library reads it with
 * pread(), as it reads the descriptor HELLO hands over). The steps are the
 * library's own (libxsched/daemon/daemon_state.c): the seqlocked header read (a torn file:
 * -EAGAIN), the checks of a new connection (layout, slot count, the CPU
 * maps), then, as a poll does, the victim rows turned into a table of our
 * CPUs and checked. Our CPUs are those of tests/machines/2s2n4c, so a
 * state file written by xschedd --sysfs-root tests/machines/2s2n4c
 * reaches the rows. Promises: no read outside the file; a table that comes
 * back passes xs_victim_table_check().
 */
#include <sys/mman.h>

#include "fuzz.h"
#include "daemon/daemon_client.h"
#include "core/runtime.h"
#include "topo/topology.h"

static struct xs_runtime rt;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char root[4096];

	(void)argc;
	(void)argv;
	snprintf(root, sizeof(root), "%s/tests/machines/2s2n4c", fuzz_srcdir());
	rt.topo = xs_topology_load(root);
	if (!rt.topo) {
		fprintf(stderr, "daemon-state: cannot load %s\n", root);
		exit(1);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xs_daemon_client dc;
	struct xs_daemon_conn c;
	struct xs_abi_header hc;
	struct xs_victim_table *vt;
	uint32_t nslots;
	int ret, err = 0, fd;

	if (!rt.topo)
		LLVMFuzzerInitialize(NULL, NULL);
	if (size < 4)
		return 0;
	memcpy(&nslots, data, 4);
	data += 4;
	size -= 4;
	/* The file is exactly its bytes, but for an odd sequence: the reader
	 * would wait XS_ABI_READ_WAIT_NS for the writer to end its section,
	 * then give up (-EAGAIN; tests/daemon/xschedd-client-ignores-bad-state.c),
	 * which is time, not parsing. */
	fd = memfd_create("daemon-state", MFD_CLOEXEC);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		abort();
	if (size >= sizeof(struct xs_abi_header)) {
		uint64_t seq;

		memcpy(&seq, data + offsetof(struct xs_abi_header, seq), sizeof(seq));
		seq &= ~1ull;
		if (pwrite(fd, &seq, sizeof(seq), offsetof(struct xs_abi_header, seq)) !=
		    (ssize_t)sizeof(seq))
			abort();
	}
	memset(&c, 0, sizeof(c));
	memset(&dc, 0, sizeof(dc));
	c.fd = -1;
	c.workers_fd = -1;
	c.state_fd = fd;
	c.state_size = size;
	if (size < sizeof(struct xs_abi_header))
		goto out; /* xs_daemon_connect() refuses it before mapping */
	/* The header read alone first: a torn header is -EAGAIN, which the
	 * connect path would wait 10 ms for before giving up the same way. */
	ret = xs_abi_pread_header(c.state_fd, &hc);
	if (ret) {
		FUZZ_CHECK(ret == -EAGAIN);
		goto out;
	}
	ret = xs_daemon_conn_state(&c, &rt, nslots);
	if (ret) {
		FUZZ_CHECK(ret == -EPROTO || ret == -EBADMSG || ret == -ENOMEM);
		goto out;
	}
	FUZZ_CHECK(c.ncpus >= 1 && c.nslots == nslots);
	if (!c.daemon_of || xs_daemon_rows_alloc(&dc, &rt, &c))
		goto out; /* worker state only, as in xs_daemon_poll() */
	if (xs_abi_pread_header(c.state_fd, &hc))
		goto out;
	vt = xs_daemon_rows(&dc, &rt, &c, &hc, hc.seq, &err);
	if (vt) {
		FUZZ_CHECK(vt->ncpus == rt.topo->ncpus);
		FUZZ_CHECK(xs_victim_table_check(vt) == 0);
		xs_victim_table_free(vt);
	} else {
		FUZZ_CHECK(err == -EBADMSG || err == -EAGAIN || err == -ENOMEM);
	}
out:
	free(dc.scratch);
	free(dc.adopted);
	free(c.lib_of);
	free(c.daemon_of);
	close(fd);
	return 0;
}
