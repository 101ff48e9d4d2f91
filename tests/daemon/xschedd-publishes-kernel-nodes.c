// SPDX-License-Identifier: MIT
/*
 * xschedd on the real machine (no synthetic sysfs root) publishes the
 * kernel's NUMA view: its nodes are the nodes that have CPUs, each CPU's
 * node is libnuma's, each node's total memory is libnuma's (the node's
 * sysfs meminfo), and every published victim row holds each other CPU
 * once with the class the kernel's view gives (tests/numa-kernel-view.h,
 * read independently of libxsched). make check-system runs this on
 * guests with 2 and 4 NUMA nodes; in either daemon mode.
 */
#include "kselftest_harness.h"
#include "numa-kernel-view.h"
#include "xschedd-test.h"

TEST(state_holds_the_kernels_nodes_and_rows)
{
	struct xs_abi_victim *rows;
	const struct xs_abi_header *h;
	const struct xs_abi_cpu *cpus;
	const struct xs_abi_node *nodes;
	struct xsd_test_client c;
	struct xsd_test t;
	uint64_t seq;
	size_t nrows;

	if (numa_available() < 0)
		SKIP(return, "libnuma: this kernel has no NUMA support (numa_available() < 0)");
	ASSERT_EQ(0, xsd_test_start(&t, "--tick-ms", "10"));
	ASSERT_EQ(0, xsd_test_client_open(&t, &c)) xsd_test_dump_log(&t);
	h = c.state;
	cpus = xs_abi_at(h, h->cpu_off);
	nodes = xs_abi_at(h, h->node_off);
	TH_LOG("daemon mode %u: %u CPUs on %u node(s)", c.mode, h->ncpus, h->nnodes);

	EXPECT_EQ(kv_cpu_nodes(), h->nnodes);
	for (uint32_t i = 0; i < h->ncpus; i++) {
		ASSERT_LT(cpus[i].node, h->nnodes);
		EXPECT_EQ((uint32_t)numa_node_of_cpu((int)cpus[i].cpu), nodes[cpus[i].node].node);
	}
	for (uint32_t i = 0; i < h->nnodes; i++) {
		EXPECT_EQ((uint64_t)numa_node_size64((int)nodes[i].node, NULL) / 1024,
			  nodes[i].mem_total_kib) {
			TH_LOG("node %u", nodes[i].node);
		}
	}

	/* The rows under the seqlock: the daemon re-weights them every tick. */
	nrows = (size_t)h->ncpus * h->row_len;
	rows = calloc(nrows + 1, sizeof(*rows));
	ASSERT_NE(NULL, rows);
	do {
		seq = xs_abi_read_begin(h);
		memcpy(rows, xs_abi_at(h, h->victim_off), nrows * sizeof(rows[0]));
	} while (xs_abi_read_retry(h, seq));
	for (uint32_t r = 0; r < h->ncpus; r++) {
		uint8_t seen[XS_MAX_CPUS] = { 0 };

		for (uint32_t k = 0; k < h->row_len; k++) {
			const struct xs_abi_victim *v = &rows[(size_t)r * h->row_len + k];

			ASSERT_LT(v->cpu_index, h->ncpus);
			ASSERT_NE(r, v->cpu_index);
			ASSERT_EQ(0, seen[v->cpu_index]++);
			EXPECT_EQ(kv_class(cpus[r].cpu, cpus[v->cpu_index].cpu), v->locality) {
				TH_LOG("cpu%u's victim %u is cpu%u", cpus[r].cpu, k,
				       cpus[v->cpu_index].cpu);
			}
		}
	}
	free(rows);
	xsd_test_client_close(&c);
	EXPECT_EQ(0, xsd_test_stop(&t));
}

TEST_HARNESS_MAIN
