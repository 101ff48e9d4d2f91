/* SPDX-License-Identifier: MIT */
/*
 * xschedd.h - the daemon's modules and the state they share (internal).
 *
 *   main.c       straight-line start-up, the io_uring event loop, exit
 *   options.c    the options table: command line, env file, environment
 *   bpf.c        load, configure and attach bpf/xsched.bpf.c; registration
 *   sample.c     per-tick load, run-queue latency, node memory (BPF or /proc)
 *   reweight.c   victim tables re-weighted by load (busy CPUs sink)
 *   share.c      machine-wide arbitration: CPUs per registered process
 *   state.c      the published state file and its seqlock
 *   clients.c    the Unix-socket protocol, slot quotas and reclaim, lending leases
 *   request.c    whether a received record is one well-formed request
 *   caps.c       dropping the capabilities start-up needed
 *   notify.c     READY=1, STATUS= and WATCHDOG=1 to systemd (Type=notify)
 *
 * Functions return >= 0 or -errno; every failure is logged where it is
 * detected, naming the file, setting or client.
 */
#ifndef XSCHED_DAEMON_H
#define XSCHED_DAEMON_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>

#include "xsched/abi.h"
#include "topo/topology.h"

#define XSD_DEFAULT_ENV_FILE "/etc/default/xschedd"

enum xsd_bpf_mode { XSD_BPF_AUTO, XSD_BPF_ON, XSD_BPF_OFF };

struct xsd_options {
	char runtime_dir[PATH_MAX];
	char sysfs_root[PATH_MAX]; /* "" = the real machine */
	int64_t tick_ms;
	int64_t decay;             /* percent weight of the newest sample */
	int64_t slots;             /* worker slots in all */
	int64_t client_slots;      /* worker slots per client */
	int64_t max_clients;
	int64_t user_slots;        /* worker slots per user, 0: xsd_user_slots() */
	int64_t user_clients;      /* connections per user */
	int64_t user_rate;         /* request units per second and user */
	int64_t client_idle_ms;    /* a client without slots silent this long goes */
	int64_t socket_mode;
	int64_t bpf;               /* enum xsd_bpf_mode */
	int64_t verbose;
	int64_t share_hold_ms;     /* an idle process keeps its share this long */
	int64_t share_foreign;     /* 1: other work's CPUs are not shared out */
};

struct xsd_cmdline {
	bool foreground;
	char env_file[PATH_MAX];
	bool env_file_given;       /* --env-file: a missing file is an error */
	int argc;                  /* the options given, re-applied on HUP */
	char **argv;
};

/* options.c */
int xsd_cmdline_parse(int argc, char **argv, struct xsd_cmdline *cl);
/* defaults < env file < XSCHEDD_* environment < command line */
int xsd_options_load(const struct xsd_cmdline *cl, struct xsd_options *opt);
void xsd_options_dump(const struct xsd_options *opt);
void xsd_usage(FILE *f);

/* Per-CPU measurement, by CPU index (topology order). */
struct xsd_cpu_sample {
	uint64_t total[3];         /* idle, worker, other (ns, or clock ticks) */
	uint64_t rq_lat_ns, rq_lat_count;
	uint64_t switches, migrations;
	uint32_t foreign, worker, idle, rq_us; /* decayed, permille / us */
	bool primed;
};

struct xsd_client;
struct xsd_user;

struct xsd {
	struct xsd_options opt;
	struct xsd_cmdline cl;
	struct xs_topology *topo;
	struct xs_victim_table *base;   /* topology order, static weights */
	struct xsd_bpf *bpf;            /* NULL in degraded mode */
	uint32_t mode;                  /* XS_ABI_MODE_* */
	uint32_t nslots;
	bool created_dir;
	int lock_fd;                    /* flock()ed <runtime-dir>/lock */
	/* state file: rw mapping here, O_RDONLY fd for clients */
	int state_fd, state_ro_fd;
	struct xs_abi_header *state;
	size_t state_size;
	struct xs_abi_header layout;    /* the file's layout, private: never read back */
	uint64_t seq, generation;       /* the seqlock's and tick counts, private */
	uint32_t state_flags;
	bool state_repair;              /* the file was changed: rewrite all of it */
	/* worker slots: the frozen BPF map (mapped read-only; written via
	 * xsd_bpf_slot_set()) or, in degraded mode, private memory copied to
	 * the degraded-mode file (workers_map) every tick */
	int workers_fd, workers_ro_fd;
	struct xs_abi_worker *workers;
	struct xs_abi_worker *workers_map;
	size_t workers_size;
	/* slot identities, private (clients.c): never read back from the
	 * shared arrays */
	struct xsd_client **owner;      /* owner[slot], NULL = free */
	uint32_t *slot_tid, *slot_pid;
	uint32_t *slot_link;            /* tid hash chain (used) or free list (free) */
	uint32_t *tid_bucket;           /* tid_mask + 1 chain heads */
	uint32_t tid_mask, free_slot;
	uint32_t used_slots;
	/* sampling */
	struct xsd_cpu_sample *cpu;
	uint64_t *wticks;               /* degraded: per slot, CPU ticks at the last tick */
	uint8_t *wticks_moved;          /* degraded: per slot, whether they moved this tick */
	uint64_t last_tick_ns;
	uint8_t *load_level;            /* reweight.c: level the rows were built at */
	struct xs_abi_victim *rows;     /* current load-weighted rows */
	/* arbitration (share.c): processes by pid, nprocs of nslots entries */
	struct xs_abi_share *procs, *procs_next;
	struct xsd_proc *proc_tmp;      /* scratch: one per client, sorted by pid */
	uint32_t proc_tmp_len;
	uint32_t nprocs, published_procs; /* published_procs: entries in the state */
	uint64_t *slot_switches;        /* per slot, the switch count at the last tick */
	uint32_t *cpu_owner;            /* per CPU index, the pid given it, 0: none */
	uint32_t *cpu_order;            /* scratch: CPU indexes node by node */
	uint32_t share_cpus, share_active;
	/* clients */
	int listen_fd;
	struct xsd_client *clients;     /* every connected client */
	struct xsd_user *users;         /* every user with a client */
	uint32_t nclients;
	uint32_t fd_cap;                /* clients RLIMIT_NOFILE holds (xsd_fd_budget()) */
	uint64_t ticks;
	uint64_t watchdog_ns, watchdog_last_ns; /* WATCHDOG_USEC, 0: none */
};

/* bpf.c */
int xsd_bpf_start(struct xsd *d);    /* open, size, load, attach; maps */
void xsd_bpf_stop(struct xsd *d);
/* Write slot @slot (tid, pid, state, cpu of @w) through the xs_slot_set
 * program; @if_unknown: only state and cpu, only if still UNKNOWN. */
int xsd_bpf_slot_set(struct xsd *d, uint32_t slot, const struct xs_abi_worker *w,
		     bool if_unknown);
/* Thread @tid of process @pid becomes the worker of @slot (its task local
 * storage): 0, -ESRCH (no such thread of @pid), -EEXIST, -ENOMEM. Each
 * success is matched by one xsd_bpf_unregister() (the wakeup programs
 * stay attached while any worker is registered). */
int xsd_bpf_register(struct xsd *d, uint32_t pid, uint32_t tid, uint32_t slot);
/* @tid is no longer the worker of @slot (nothing if it has exited). */
int xsd_bpf_unregister(struct xsd *d, uint32_t tid, uint32_t slot);
/* Copy CPU @cpu's counters (consistent copy, bounded retries). */
int xsd_bpf_read_cpu(struct xsd *d, uint32_t cpu, uint64_t now_ns,
		     struct xsd_cpu_sample *raw);
void xsd_bpf_numa_events(struct xsd *d, uint64_t out[4]);
bool xsd_bpf_numa_attached(const struct xsd *d);

/* sample.c */
int xsd_sample_init(struct xsd *d);
void xsd_sample_tick(struct xsd *d, uint64_t now_ns);
uint64_t xsd_now_ns(void);
/* From /proc/PID/task/TID/stat: CPU time (ticks), state letter, last CPU. */
int xsd_task_stat(uint32_t pid, uint32_t tid, uint64_t *ticks, char *state, uint32_t *cpu);

/* The worker state of a /proc state letter: R is ON_CPU (running or
 * preempted: /proc cannot tell), T and t STOPPED, anything else BLOCKED. */
static inline uint32_t xsd_worker_state(char st)
{
	return st == 'R' ? XS_ABI_WORKER_ON_CPU :
	       st == 'T' || st == 't' ? XS_ABI_WORKER_STOPPED : XS_ABI_WORKER_BLOCKED;
}

/* share.c */
int xsd_shares_init(struct xsd *d);
void xsd_shares_free(struct xsd *d);
/* The shares of this tick (after xsd_sample_tick()), into procs[],
 * cpu_owner[], share_cpus and share_active. */
void xsd_shares_tick(struct xsd *d, uint64_t now_ns);
/* The division again and its publication, now (a lend began or ended). */
void xsd_shares_republish(struct xsd *d);
/* CPUs of @pid's own part in the last division (lent ones included,
 * borrowed ones not), 0: none. */
uint32_t xsd_shares_own(const struct xsd *d, uint32_t pid);

/* reweight.c */
/* Rows of @base re-weighted by @load (permille per CPU index) into @out
 * (ncpus * row_len entries); a row is rebuilt only when the load level of
 * a CPU changed since @level was recorded (level[] is ncpus bytes, 0xff =
 * never built). */
void xsd_victims_reweight(const struct xs_victim_table *base, const uint32_t *load,
			  uint8_t *level, struct xs_abi_victim *out);
/* The weight a victim of static weight @w gets at load @permille. */
uint16_t xsd_victim_weight(uint16_t w, uint32_t permille);

/* state.c */
int xsd_state_create(struct xsd *d);
int xsd_workers_file_create(struct xsd *d);  /* degraded mode */
void xsd_state_publish(struct xsd *d, uint64_t now_ns);
void xsd_state_remove(struct xsd *d);

/* clients.c */
int xsd_socket_open(struct xsd *d);
int xsd_slots_init(struct xsd *d);
void xsd_slots_free(struct xsd *d);
void xsd_fd_budget(struct xsd *d);
struct xsd_client *xsd_client_new(struct xsd *d, int fd);
/* Handle @n bytes received in the client's buffer (n <= 0: gone).
 * Returns 0 to keep reading, XSD_CLIENT_DEFERRED when the request waits
 * for its user's budget (xsd_clients_tick() serves it and re-arms), < 0
 * when the client was closed or parked: no receive of it is armed again. */
#define XSD_CLIENT_DEFERRED 1
int xsd_client_input(struct xsd *d, struct xsd_client *c, int n);
void xsd_clients_tick(struct xsd *d, uint64_t now, bool second,
		      void (*arm)(void *ctx, struct xsd_client *c), void *ctx);
uint32_t xsd_client_uid(const struct xsd_client *c);
uint32_t xsd_client_nslots(const struct xsd_client *c);
/* Whether a lend (XS_ABI_LEND) runs on @c, and the CPUs it has on loan;
 * a lease whose process has exited ends here (false and 0 from then on). */
bool xsd_client_lending(struct xsd_client *c);
uint32_t xsd_client_lent(struct xsd_client *c);
/* Whether @c has ever lent and its process still runs: a lender (an MPI
 * rank, which may register no worker of its own) stays listed in the
 * division while it is connected, so that it holds a part to lend. */
bool xsd_client_lender(struct xsd_client *c);
/* share.c's scratch per client: its slots this tick, and the CPU time of
 * its process (clock ticks) when last sampled */
struct xsd_client_share {
	uint32_t workers, running;
	uint64_t cpu_ticks, cpu_ns;  /* cpu_ns 0: not sampled yet */
	uint64_t busy_ns;            /* when its process was last seen using a CPU */
};
struct xsd_client_share *xsd_client_share(struct xsd_client *c);
struct xsd_client *xsd_client_first(struct xsd *d);
struct xsd_client *xsd_client_next_mut(struct xsd_client *c);
void *xsd_client_buf(struct xsd_client *c, size_t *len);
int xsd_client_fd(const struct xsd_client *c);
uint32_t xsd_client_pid(const struct xsd_client *c); /* SO_PEERCRED's */
uint64_t xsd_client_hello_ns(const struct xsd_client *c); /* its last HELLO, 0: none */
const struct xsd_client *xsd_client_next(const struct xsd_client *c); /* d->clients list */
void xsd_clients_reap_dead_tids(struct xsd *d);

/* request.c: 0 when @buf (@n bytes) is exactly one well-formed request of
 * a known type, else -EBADMSG, -EMSGSIZE, -EPROTO or -EOPNOTSUPP and
 * *@why saying what is wrong with it. */
int xsd_request_check(const void *buf, size_t n, const char **why);
void xsd_client_close_all(struct xsd *d);

/* caps.c */
int xsd_caps_drop(bool keep_bpf);

/* logging: "xschedd: ..." on stderr (the journal under systemd, with
 * sd-daemon.h's "<N>" priority prefixes) */
enum { XSD_LOG_ERR = 3, XSD_LOG_WARNING = 4, XSD_LOG_NOTICE = 5, XSD_LOG_INFO = 6 };
#define XSD_LOG_INTERVAL_NS 10000000000ull
#define XSD_LOG_BURST 5u
struct xsd_ratelimit {
	uint64_t start_ns;
	uint32_t printed, missed;
};
void xsd_log(const char *fmt, ...) __attribute__((format(printf, 1, 2))); /* notice */
void xsd_log_at(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* At most XSD_LOG_BURST lines per @rl every XSD_LOG_INTERVAL_NS. */
void xsd_log_limited(struct xsd_ratelimit *rl, int prio, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* notify.c: sd_notify(3)'s protocol, a no-op outside systemd */
int xsd_notify(const char *msg);

#endif /* XSCHED_DAEMON_H */
