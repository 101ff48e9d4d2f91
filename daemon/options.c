// SPDX-License-Identifier: MIT
/*
 * options.c - the one table behind xschedd's settings.
 *
 * Each setting has an environment name (XSCHEDD_*, as in the env file
 * /etc/default/xschedd), a long option, a default, a range and a line of
 * documentation. Later sources override earlier ones:
 *
 *   defaults < env file < XSCHEDD_* environment < command line
 *
 * The env file is systemd's EnvironmentFile= syntax restricted to what we
 * need: "NAME=value" lines, '#' comments, blank lines, optional "export ",
 * value optionally in single or double quotes. A bad value, an unknown
 * name or a malformed line is an error that names the file, the line and
 * the setting with its accepted range.
 */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xschedd.h"
#include "../tools/version.h"

extern char **environ;

enum xsd_opt_kind { XSD_INT, XSD_OCTAL, XSD_PATH, XSD_ENUM };

struct xsd_opt_def {
	const char *env;
	const char *longopt;
	enum xsd_opt_kind kind;
	size_t offset;
	int64_t def, min, max;
	const char *range;
	const char *doc;
	const char *const *choices;
};

static const char *const xsd_bpf_choices[] = { "auto", "on", "off", NULL };

#define XSD_OPT(f) offsetof(struct xsd_options, f)

static const struct xsd_opt_def xsd_opts[] = {
	{ "XSCHEDD_RUNTIME_DIR", "runtime-dir", XSD_PATH, XSD_OPT(runtime_dir), 0, 0, 0,
	  "an absolute directory path", "where the state file and the socket are", NULL },
	{ "XSCHEDD_TICK_MS", "tick-ms", XSD_INT, XSD_OPT(tick_ms), 10, 1, 1000, "1..1000",
	  "milliseconds between two publications", NULL },
	{ "XSCHEDD_DECAY", "decay", XSD_INT, XSD_OPT(decay), 30, 1, 100, "1..100",
	  "percent weight of the newest sample in the decayed loads", NULL },
	{ "XSCHEDD_SLOTS", "slots", XSD_INT, XSD_OPT(slots), 4096, 1, 65536, "1..65536",
	  "worker slots in all (the global quota)", NULL },
	{ "XSCHEDD_CLIENT_SLOTS", "client-slots", XSD_INT, XSD_OPT(client_slots), 1024, 1,
	  65536, "1..65536", "worker slots one client may hold", NULL },
	{ "XSCHEDD_MAX_CLIENTS", "max-clients", XSD_INT, XSD_OPT(max_clients), 1024, 1,
	  65536, "1..65536", "connected clients at most", NULL },
	{ "XSCHEDD_USER_SLOTS", "user-slots", XSD_INT, XSD_OPT(user_slots), 0, 0, 65536,
	  "0..65536", "worker slots one user may hold; 0: a quarter of XSCHEDD_SLOTS, at "
	  "least XSCHEDD_CLIENT_SLOTS", NULL },
	{ "XSCHEDD_USER_CLIENTS", "user-clients", XSD_INT, XSD_OPT(user_clients), 64, 1,
	  65536, "1..65536", "connected clients one user may have", NULL },
	{ "XSCHEDD_USER_RATE", "user-rate", XSD_INT, XSD_OPT(user_rate), 2000, 1, 1000000,
	  "1..1000000",
	  "request units (one per request and one per tid) a user may send per second; "
	  "more wait", NULL },
	{ "XSCHEDD_CLIENT_IDLE_MS", "client-idle-ms", XSD_INT, XSD_OPT(client_idle_ms), 60000,
	  100, 86400000, "100..86400000",
	  "milliseconds a client holding no slots may stay silent before it is closed",
	  NULL },
	{ "XSCHEDD_SOCKET_MODE", "socket-mode", XSD_OCTAL, XSD_OPT(socket_mode), 0666, 0,
	  0777, "an octal mode 0..0777", "permissions of the client socket", NULL },
	{ "XSCHEDD_BPF", "bpf", XSD_ENUM, XSD_OPT(bpf), XSD_BPF_AUTO, 0, 2, "auto, on or off",
	  "use the BPF programs: if they load (else degraded mode), always, never",
	  xsd_bpf_choices },
	{ "XSCHEDD_SYSFS_ROOT", "sysfs-root", XSD_PATH, XSD_OPT(sysfs_root), 0, 0, 0,
	  "a directory laid out like /sys/devices/system",
	  "read the topology from here (tests); \"\" = the real machine", NULL },
	{ "XSCHEDD_SHARE_HOLD_MS", "share-hold-ms", XSD_INT, XSD_OPT(share_hold_ms), 100, 0,
	  60000, "0..60000",
	  "milliseconds an idle process keeps its CPU share before the others get it", NULL },
	{ "XSCHEDD_SHARE_FOREIGN", "share-foreign", XSD_INT, XSD_OPT(share_foreign), 1, 0, 1,
	  "0 or 1",
	  "1: the CPUs xsched processes share exclude those other work keeps busy; 0: all",
	  NULL },
	{ "XSCHEDD_VERBOSE", "verbose", XSD_INT, XSD_OPT(verbose), 0, 0, 1, "0 or 1",
	  "log the effective settings and every client event", NULL },
};

#define XSD_NOPTS (sizeof(xsd_opts) / sizeof(xsd_opts[0]))

static const struct xsd_opt_def *xsd_opt_by_env(const char *name, size_t len)
{
	for (size_t i = 0; i < XSD_NOPTS; i++)
		if (strlen(xsd_opts[i].env) == len && !memcmp(xsd_opts[i].env, name, len))
			return &xsd_opts[i];
	return NULL;
}

/* @where: "--tick-ms", "XSCHEDD_TICK_MS" or "/etc/default/xschedd:3" */
static int xsd_opt_set(const struct xsd_opt_def *d, const char *value, const char *where,
		       struct xsd_options *opt)
{
	void *field = (char *)opt + d->offset;
	char *end;
	long long v;

	if (d->kind == XSD_PATH) {
		if (strlen(value) >= PATH_MAX ||
		    (d->offset == XSD_OPT(runtime_dir) && value[0] != '/'))
			goto bad;
		strcpy(field, value);
		return 0;
	}
	if (d->kind == XSD_ENUM) {
		for (int64_t i = 0; d->choices[i]; i++)
			if (!strcmp(value, d->choices[i])) {
				*(int64_t *)field = i;
				return 0;
			}
		goto bad;
	}
	errno = 0;
	v = strtoll(value, &end, d->kind == XSD_OCTAL ? 8 : 10);
	if (errno || end == value || *end || v < d->min || v > d->max)
		goto bad;
	*(int64_t *)field = v;
	return 0;
bad:
	xsd_log("%s: %s=\"%s\" is invalid: expected %s\n", where, d->env, value, d->range);
	return -EINVAL;
}

static char *xsd_trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

static int xsd_env_file_load(const char *path, bool must_exist, struct xsd_options *opt)
{
	char line[PATH_MAX + 64], where[PATH_MAX + 32];
	unsigned int lineno = 0;
	int ret = 0;
	FILE *f = fopen(path, "re");

	if (!f) {
		if (errno == ENOENT && !must_exist)
			return 0;
		ret = -errno;
		xsd_log("env file %s: %s\n", path, strerror(errno));
		return ret;
	}
	while (fgets(line, sizeof(line), f)) {
		char *s = xsd_trim(line), *eq, *val;
		const struct xsd_opt_def *d;
		size_t vlen;

		lineno++;
		snprintf(where, sizeof(where), "%s:%u", path, lineno);
		if (!*s || *s == '#' || *s == ';')
			continue;
		if (!strncmp(s, "export ", 7))
			s = xsd_trim(s + 7);
		eq = strchr(s, '=');
		if (!eq) {
			xsd_log("%s: expected NAME=value, got \"%s\"\n", where, s);
			ret = -EINVAL;
			continue;
		}
		*eq = '\0';
		s = xsd_trim(s);
		val = xsd_trim(eq + 1);
		vlen = strlen(val);
		if (vlen >= 2 && (val[0] == '"' || val[0] == '\'') && val[vlen - 1] == val[0]) {
			val[vlen - 1] = '\0';
			val++;
		}
		d = xsd_opt_by_env(s, strlen(s));
		if (!d) {
			xsd_log("%s: unknown setting %s (see xschedd --help)\n", where, s);
			ret = -EINVAL;
			continue;
		}
		if (xsd_opt_set(d, val, where, opt))
			ret = -EINVAL;
	}
	fclose(f);
	return ret;
}

static const struct option xsd_fixed_longopts[] = {
	{ "foreground", no_argument, NULL, 'f' },
	{ "env-file", required_argument, NULL, 'e' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
};
#define XSD_NFIXED 4

static void xsd_longopts(struct option *lo)
{
	memcpy(lo, xsd_fixed_longopts, sizeof(xsd_fixed_longopts));
	for (size_t i = 0; i < XSD_NOPTS; i++)
		lo[XSD_NFIXED + i] = (struct option){ xsd_opts[i].longopt, required_argument,
						      NULL, (int)(256 + i) };
	lo[XSD_NFIXED + XSD_NOPTS] = (struct option){ NULL, 0, NULL, 0 };
}

void xsd_usage(FILE *f)
{
	fprintf(f, "usage: xschedd [--foreground] [--env-file FILE] [--SETTING VALUE]...\n\n"
		   "  --foreground        stay attached to the terminal (systemd, tests)\n"
		   "  --env-file FILE     settings file (default " XSD_DEFAULT_ENV_FILE
		   ", if present)\n"
		   "  -h, --help          this text\n"
		   "  -V, --version       the xsched version\n\n"
		   "settings (--option, or NAME=value in the env file or environment):\n");
	for (size_t i = 0; i < XSD_NOPTS; i++)
		fprintf(f, "  --%-14s %-20s %s (%s)\n", xsd_opts[i].longopt, xsd_opts[i].env,
			xsd_opts[i].doc, xsd_opts[i].range);
}

/* First pass: the fixed options; the settings are applied by
 * xsd_options_load() so that HUP can apply them again over a new env file. */
int xsd_cmdline_parse(int argc, char **argv, struct xsd_cmdline *cl)
{
	struct option lo[XSD_NFIXED + XSD_NOPTS + 1];
	int c;

	memset(cl, 0, sizeof(*cl));
	snprintf(cl->env_file, sizeof(cl->env_file), "%s", XSD_DEFAULT_ENV_FILE);
	cl->argc = argc;
	cl->argv = argv;
	xsd_longopts(lo);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+hV", lo, NULL)) != -1) {
		switch (c) {
		case 'f':
			cl->foreground = true;
			break;
		case 'e':
			if (strlen(optarg) >= sizeof(cl->env_file)) {
				xsd_log("--env-file: path too long\n");
				return -EINVAL;
			}
			strcpy(cl->env_file, optarg);
			cl->env_file_given = true;
			break;
		case 'h':
			xsd_usage(stdout);
			return 1;
		case 'V':
			tool_version("xschedd");
			return 1;
		case '?':
			if (optopt >= 256)
				xsd_log("option --%s needs a value\n",
					xsd_opts[optopt - 256].longopt);
			else
				xsd_log("unknown option %s (see --help)\n", argv[optind - 1]);
			return -EINVAL;
		default:
			break; /* settings: xsd_options_load() */
		}
	}
	if (optind < argc) {
		xsd_log("unexpected argument \"%s\" (see --help)\n", argv[optind]);
		return -EINVAL;
	}
	return 0;
}

int xsd_options_load(const struct xsd_cmdline *cl, struct xsd_options *opt)
{
	struct option lo[XSD_NFIXED + XSD_NOPTS + 1];
	char where[64];
	int ret = 0, c;

	memset(opt, 0, sizeof(*opt));
	for (size_t i = 0; i < XSD_NOPTS; i++)
		if (xsd_opts[i].kind != XSD_PATH)
			*(int64_t *)((char *)opt + xsd_opts[i].offset) = xsd_opts[i].def;
	strcpy(opt->runtime_dir, XS_ABI_DEFAULT_RUNTIME_DIR);

	if (xsd_env_file_load(cl->env_file, cl->env_file_given, opt))
		ret = -EINVAL;
	for (char **e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		const struct xsd_opt_def *d;

		if (strncmp(*e, "XSCHEDD_", 8) || !eq)
			continue;
		d = xsd_opt_by_env(*e, (size_t)(eq - *e));
		if (!d) {
			xsd_log("environment: unknown setting %.*s (see xschedd --help)\n",
				(int)(eq - *e), *e);
			ret = -EINVAL;
		} else if (xsd_opt_set(d, eq + 1, "environment", opt)) {
			ret = -EINVAL;
		}
	}
	xsd_longopts(lo);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(cl->argc, cl->argv, "+", lo, NULL)) != -1) {
		if (c < 256)
			continue;
		snprintf(where, sizeof(where), "--%s", xsd_opts[c - 256].longopt);
		if (xsd_opt_set(&xsd_opts[c - 256], optarg, where, opt))
			ret = -EINVAL;
	}
	if (!ret && opt->user_slots > opt->slots) {
		xsd_log("XSCHEDD_USER_SLOTS=%lld is more than XSCHEDD_SLOTS=%lld\n",
			(long long)opt->user_slots, (long long)opt->slots);
		ret = -EINVAL;
	}
	if (!ret && opt->client_slots > opt->slots) {
		xsd_log("XSCHEDD_CLIENT_SLOTS=%lld is more than XSCHEDD_SLOTS=%lld\n",
			(long long)opt->client_slots, (long long)opt->slots);
		ret = -EINVAL;
	}
	return ret;
}

void xsd_options_dump(const struct xsd_options *opt)
{
	for (size_t i = 0; i < XSD_NOPTS; i++) {
		const struct xsd_opt_def *d = &xsd_opts[i];
		const void *f = (const char *)opt + d->offset;

		if (d->kind == XSD_PATH)
			xsd_log("%s=%s\n", d->env, (const char *)f);
		else if (d->kind == XSD_ENUM)
			xsd_log("%s=%s\n", d->env, d->choices[*(const int64_t *)f]);
		else if (d->kind == XSD_OCTAL)
			xsd_log("%s=%04llo\n", d->env, (long long)*(const int64_t *)f);
		else
			xsd_log("%s=%lld\n", d->env, (long long)*(const int64_t *)f);
	}
}
