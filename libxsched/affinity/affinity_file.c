// SPDX-License-Identifier: MIT
/*
 * affinity_file.c - the affinity graph and schedule files, the machine a
 * schedule is for, and the schedule that XSCHED_LOOP_SCHEDULE=affinity
 * loops replay.
 *
 * Both files: a fixed header (magic, version, header size, checksum, what
 * the file is about), then arrays of fixed-width little-endian integers.
 * The checksum is FNV-1a 64 over the header (checksum word zero) and the
 * arrays. A reader checks, in order: the magic (another kind of file is
 * foreign; the other affinity file is named as such), the version, the
 * header size, the size the counts imply, the checksum (corrupt), then the
 * contents' own invariants. A schedule also names the machine it was
 * planned for: a hash of every worker's node, LLC and core, which the
 * runtime recomputes from its own placement (stale when they differ).
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "affinity/affinity.h"
#include "base/atomics.h"
#include "core/runtime.h"
#include "topo/topology.h"

#define XS_AFF_VERSION 1
static const char xs_graph_magic[8] = { 'X', 'S', 'A', 'F', 'G', 'R', 'P', 'H' };
static const char xs_sched_magic[8] = { 'X', 'S', 'A', 'F', 'S', 'C', 'H', 'D' };

struct xs_aff_ghdr {
	char magic[8];
	uint32_t version;
	uint32_t hdr_size;
	uint64_t checksum;
	uint64_t n, granule;
	uint32_t nthreads, shift;
	uint64_t naddrs, nedges, nentries, accesses, dropped;
	double seconds;
};
_Static_assert(sizeof(struct xs_aff_ghdr) == 96, "graph header layout");

struct xs_aff_shdr {
	char magic[8];
	uint32_t version;
	uint32_t hdr_size;
	uint64_t checksum;
	uint64_t n, granule;
	uint32_t nthreads, nworkers;
	uint64_t machine;
	char machine_desc[96];
};
_Static_assert(sizeof(struct xs_aff_shdr) == 152, "schedule header layout");

static uint64_t xs_fnv(uint64_t h, const void *p, size_t len)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

#define XS_FNV_INIT 0xcbf29ce484222325ull

/* ---------------------------------------------------------------- */
/* Reading and writing whole files */

struct xs_part {
	const void *p;
	size_t len;
};

static int xs_write_parts(const char *path, const struct xs_part *parts, int nparts)
{
	char tmp[4200];
	FILE *f;
	int ret = 0;

	/* Write beside, then rename: a reader never sees half a file. */
	if (snprintf(tmp, sizeof(tmp), "%s.tmp%d", path, (int)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	f = fopen(tmp, "wb");
	if (!f) {
		ret = -errno;
		fprintf(stderr, "xsched: affinity: %s: %s\n", path, strerror(errno));
		return ret;
	}
	for (int i = 0; i < nparts && !ret; i++)
		if (parts[i].len && fwrite(parts[i].p, 1, parts[i].len, f) != parts[i].len)
			ret = -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret) {
		fprintf(stderr, "xsched: affinity: %s: cannot write: %s\n", path, strerror(-ret));
		unlink(tmp);
	}
	return ret;
}

static int xs_read_all(const char *path, unsigned char **buf, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;
	size_t got = 0;

	*buf = NULL;
	if (fd < 0 || fstat(fd, &st)) {
		ret = -errno;
		fprintf(stderr, "xsched: affinity: %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return ret;
	}
	*len = (size_t)st.st_size;
	*buf = malloc(*len ? *len : 1);
	if (!*buf) {
		close(fd);
		return -ENOMEM;
	}
	while (got < *len) {
		ssize_t r = read(fd, *buf + got, *len - got);

		if (r <= 0) {
			ret = r < 0 ? -errno : -EIO;
			fprintf(stderr, "xsched: affinity: %s: read failed\n", path);
			break;
		}
		got += (size_t)r;
	}
	close(fd);
	if (ret) {
		free(*buf);
		*buf = NULL;
	}
	return ret;
}

static int xs_bad(const char *path, const char *what)
{
	fprintf(stderr, "xsched: affinity: %s: %s\n", path, what);
	return -EINVAL;
}

/* Both headers keep their checksum word at the same place. */
#define XS_AFF_CK_OFF 16
_Static_assert(offsetof(struct xs_aff_ghdr, checksum) == XS_AFF_CK_OFF, "graph checksum");
_Static_assert(offsetof(struct xs_aff_shdr, checksum) == XS_AFF_CK_OFF, "schedule checksum");

/* The checksum of a file image of @len >= @ck_off + 8 bytes: FNV-1a over
 * every byte, the checksum word read as zero. */
static uint64_t xs_file_checksum(const unsigned char *buf, size_t len, size_t ck_off)
{
	uint64_t h = xs_fnv(XS_FNV_INIT, buf, ck_off);

	h = xs_fnv(h, "\0\0\0\0\0\0\0\0", 8);
	return xs_fnv(h, buf + ck_off + 8, len - ck_off - 8);
}

void xs_aff_file_seal(void *image, size_t len)
{
	uint64_t ck;

	if (len < XS_AFF_CK_OFF + 8)
		return;
	ck = xs_file_checksum(image, len, XS_AFF_CK_OFF);
	memcpy((unsigned char *)image + XS_AFF_CK_OFF, &ck, 8);
}

/* Magic, version, header size, checksum of a file of @len bytes. */
static int xs_check_header(const char *path, const unsigned char *buf, size_t len,
			   const char *magic, const char *other, const char *kind,
			   const char *other_kind, uint32_t hdr_size, size_t ck_off)
{
	uint32_t version, hsz;
	uint64_t ck, want;
	char msg[256];

	if (len < 16 || memcmp(buf, magic, 8)) {
		if (len >= 8 && !memcmp(buf, other, 8))
			snprintf(msg, sizeof(msg), "is an xsched affinity %s, not an affinity %s",
				 other_kind, kind);
		else
			snprintf(msg, sizeof(msg), "not an xsched affinity %s (foreign file: no "
				 "%.8s magic)", kind, magic);
		return xs_bad(path, msg);
	}
	memcpy(&version, buf + 8, 4);
	memcpy(&hsz, buf + 12, 4);
	if (version != XS_AFF_VERSION) {
		snprintf(msg, sizeof(msg), "affinity %s of version %u; this xsched reads version "
			 "%u (stale: record or plan again)", kind, version, XS_AFF_VERSION);
		return xs_bad(path, msg);
	}
	if (hsz != hdr_size || len < hdr_size) {
		snprintf(msg, sizeof(msg), "corrupt: header of %u bytes in a file of %zu, expected "
			 "%u", hsz, len, hdr_size);
		return xs_bad(path, msg);
	}
	memcpy(&ck, buf + ck_off, 8);
	want = xs_file_checksum(buf, len, ck_off);
	if (ck != want) {
		snprintf(msg, sizeof(msg), "corrupt: checksum %016llx, contents give %016llx",
			 (unsigned long long)ck, (unsigned long long)want);
		return xs_bad(path, msg);
	}
	return 0;
}

static uint64_t xs_parts_checksum(const struct xs_part *parts, int nparts)
{
	uint64_t h = XS_FNV_INIT;

	for (int i = 0; i < nparts; i++)
		h = xs_fnv(h, parts[i].p, parts[i].len);
	return h;
}

/* ---------------------------------------------------------------- */
/* The graph file */

int xs_aff_hgraph_write(const char *path, const struct xs_aff_hgraph *h)
{
	struct xs_aff_ghdr hd = {
		.version = XS_AFF_VERSION, .hdr_size = sizeof(hd), .n = h->n,
		.granule = h->granule, .nthreads = h->nthreads, .shift = h->shift,
		.naddrs = h->naddrs, .nedges = h->nedges, .nentries = h->nentries,
		.accesses = h->accesses, .dropped = h->dropped, .seconds = h->seconds,
	};
	struct xs_part parts[] = {
		{ &hd, sizeof(hd) },
		{ h->vweight, (size_t)h->nthreads * sizeof(*h->vweight) },
		{ h->eoff, (size_t)(h->nedges + 1) * sizeof(*h->eoff) },
		{ h->ethreads, (size_t)h->nentries * sizeof(*h->ethreads) },
	};

	memcpy(hd.magic, xs_graph_magic, 8);
	hd.checksum = xs_parts_checksum(parts, 4);
	return xs_write_parts(path, parts, 4);
}

int xs_aff_hgraph_parse(const char *path, const void *data, size_t len,
			struct xs_aff_hgraph *h)
{
	const unsigned char *buf = data;
	struct xs_aff_ghdr hd;
	size_t want;
	int ret;

	memset(h, 0, sizeof(*h));
	ret = xs_check_header(path, buf, len, xs_graph_magic, xs_sched_magic, "graph",
			      "schedule", sizeof(hd), offsetof(struct xs_aff_ghdr, checksum));
	if (ret)
		goto out;
	memcpy(&hd, buf, sizeof(hd));
	ret = -EINVAL;
	if (hd.nthreads == 0 || hd.nedges > (1ull << 40) || hd.nentries > (1ull << 40) ||
	    !hd.granule || hd.n / hd.granule + (hd.n % hd.granule != 0) != hd.nthreads) {
		xs_bad(path, "corrupt: inconsistent counts in the header");
		goto out;
	}
	want = sizeof(hd) + (size_t)hd.nthreads * 4 + (size_t)(hd.nedges + 1) * 8 +
	       (size_t)hd.nentries * 4;
	if (len != want) {
		xs_bad(path, "corrupt: size does not match the header's counts");
		goto out;
	}
	h->n = hd.n;
	h->granule = hd.granule;
	h->nthreads = hd.nthreads;
	h->shift = hd.shift;
	h->naddrs = hd.naddrs;
	h->nedges = hd.nedges;
	h->nentries = hd.nentries;
	h->accesses = hd.accesses;
	h->dropped = hd.dropped;
	h->seconds = hd.seconds;
	h->vweight = malloc((size_t)hd.nthreads * 4);
	h->eoff = malloc((size_t)(hd.nedges + 1) * 8);
	h->ethreads = malloc(hd.nentries ? (size_t)hd.nentries * 4 : 1);
	if (!h->vweight || !h->eoff || !h->ethreads) {
		ret = -ENOMEM;
		goto out;
	}
	memcpy(h->vweight, buf + sizeof(hd), (size_t)hd.nthreads * 4);
	memcpy(h->eoff, buf + sizeof(hd) + (size_t)hd.nthreads * 4, (size_t)(hd.nedges + 1) * 8);
	memcpy(h->ethreads, buf + sizeof(hd) + (size_t)hd.nthreads * 4 + (hd.nedges + 1) * 8,
	       (size_t)hd.nentries * 4);
	if (h->eoff[0] || h->eoff[hd.nedges] != hd.nentries) {
		xs_bad(path, "corrupt: hyperedge offsets do not cover the entries");
		goto out;
	}
	for (uint64_t e = 0; e < hd.nedges; e++) {
		if (h->eoff[e + 1] < h->eoff[e]) {
			xs_bad(path, "corrupt: hyperedge offsets decrease");
			goto out;
		}
		for (uint64_t i = h->eoff[e]; i < h->eoff[e + 1]; i++)
			if (h->ethreads[i] >= hd.nthreads ||
			    (i > h->eoff[e] && h->ethreads[i] <= h->ethreads[i - 1])) {
				xs_bad(path, "corrupt: a hyperedge's threads are not increasing "
				       "logical thread numbers");
				goto out;
			}
	}
	ret = 0;
out:
	if (ret)
		xs_aff_hgraph_free(h);
	return ret;
}

int xs_aff_hgraph_read(const char *path, struct xs_aff_hgraph *h)
{
	unsigned char *buf;
	size_t len;
	int ret;

	memset(h, 0, sizeof(*h));
	ret = xs_read_all(path, &buf, &len);
	if (ret)
		return ret;
	ret = xs_aff_hgraph_parse(path, buf, len, h);
	free(buf);
	return ret;
}


/* ---------------------------------------------------------------- */
/* Schedules */

void xs_affinity_map_free(struct xs_affinity_map *m)
{
	free(m->start);
	free(m->order);
	m->start = NULL;
	m->order = NULL;
}

void xs_affinity_map_classify(struct xs_affinity_map *m)
{
	uint32_t i = 0;

	while (i < m->nthreads && m->order[i] == i)
		i++;
	m->identity = i == m->nthreads;
}

int xs_affinity_map_check(const struct xs_affinity_map *m, char *why, size_t len)
{
	uint8_t *seen;

	if (!m->nworkers || !m->nthreads || !m->granule || !m->start || !m->order) {
		snprintf(why, len, "no workers, logical threads or granule");
		return -EINVAL;
	}
	if (m->n / m->granule + (m->n % m->granule != 0) != m->nthreads) {
		snprintf(why, len, "%u logical threads of %llu iterations do not make %llu",
			 m->nthreads, (unsigned long long)m->granule, (unsigned long long)m->n);
		return -EINVAL;
	}
	if (m->start[0] || m->start[m->nworkers] != m->nthreads) {
		snprintf(why, len, "worker blocks do not cover the %u logical threads",
			 m->nthreads);
		return -EINVAL;
	}
	for (uint32_t w = 0; w < m->nworkers; w++)
		if (m->start[w + 1] < m->start[w]) {
			snprintf(why, len, "worker %u's block ends before it starts", w);
			return -EINVAL;
		}
	seen = calloc(m->nthreads, 1);
	if (!seen)
		return -ENOMEM;
	for (uint32_t i = 0; i < m->nthreads; i++) {
		uint32_t k = m->order[i];

		if (k >= m->nthreads || seen[k]) {
			snprintf(why, len, "logical thread %u %s", k,
				 k >= m->nthreads ? "does not exist" : "is scheduled twice");
			free(seen);
			return -EINVAL;
		}
		seen[k] = 1;
	}
	free(seen);
	return 0;
}

int xs_affinity_map_write(const char *path, const struct xs_affinity_map *m)
{
	struct xs_aff_shdr hd = {
		.version = XS_AFF_VERSION, .hdr_size = sizeof(hd), .n = m->n,
		.granule = m->granule, .nthreads = m->nthreads, .nworkers = m->nworkers,
		.machine = m->machine,
	};
	struct xs_part parts[] = {
		{ &hd, sizeof(hd) },
		{ m->start, ((size_t)m->nworkers + 1) * sizeof(*m->start) },
		{ m->order, (size_t)m->nthreads * sizeof(*m->order) },
	};

	memcpy(hd.magic, xs_sched_magic, 8);
	snprintf(hd.machine_desc, sizeof(hd.machine_desc), "%s", m->machine_desc);
	hd.checksum = xs_parts_checksum(parts, 3);
	return xs_write_parts(path, parts, 3);
}

int xs_affinity_map_parse(const char *path, const void *data, size_t len,
			  struct xs_affinity_map *m)
{
	const unsigned char *buf = data;
	struct xs_aff_shdr hd;
	char why[160], msg[256];
	int ret;

	memset(m, 0, sizeof(*m));
	ret = xs_check_header(path, buf, len, xs_sched_magic, xs_graph_magic, "schedule",
			      "graph (plan it: xsched-affinity plan GRAPH -o SCHEDULE)", sizeof(hd),
			      offsetof(struct xs_aff_shdr, checksum));
	if (ret)
		goto out;
	memcpy(&hd, buf, sizeof(hd));
	ret = -EINVAL;
	if (!hd.nworkers || hd.nworkers > 1u << 20 || !hd.nthreads ||
	    len != sizeof(hd) + ((size_t)hd.nworkers + 1) * 4 + (size_t)hd.nthreads * 4) {
		xs_bad(path, "corrupt: size does not match the header's counts");
		goto out;
	}
	m->n = hd.n;
	m->granule = hd.granule;
	m->nthreads = hd.nthreads;
	m->nworkers = hd.nworkers;
	m->machine = hd.machine;
	memcpy(m->machine_desc, hd.machine_desc, sizeof(m->machine_desc));
	m->machine_desc[sizeof(m->machine_desc) - 1] = '\0';
	m->start = malloc(((size_t)hd.nworkers + 1) * 4);
	m->order = malloc((size_t)hd.nthreads * 4);
	if (!m->start || !m->order) {
		ret = -ENOMEM;
		goto out;
	}
	memcpy(m->start, buf + sizeof(hd), ((size_t)hd.nworkers + 1) * 4);
	memcpy(m->order, buf + sizeof(hd) + ((size_t)hd.nworkers + 1) * 4, (size_t)hd.nthreads * 4);
	ret = xs_affinity_map_check(m, why, sizeof(why));
	if (ret == -EINVAL) {
		snprintf(msg, sizeof(msg), "corrupt: %s", why);
		xs_bad(path, msg);
	}
	if (!ret)
		xs_affinity_map_classify(m);
out:
	if (ret)
		xs_affinity_map_free(m);
	return ret;
}

int xs_affinity_map_read(const char *path, struct xs_affinity_map *m)
{
	unsigned char *buf;
	size_t len;
	int ret;

	memset(m, 0, sizeof(*m));
	ret = xs_read_all(path, &buf, &len);
	if (ret)
		return ret;
	ret = xs_affinity_map_parse(path, buf, len, m);
	free(buf);
	return ret;
}


/* ---------------------------------------------------------------- */
/* Machines */

void xs_aff_machine_free(struct xs_aff_machine *m)
{
	free(m->node);
	free(m->llc);
	free(m->core);
	m->node = m->llc = m->core = NULL;
}

static uint32_t xs_distinct(const uint32_t *v, uint32_t n)
{
	uint32_t d = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t j = 0;

		while (j < i && v[j] != v[i])
			j++;
		d += j == i;
	}
	return d;
}

static int xs_machine_fill(const struct xs_topology *topo, const uint32_t *cpu_index,
			   uint32_t nworkers, struct xs_aff_machine *m)
{
	memset(m, 0, sizeof(*m));
	m->nworkers = nworkers;
	m->node = malloc(nworkers * sizeof(uint32_t));
	m->llc = malloc(nworkers * sizeof(uint32_t));
	m->core = malloc(nworkers * sizeof(uint32_t));
	if (!m->node || !m->llc || !m->core) {
		xs_aff_machine_free(m);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < nworkers; i++) {
		const struct xs_cpu_info *c = &topo->cpus[cpu_index[i]];

		m->node[i] = c->node;
		m->llc[i] = c->llc;
		m->core[i] = c->core_group;
	}
	m->hash = xs_fnv(XS_FNV_INIT, &nworkers, sizeof(nworkers));
	m->hash = xs_fnv(m->hash, m->node, nworkers * sizeof(uint32_t));
	m->hash = xs_fnv(m->hash, m->llc, nworkers * sizeof(uint32_t));
	m->hash = xs_fnv(m->hash, m->core, nworkers * sizeof(uint32_t));
	snprintf(m->desc, sizeof(m->desc), "%u workers on %u nodes, %u LLCs, %u cores",
		 nworkers, xs_distinct(m->node, nworkers), xs_distinct(m->llc, nworkers),
		 xs_distinct(m->core, nworkers));
	return 0;
}

int xs_aff_machine_from_topology(const struct xs_topology *topo, int bind, uint32_t nworkers,
				 struct xs_aff_machine *m)
{
	uint32_t *place = calloc(nworkers ? nworkers : 1, sizeof(*place));
	int ret;

	if (!place)
		return -ENOMEM;
	/* As the runtime places them (runtime.c): unpinned workers take the
	 * compact positions. */
	ret = xs_topology_place(topo, bind == XS_BIND_NONE ? XS_BIND_COMPACT : bind, nworkers,
				place);
	if (!ret)
		ret = xs_machine_fill(topo, place, nworkers, m);
	free(place);
	return ret;
}

int xs_aff_machine_from_runtime(const struct xs_runtime *rt, struct xs_aff_machine *m)
{
	uint32_t *place = calloc(rt->nworkers, sizeof(*place));
	int ret;

	if (!place)
		return -ENOMEM;
	for (uint32_t i = 0; i < rt->nworkers; i++)
		place[i] = rt->workers[i]->cpu_index;
	ret = xs_machine_fill(rt->topo, place, rt->nworkers, m);
	free(place);
	return ret;
}

/* ---------------------------------------------------------------- */
/* Replay */

/* Say @msg once, until another message comes (relaxed: the word only
 * suppresses a repeated line). */
static void xs_say_once(const char *msg)
{
	static _Atomic uint64_t last;
	uint64_t h = xs_fnv(XS_FNV_INIT, msg, strlen(msg)) | 1;

	if (xs_exchange_relaxed(&last, h) != h)
		fputs(msg, stderr);
}

int xs_affinity_map_fits(const struct xs_affinity_map *m, const char *path, uint64_t n,
			 const struct xs_aff_machine *mach)
{
	char msg[5120];

	if (mach && (m->machine != mach->hash || m->nworkers != mach->nworkers)) {
		snprintf(msg, sizeof(msg), "xsched: affinity: %s: stale: planned for %s "
			 "(machine %016llx), this runtime has %s (machine %016llx); affinity "
			 "loops run hybrid\n", path, m->machine_desc,
			 (unsigned long long)m->machine, mach->desc,
			 (unsigned long long)mach->hash);
		xs_say_once(msg);
		return -ESTALE;
	}
	if (m->n != n) {
		snprintf(msg, sizeof(msg), "xsched: affinity: %s: the schedule is for loops of "
			 "%llu iterations, this loop has %llu; it runs hybrid\n", path,
			 (unsigned long long)m->n, (unsigned long long)n);
		xs_say_once(msg);
		return -ESTALE;
	}
	return 0;
}

static pthread_mutex_t xs_replay_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct xs_affinity_map *xs_replay_override;
static struct xs_affinity_map xs_replay_map;
static char xs_replay_path[4096];
static bool xs_replay_loaded, xs_replay_ok;
/* The machine of the last runtime asked about: a loop's lookup must not
 * cost a placement walk (its workers never move). */
static const struct xs_runtime *xs_replay_rt;
static const void *xs_replay_rt_workers, *xs_replay_rt_topo;
static struct xs_aff_machine xs_replay_mach;

void xs_affinity_override(const struct xs_affinity_map *m)
{
	pthread_mutex_lock(&xs_replay_lock);
	xs_replay_override = m;
	xs_affinity_epoch_bump();
	pthread_mutex_unlock(&xs_replay_lock);
}

const struct xs_affinity_map *xs_affinity_lookup(struct xs_runtime *rt, uint64_t n,
						 uint32_t nthreads)
{
	const struct xs_affinity_map *m;
	const char *path = rt ? rt->opt.affinity_file : "";
	struct xs_aff_machine mach;

	if (!rt)
		return NULL;
	pthread_mutex_lock(&xs_replay_lock);
	m = xs_replay_override;
	if (m) {
		path = "(in-process schedule)";
	} else if (!path[0]) {
		xs_say_once("xsched: affinity: XSCHED_LOOP_SCHEDULE=affinity without "
			    "XSCHED_AFFINITY_FILE; loops run hybrid\n");
	} else {
		if (!xs_replay_loaded || strcmp(path, xs_replay_path)) {
			xs_affinity_map_free(&xs_replay_map);
			snprintf(xs_replay_path, sizeof(xs_replay_path), "%s", path);
			xs_replay_ok = xs_affinity_map_read(path, &xs_replay_map) == 0;
			xs_replay_loaded = true;
			xs_affinity_epoch_bump();
			if (!xs_replay_ok)
				fprintf(stderr, "xsched: affinity: XSCHED_AFFINITY_FILE=%s rejected; "
					"affinity loops run hybrid\n", path);
		}
		m = xs_replay_ok ? &xs_replay_map : NULL;
	}
	if (m && nthreads != m->nworkers) {
		char msg[5120];

		snprintf(msg, sizeof(msg), "xsched: affinity: %s: planned for %u workers, this "
			 "loop has %u threads; it runs hybrid\n", path, m->nworkers, nthreads);
		xs_say_once(msg);
		m = NULL;
	}
	if (m && (xs_replay_rt != rt || xs_replay_rt_workers != rt->workers ||
		  xs_replay_rt_topo != rt->topo || xs_replay_mach.nworkers != rt->nworkers)) {
		if (xs_aff_machine_from_runtime(rt, &mach) < 0) {
			m = NULL;
		} else {
			xs_aff_machine_free(&xs_replay_mach);
			xs_replay_mach = mach;
			xs_replay_rt = rt;
			xs_replay_rt_workers = rt->workers;
			xs_replay_rt_topo = rt->topo;
		}
	}
	if (m && xs_affinity_map_fits(m, path, n, &xs_replay_mach) < 0)
		m = NULL;
	pthread_mutex_unlock(&xs_replay_lock);
	return m;
}
