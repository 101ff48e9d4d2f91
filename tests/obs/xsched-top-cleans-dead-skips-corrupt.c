// SPDX-License-Identifier: MIT
/*
 * Pages that must not be shown: the page of a process that died without
 * destroying its runtime (_exit) is recognised and removed by the reader;
 * corrupt pages (bad magic, other version, truncated, inconsistent sizes)
 * are skipped with a note naming the file, beside a valid page that is
 * still listed; a state file that is not xschedd's makes the daemon
 * "absent" with the reason. Nothing crashes: the tool exits 0.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xs_test.h"
#include "xsched-top-test.h"
#include "xsched/stats_page.h"

/* The path of the first page of process @pid in @dir, or "" */
static void find_page(const char *dir, int pid, char *path, size_t len)
{
	char prefix[64];
	struct dirent *e;
	DIR *d = opendir(dir);

	path[0] = '\0';
	snprintf(prefix, sizeof(prefix), XS_STATS_PREFIX "%d.", pid);
	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, prefix, strlen(prefix)))
			snprintf(path, len, "%s/%s", dir, e->d_name);
	if (d)
		closedir(d);
}

TEST(dead_process_page_is_removed)
{
	static char out[1 << 16];
	char path[4200], note[128];
	pid_t pid;
	int st;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		setenv("XSCHED_STATS_PAGE", "1", 1);
		setenv("XSCHED_RUNTIME_DIR", "/nonexistent-xsched-top-test", 1);
		/* Created, then gone without destroy or exit handlers. */
		_exit(xs_runtime_create(2) ? 0 : 3);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_EQ(0, WEXITSTATUS(st));
	find_page(XS_STATS_SHM_DIR, pid, path, sizeof(path));
	ASSERT_NE(0, path[0]) TH_LOG("no page of %d in " XS_STATS_SHM_DIR, (int)pid);

	ASSERT_EQ(0, tt_run(out, sizeof(out), "--json -n 1 -p %d --runtime-dir /nonexistent",
			    (int)pid));
	EXPECT_EQ(NULL, tt_json_proc(out, pid)) TH_LOG("%s", out);
	snprintf(note, sizeof(note), ": process %d is gone", (int)pid);
	EXPECT_NE(NULL, strstr(out, note)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "removed ")) TH_LOG("%s", out);
	EXPECT_NE(0, access(path, F_OK));
}

static void write_file(const char *dir, const char *name, const void *data, size_t len)
{
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len)
		perror(path);
	close(fd);
}

TEST(corrupt_pages_skipped_with_a_note)
{
	static char out[1 << 16];
	char dir[] = "/tmp/xsched-top-corrupt-XXXXXX", name[64], shm[4200], valid[4200];
	/* aligned as the header it holds (64 bytes): UBSan checks the casts */
	_Alignas(struct xs_stats_header) unsigned char page[4096];
	struct xs_stats_header *h = (struct xs_stats_header *)page;
	struct xs_runtime *rt;
	int me = getpid();

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(shm, sizeof(shm), "%s/shm", dir);
	ASSERT_EQ(0, mkdir(shm, 0755));
	/* A "state" that is not xschedd's: the library takes the directory
	 * for a runtime directory (and publishes there), the tool must say
	 * the daemon is absent and why. */
	memset(page, 'x', sizeof(page));
	write_file(dir, "state", page, sizeof(page));
	setenv("XSCHED_RUNTIME_DIR", dir, 1);
	setenv("XSCHED_DAEMON", "off", 1);
	setenv("XSCHED_STATS_PAGE", "1", 1);
	rt = xs_runtime_create(2);
	ASSERT_NE(NULL, rt);
	find_page(dir, me, valid, sizeof(valid));
	EXPECT_NE(0, valid[0]) TH_LOG("no page of this process in %s", dir);

	/* Our pid (alive), so only the content can disqualify them. */
	memset(page, 0, sizeof(page));
	h->magic = 0x1234;
	snprintf(name, sizeof(name), XS_STATS_PREFIX "%d.900", me);
	write_file(shm, name, page, 512);

	h->magic = XS_STATS_MAGIC;
	h->version = 99;
	h->header_size = sizeof(*h);
	snprintf(name, sizeof(name), XS_STATS_PREFIX "%d.901", me);
	write_file(shm, name, page, 512);

	snprintf(name, sizeof(name), XS_STATS_PREFIX "%d.902", me);
	write_file(shm, name, page, 10);

	h->version = XS_STATS_VERSION;
	h->total_size = 512;
	h->worker_off = sizeof(*h);
	h->worker_size = sizeof(struct xs_stats_worker);
	h->nworkers = 1000; /* far beyond the file */
	h->pid = (__u32)me;
	h->runtime_id = 903;
	snprintf(name, sizeof(name), XS_STATS_PREFIX "%d.903", me);
	write_file(shm, name, page, 512);

	ASSERT_EQ(0, tt_run(out, sizeof(out), "--json -n 1 -p %d --runtime-dir %s --shm-dir %s",
			    me, dir, shm));
	EXPECT_NE(NULL, strstr(out, "\"daemon\":{\"mode\":\"absent\"")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "another daemon or ABI version")) TH_LOG("%s", out);
	for (int id = 900; id <= 903; id++) {
		char note[4400];

		snprintf(note, sizeof(note), "skipped %s/" XS_STATS_PREFIX "%d.%d: corrupt page",
			 shm, me, id);
		EXPECT_NE(NULL, strstr(out, note)) TH_LOG("%s\n%s", note, out);
		/* Skipped, not removed: the process it names is alive. */
		snprintf(note, sizeof(note), "%s/" XS_STATS_PREFIX "%d.%d", shm, me, id);
		EXPECT_EQ(0, access(note, F_OK));
		unlink(note);
	}
	EXPECT_NE(NULL, strstr(out, "\"path\":\"")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, valid)) TH_LOG("the valid page %s is not listed: %s", valid,
						  out);
	EXPECT_EQ(2, tt_json_num(tt_json_proc(out, me), "workers"));

	/* The plain-text mode says the same and does not crash either. */
	EXPECT_EQ(0, tt_run(out, sizeof(out), "-b -n 1 --runtime-dir %s --shm-dir %s", dir, shm));
	EXPECT_NE(NULL, strstr(out, "daemon absent")) TH_LOG("%s", out);

	xs_runtime_destroy(rt);
	EXPECT_NE(0, access(valid, F_OK));
	unsetenv("XSCHED_RUNTIME_DIR");
	unlink(strcat(strcpy(valid, dir), "/state"));
	rmdir(shm);
	EXPECT_EQ(0, rmdir(dir));
}

TEST_HARNESS_MAIN
