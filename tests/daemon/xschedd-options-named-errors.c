// SPDX-License-Identifier: MIT
/*
 * xschedd's settings: a bad value on the command line, in the environment
 * or in the env file stops start-up with a message that names the setting
 * (and the file and line) and the accepted range; SIGHUP re-reads the env
 * file and the new tick is published.
 */
#include "kselftest_harness.h"
#include "xschedd-test.h"

static char envfile[64];

static void write_env(const char *text)
{
	FILE *f;

	if (!envfile[0]) {
		int fd;

		strcpy(envfile, "/tmp/xschedd-env-XXXXXX");
		fd = mkstemp(envfile);
		if (fd >= 0)
			close(fd);
	}
	f = fopen(envfile, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

TEST(bad_command_line_value)
{
	struct xsd_test t;

	EXPECT_EQ(-ECHILD, xsd_test_start(&t, "--tick-ms", "0"));
	EXPECT_TRUE(xsd_test_log_has(&t, "--tick-ms: XSCHEDD_TICK_MS=\"0\" is invalid: "
					 "expected 1..1000")) xsd_test_dump_log(&t);
	xsd_test_stop(&t);
	EXPECT_EQ(-ECHILD, xsd_test_start(&t, "--bpf", "maybe"));
	EXPECT_TRUE(xsd_test_log_has(&t, "XSCHEDD_BPF=\"maybe\" is invalid: expected auto, "
					 "on or off"));
	xsd_test_stop(&t);
	EXPECT_EQ(-ECHILD, xsd_test_start(&t, "--no-such-option"));
	EXPECT_TRUE(xsd_test_log_has(&t, "unknown option --no-such-option"));
	xsd_test_stop(&t);
	EXPECT_EQ(-ECHILD, xsd_test_start(&t, "--slots", "2", "--client-slots", "3"));
	EXPECT_TRUE(xsd_test_log_has(&t, "XSCHEDD_CLIENT_SLOTS=3 is more than XSCHEDD_SLOTS=2"));
	xsd_test_stop(&t);
}

TEST(bad_env_file_lines_named)
{
	struct xsd_test t;
	char want[128];

	write_env("# comment\n\nXSCHEDD_DECAY=200\nnot a setting\nXSCHEDD_NOPE=1\n"
		  "export XSCHEDD_TICK_MS=\"20\"\n");
	EXPECT_EQ(-ECHILD, xsd_test_start(&t, "--env-file", envfile));
	snprintf(want, sizeof(want), "%s:3: XSCHEDD_DECAY=\"200\" is invalid: expected 1..100",
		 envfile);
	EXPECT_TRUE(xsd_test_log_has(&t, want)) xsd_test_dump_log(&t);
	snprintf(want, sizeof(want), "%s:4: expected NAME=value", envfile);
	EXPECT_TRUE(xsd_test_log_has(&t, want));
	snprintf(want, sizeof(want), "%s:5: unknown setting XSCHEDD_NOPE", envfile);
	EXPECT_TRUE(xsd_test_log_has(&t, want));
	EXPECT_FALSE(xsd_test_log_has(&t, ":6:")); /* quoted, exported: fine */
	xsd_test_stop(&t);

	EXPECT_EQ(-ECHILD, xsd_test_start(&t, "--env-file", "/nonexistent/xschedd"));
	EXPECT_TRUE(xsd_test_log_has(&t, "env file /nonexistent/xschedd: No such file"));
	xsd_test_stop(&t);
	unlink(envfile);
}

TEST(bad_environment_value)
{
	struct xsd_test t;

	setenv("XSCHEDD_SLOTS", "lots", 1);
	EXPECT_EQ(-ECHILD, xsd_test_start(&t));
	unsetenv("XSCHEDD_SLOTS");
	EXPECT_TRUE(xsd_test_log_has(&t, "environment: XSCHEDD_SLOTS=\"lots\" is invalid: "
					 "expected 1..65536")) xsd_test_dump_log(&t);
	xsd_test_stop(&t);
}

TEST(sighup_rereads_env_file)
{
	struct xsd_test t;
	struct xsd_test_client c;
	uint64_t tick = 0;

	write_env("XSCHEDD_TICK_MS=10\nXSCHEDD_BPF=off\n");
	ASSERT_EQ(0, xsd_test_start(&t, "--env-file", envfile));
	ASSERT_EQ(0, xsd_test_client_open(&t, &c)) xsd_test_dump_log(&t);
	EXPECT_EQ(10000000u, c.state->tick_ns);
	write_env("XSCHEDD_TICK_MS=40\nXSCHEDD_BPF=off\n");
	kill(t.pid, SIGHUP);
	for (int i = 0; i < 100 && tick != 40000000u; i++) {
		xsd_test_sleep_ms(10);
		tick = __atomic_load_n(&c.state->tick_ns, __ATOMIC_RELAXED);
	}
	EXPECT_EQ(40000000u, tick) xsd_test_dump_log(&t);
	EXPECT_TRUE(xsd_test_log_has(&t, "SIGHUP: settings re-read (tick 40 ms"));
	xsd_test_client_close(&c);
	EXPECT_EQ(0, xsd_test_stop(&t));
	unlink(envfile);
}

TEST_HARNESS_MAIN
