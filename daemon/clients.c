// SPDX-License-Identifier: MIT
/*
 * clients.c - the client protocol on <runtime-dir>/socket (SOCK_SEQPACKET).
 *
 * A request is exactly one struct xs_abi_request (xsched/abi.h), answered
 * by exactly one struct xs_abi_reply:
 *
 *   HELLO        status 0, nslots, mode; SCM_RIGHTS: the state file and the
 *                worker-state array, both read-only
 *   REGISTER     tids[0..count) -> slots[0..count); each tid must be a
 *                thread of the process that connected (checked in
 *                /proc/PID/task/TID while that process, held by a pidfd,
 *                still runs) and not registered yet; the client's quota
 *                (XSCHEDD_CLIENT_SLOTS), its user's (XSCHEDD_USER_SLOTS) and
 *                the global one (the slot count) hold. status is the first
 *                failure: -EPERM (not the caller's thread), -EEXIST, -EDQUOT
 *                (client or user quota), -ENOSPC
 *   UNREGISTER   tids[0..count) the client holds -> freed
 *   LEND         tids[0] CPUs offered -> count: taken, at most the own part
 *                of the caller's process (share.c's division) less one,
 *                less what its other connections have on loan; the shares
 *                are republished before the reply. -EALREADY: a lend
 *                already runs on this connection
 *   RECLAIM      the lend ends; the shares are republished before the
 *                reply. -ENOENT: no lend runs
 *
 * A lend is a lease held by the connection and the process: it ends at
 * RECLAIM, when the connection goes (xsd_client_drop(), republished at
 * once) or when the process that connected has exited (xsd_client_lent(),
 * at the next division, within one tick), whichever comes first. Nobody
 * borrows by asking: the division gives lent CPUs to others (share.c), so
 * a process can neither lend CPUs that are not its own nor take any.
 *
 * A message that is not exactly that (empty, short, long, bad magic,
 * version, size, type, count) is malformed: an XS_ABI_ERROR reply with -EBADMSG,
 * -EMSGSIZE, -EPROTO or -EOPNOTSUPP, then the connection is closed. The
 * daemon serves everyone else as before.
 *
 * What one user can hold or cost is bounded (issue 31):
 *   - connections: XSCHEDD_USER_CLIENTS per user, XSCHEDD_MAX_CLIENTS in
 *     all (less if RLIMIT_NOFILE cannot hold them, see xsd_fd_budget());
 *   - unread replies: a client is answered only once it has read its last
 *     reply (SIOCOUTQ is 0), with one exception: a RECLAIM may follow its
 *     LEND before the LEND's reply is read (a rank back from MPI must not
 *     wait for the daemon's answer to send it), so at most that reply,
 *     which has no descriptors, is unread. One that sends a request before is closed, and
 *     while the kernel still holds replies the daemon sent it (their
 *     descriptors are charged to the daemon's user until read: past its
 *     RLIMIT_NOFILE every sendmsg() with SCM_RIGHTS fails, ETOOMANYREFS),
 *     the connection stays "parked": counted, never read, freed once the
 *     replies are read or the peer closes. So at most 2 descriptors per
 *     connection are ever in flight;
 *   - requests: XSCHEDD_USER_RATE units per second and user (a request
 *     costs 1 plus its tids; a RECLAIM that ends a lend was paid for by
 *     its LEND, so that a rank never waits a tick to get its CPUs back); a
 *     request over the budget waits, unread further, until the tick that
 *     refills it;
 *   - CPUs on loan: a lend is bounded by the lender's own share, which
 *     the division bounds per user;
 *   - silence: a client that holds no slot and sends nothing for
 *     XSCHEDD_CLIENT_IDLE_MS is closed;
 *   - log lines: what a client causes is logged rate-limited.
 *
 * Identity: SO_PEERCRED's pid and uid at connect, and a pidfd of that
 * process (SO_PEERPIDFD where the kernel has it, Linux 6.5; pidfd_open()
 * at accept before that). Once that process has exited, its connection is
 * dead: a child that inherited it cannot speak for a process that may now
 * be someone else under the same pid.
 *
 * Slot lookups are O(1): the identity of each slot (tid, pid) is kept in
 * the daemon's private memory, with a tid hash and a free list; the shared
 * arrays are written, never read back for a decision.
 *
 * Slots are reclaimed when the client disconnects (its process died or
 * closed the socket) and, every second, when a registered thread is gone.
 */
#include <dirent.h>
#include <errno.h>
#include <linux/sockios.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "xschedd.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/* Large enough that an oversized request is seen as one (SEQPACKET
 * truncates a record to the buffer, so a buffer of exactly one request
 * could not tell an oversized one). */
#define XSD_RECV_BUF 512

/* Descriptors the daemon keeps for itself beyond what it had at start:
 * the notify socket, /proc files, a rename in flight. */
#define XSD_FD_RESERVE 32

struct xsd_user {
	uint32_t uid;
	uint32_t nclients;   /* connections, parked ones included */
	uint32_t nslots;
	int64_t tokens;      /* request units left (XSCHEDD_USER_RATE per second) */
	uint64_t refill_ns;
	struct xsd_user *next;
};

struct xsd_client {
	int fd;
	int pidfd;          /* the process that connected; -1: kernel without pidfds */
	uint32_t pid, uid;
	uint32_t nslots;
	uint64_t id;
	uint64_t hello_ns;  /* CLOCK_MONOTONIC of its last HELLO, 0: none */
	uint64_t last_ns;   /* of its last request, or of its connection */
	struct xsd_client_share share; /* share.c's */
	bool parked;        /* no receive armed: freed once its replies are read */
	bool fds_sent;      /* a reply with descriptors may still be unread */
	bool deferred;      /* a request of `pending` bytes waits for tokens */
	bool slow;          /* the tick shut its socket: its receive ends */
	bool lending;       /* between a LEND and its RECLAIM */
	bool lender;        /* it has sent a LEND: a participant of the division */
	uint16_t last_type; /* the type of the last reply sent */
	uint32_t lent;      /* CPUs taken at its LEND (0 when it had none to give) */
	int pending;
	struct xsd_user *user;
	struct xsd_client *next, **pprev; /* d->clients list */
	unsigned char buf[XSD_RECV_BUF];
};

static struct xsd_ratelimit xsd_rl_refused, xsd_rl_protocol, xsd_rl_identity;
static struct xsd_ratelimit xsd_rl_lend, xsd_rl_lease;

/*
 * The socket is bound and listening under a temporary name, then renamed
 * into place: whoever sees <runtime-dir>/socket can connect to it (a
 * client polling for the file never gets ECONNREFUSED from the moment
 * between bind and listen). It is created with its final mode (the umask
 * around bind()), never chmod()ed: a path is not followed twice. The
 * directory is ours and closed to others (main.c checked it, and holds
 * its lock), so the names in it are ours too.
 */
int xsd_socket_open(struct xsd *d)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char path[PATH_MAX + sizeof(XS_ABI_SOCKET_FILE) + 1];
	mode_t old_umask;
	int fd, ret;

	if ((size_t)snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s.new", d->opt.runtime_dir,
			     XS_ABI_SOCKET_FILE) >= sizeof(sa.sun_path)) {
		xsd_log_at(XSD_LOG_ERR,
			   "XSCHEDD_RUNTIME_DIR=\"%s\" is too long for a socket path (max %zu)\n",
			   d->opt.runtime_dir,
			   sizeof(sa.sun_path) - sizeof(XS_ABI_SOCKET_FILE ".new") - 1);
		return -ENAMETOOLONG;
	}
	snprintf(path, sizeof(path), "%s/%s", d->opt.runtime_dir, XS_ABI_SOCKET_FILE);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	unlink(sa.sun_path); /* a previous instance's; we hold the directory's lock */
	old_umask = umask(~(mode_t)d->opt.socket_mode & 0777);
	ret = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old_umask);
	if (ret || listen(fd, 128) || rename(sa.sun_path, path)) {
		ret = -errno;
		xsd_log_at(XSD_LOG_ERR, "%s: %s\n", sa.sun_path, strerror(errno));
		unlink(sa.sun_path);
		close(fd);
		return ret;
	}
	d->listen_fd = fd;
	return 0;
}

/*
 * How many clients RLIMIT_NOFILE can hold: each takes two descriptors
 * (its socket and its pidfd) and may have two more in flight (an unread
 * HELLO reply, charged to our user's RLIMIT_NOFILE by the kernel). The
 * soft limit is raised as far as the hard one allows first. Called once
 * the daemon holds everything else it keeps open.
 */
void xsd_fd_budget(struct xsd *d)
{
	struct rlimit rl;
	uint64_t open_fds = 0, want, cap;
	DIR *dir = opendir("/proc/self/fd");

	for (struct dirent *e; dir && (e = readdir(dir));)
		open_fds += e->d_name[0] != '.';
	if (dir)
		closedir(dir);
	if (getrlimit(RLIMIT_NOFILE, &rl)) {
		d->fd_cap = (uint32_t)d->opt.max_clients;
		return;
	}
	want = open_fds + XSD_FD_RESERVE + 2 * (uint64_t)d->opt.max_clients;
	if (rl.rlim_cur < want && rl.rlim_cur != RLIM_INFINITY) {
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want
										 : rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	cap = rl.rlim_cur == RLIM_INFINITY ? UINT32_MAX :
	      rl.rlim_cur > open_fds + XSD_FD_RESERVE + 2 ? (rl.rlim_cur - open_fds - XSD_FD_RESERVE) / 2
							   : 1;
	d->fd_cap = cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
	if (d->fd_cap < (uint64_t)d->opt.max_clients)
		xsd_log_at(XSD_LOG_WARNING,
			   "XSCHEDD_MAX_CLIENTS=%lld does not fit RLIMIT_NOFILE=%llu (%llu open, 2 "
			   "per client, 2 more in flight): at most %u clients (raise LimitNOFILE=)\n",
			   (long long)d->opt.max_clients, (unsigned long long)rl.rlim_cur,
			   (unsigned long long)open_fds, d->fd_cap);
}

static uint32_t xsd_max_clients(const struct xsd *d)
{
	return d->fd_cap && d->fd_cap < (uint64_t)d->opt.max_clients ? d->fd_cap
								     : (uint32_t)d->opt.max_clients;
}

/* XSCHEDD_USER_SLOTS, 0: a quarter of the slots, at least a client's. */
static uint32_t xsd_user_slots(const struct xsd *d)
{
	uint64_t q = d->opt.user_slots ? (uint64_t)d->opt.user_slots : d->nslots / 4;

	if (!d->opt.user_slots && q < (uint64_t)d->opt.client_slots)
		q = (uint64_t)d->opt.client_slots;
	return q > d->nslots ? d->nslots : (uint32_t)q;
}

static struct xsd_user *xsd_user_get(struct xsd *d, uint32_t uid)
{
	struct xsd_user *u;

	for (u = d->users; u; u = u->next)
		if (u->uid == uid)
			return u;
	u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	u->uid = uid;
	u->tokens = d->opt.user_rate;
	u->refill_ns = xsd_now_ns();
	u->next = d->users;
	d->users = u;
	return u;
}

static void xsd_user_put(struct xsd *d, struct xsd_user *u)
{
	if (u->nclients || u->nslots)
		return;
	for (struct xsd_user **pp = &d->users; *pp; pp = &(*pp)->next)
		if (*pp == u) {
			*pp = u->next;
			break;
		}
	free(u);
}

/* Take @units of @u's request budget: true if it had them. */
static bool xsd_user_spend(struct xsd *d, struct xsd_user *u, uint64_t now, int64_t units)
{
	int64_t rate = d->opt.user_rate;

	if (now > u->refill_ns) {
		uint64_t add = (now - u->refill_ns) * (uint64_t)rate / 1000000000u;

		if (add) {
			u->tokens = u->tokens + (int64_t)add > rate ? rate : u->tokens + (int64_t)add;
			u->refill_ns = now;
		}
	}
	if (u->tokens < units && u->tokens < rate)
		return false;
	u->tokens -= units;
	return true;
}

/* Whether the process that connected has exited (its pidfd is readable). */
static bool xsd_client_gone(const struct xsd_client *c)
{
	struct pollfd p = { .fd = c->pidfd, .events = POLLIN };

	if (c->pidfd < 0)
		return false; /* no pidfds: the pid is all we have */
	return poll(&p, 1, 0) != 0;
}

static int xsd_peer_pidfd(int fd, pid_t pid)
{
	static bool said;
	socklen_t len = sizeof(int);
	int pidfd = -1;

	if (!getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) && pidfd >= 0)
		return pidfd;
	/* Before Linux 6.5: a pidfd of the pid SO_PEERCRED saw at connect.
	 * Between connect() and this call that process could have exited and
	 * its pid been reused: a window of one accept, where a message-time
	 * check is all later kernels need. */
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0); /* close-on-exec */
	if (pidfd >= 0)
		return pidfd;
	if (errno == ESRCH)
		return -ESRCH;
	if (!said) {
		said = true;
		xsd_log_at(XSD_LOG_WARNING,
			   "pidfd_open: %s: clients are known by pid only (reusable)\n",
			   strerror(errno));
	}
	return -1;
}

struct xsd_client *xsd_client_new(struct xsd *d, int fd)
{
	static uint64_t next_id;
	struct xsd_client *c;
	struct xsd_user *u;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int pidfd;

	if (d->nclients >= xsd_max_clients(d)) {
		xsd_log_limited(&xsd_rl_refused, XSD_LOG_WARNING,
				"client refused: %u clients, the most RLIMIT_NOFILE and "
				"XSCHEDD_MAX_CLIENTS=%lld allow\n",
				d->nclients, (long long)d->opt.max_clients);
		close(fd);
		return NULL;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) || cred.pid <= 0) {
		close(fd);
		return NULL;
	}
	u = xsd_user_get(d, (uint32_t)cred.uid);
	if (!u) {
		close(fd);
		return NULL;
	}
	if (u->nclients >= (uint64_t)d->opt.user_clients) {
		xsd_log_limited(&xsd_rl_refused, XSD_LOG_WARNING,
				"client refused: uid %u has %u connections "
				"(XSCHEDD_USER_CLIENTS=%lld)\n",
				u->uid, u->nclients, (long long)d->opt.user_clients);
		xsd_user_put(d, u);
		close(fd);
		return NULL;
	}
	pidfd = xsd_peer_pidfd(fd, cred.pid);
	c = pidfd == -ESRCH ? NULL : calloc(1, sizeof(*c));
	if (!c) {
		if (pidfd >= 0)
			close(pidfd);
		xsd_user_put(d, u);
		close(fd);
		return NULL;
	}
	c->fd = fd;
	c->pidfd = pidfd;
	c->pid = (uint32_t)cred.pid;
	c->uid = (uint32_t)cred.uid;
	c->user = u;
	u->nclients++;
	c->id = ++next_id;
	c->last_ns = xsd_now_ns();
	c->next = d->clients;
	if (c->next)
		c->next->pprev = &c->next;
	c->pprev = &d->clients;
	d->clients = c;
	d->nclients++;
	if (d->opt.verbose)
		xsd_log_at(XSD_LOG_INFO, "client %llu: pid %u uid %u connected\n",
			   (unsigned long long)c->id, c->pid, c->uid);
	return c;
}

void *xsd_client_buf(struct xsd_client *c, size_t *len)
{
	*len = sizeof(c->buf);
	return c->buf;
}

int xsd_client_fd(const struct xsd_client *c)
{
	return c->fd;
}

uint32_t xsd_client_pid(const struct xsd_client *c)
{
	return c->pid;
}

uint32_t xsd_client_uid(const struct xsd_client *c)
{
	return c->uid;
}

uint64_t xsd_client_hello_ns(const struct xsd_client *c)
{
	return c->hello_ns;
}

uint32_t xsd_client_nslots(const struct xsd_client *c)
{
	return c->nslots;
}

bool xsd_client_lending(struct xsd_client *c)
{
	if (c->lending && xsd_client_gone(c)) {
		if (c->lent)
			xsd_log_limited(&xsd_rl_lease, XSD_LOG_INFO,
					"client %llu (pid %u): exited with %u CPU(s) on loan: "
					"lease ended\n",
					(unsigned long long)c->id, c->pid, c->lent);
		c->lending = false;
		c->lent = 0;
	}
	return c->lending;
}

uint32_t xsd_client_lent(struct xsd_client *c)
{
	return xsd_client_lending(c) ? c->lent : 0;
}

bool xsd_client_lender(struct xsd_client *c)
{
	return c->lender && !xsd_client_gone(c);
}

const struct xsd_client *xsd_client_next(const struct xsd_client *c)
{
	return c->next;
}

struct xsd_client_share *xsd_client_share(struct xsd_client *c)
{
	return &c->share;
}

struct xsd_client *xsd_client_first(struct xsd *d)
{
	return d->clients;
}

struct xsd_client *xsd_client_next_mut(struct xsd_client *c)
{
	return c->next;
}

/* Slot identities: the daemon's private copy, a tid hash and a free list. */
int xsd_slots_init(struct xsd *d)
{
	uint32_t nb = 64;

	while (nb < d->nslots)
		nb *= 2;
	d->slot_tid = calloc(d->nslots, sizeof(*d->slot_tid));
	d->slot_pid = calloc(d->nslots, sizeof(*d->slot_pid));
	d->slot_link = calloc(d->nslots, sizeof(*d->slot_link));
	d->tid_bucket = malloc(nb * sizeof(*d->tid_bucket));
	d->owner = calloc(d->nslots, sizeof(*d->owner));
	if (!d->slot_tid || !d->slot_pid || !d->slot_link || !d->tid_bucket || !d->owner)
		return -ENOMEM;
	d->tid_mask = nb - 1;
	memset(d->tid_bucket, 0xff, nb * sizeof(*d->tid_bucket));
	/* free list: slot_link[s] is the next free slot (lowest first) */
	for (uint32_t s = 0; s < d->nslots; s++)
		d->slot_link[s] = s + 1 < d->nslots ? s + 1 : UINT32_MAX;
	d->free_slot = 0;
	return 0;
}

void xsd_slots_free(struct xsd *d)
{
	free(d->slot_tid);
	free(d->slot_pid);
	free(d->slot_link);
	free(d->tid_bucket);
	free(d->owner);
}

static uint32_t xsd_tid_hash(const struct xsd *d, uint32_t tid)
{
	return (tid * 2654435761u) & d->tid_mask;
}

/* The slot registered for @tid, or UINT32_MAX. Used slots chain through
 * slot_link (free ones form the free list with it). */
static uint32_t xsd_slot_of_tid(const struct xsd *d, uint32_t tid)
{
	uint32_t s = d->tid_bucket[xsd_tid_hash(d, tid)];

	while (s != UINT32_MAX && d->slot_tid[s] != tid)
		s = d->slot_link[s];
	return s;
}

/* Write slot @s: through the program in BPF mode (the map is frozen),
 * directly into the degraded-mode array otherwise. The state word goes
 * last: readers test it first. */
static int xsd_slot_write(struct xsd *d, uint32_t s, uint32_t tid, uint32_t pid,
			  uint32_t state, uint32_t cpu, bool if_unknown)
{
	struct xs_abi_worker w = { .tid = tid, .pid = pid, .state = state, .cpu = cpu };

	if (d->bpf)
		return xsd_bpf_slot_set(d, s, &w, if_unknown);
	if (if_unknown && d->workers[s].state != XS_ABI_WORKER_UNKNOWN)
		return 0;
	if (!if_unknown) {
		d->workers[s].tid = tid;
		d->workers[s].pid = pid;
		d->workers[s].since_ns = xsd_now_ns();
		d->workers[s].switches = 0;
	}
	d->workers[s].cpu = cpu;
	/* Relaxed: readers take the slot as advice, one tick old at worst. */
	__atomic_store_n(&d->workers[s].state, state, __ATOMIC_RELAXED);
	return 0;
}

static void xsd_slot_free(struct xsd *d, uint32_t s)
{
	struct xsd_client *c = d->owner[s];
	uint32_t *pp = &d->tid_bucket[xsd_tid_hash(d, d->slot_tid[s])];

	/* Unregistered first: the programs no longer write the slot, then
	 * readers see tid 0 = free. */
	if (d->bpf)
		xsd_bpf_unregister(d, d->slot_tid[s], s);
	xsd_slot_write(d, s, 0, 0, XS_ABI_WORKER_FREE, 0, false);
	while (*pp != s)
		pp = &d->slot_link[*pp];
	*pp = d->slot_link[s];
	d->slot_tid[s] = 0;
	d->slot_pid[s] = 0;
	d->slot_link[s] = d->free_slot;
	d->free_slot = s;
	c->nslots--;
	c->user->nslots--;
	d->owner[s] = NULL;
	d->used_slots--;
}

static void xsd_client_free(struct xsd *d, struct xsd_client *c)
{
	uint32_t freed = c->nslots;

	for (uint32_t s = 0; s < d->nslots && c->nslots; s++)
		if (d->owner[s] == c)
			xsd_slot_free(d, s);
	if (d->opt.verbose)
		xsd_log_at(XSD_LOG_INFO, "client %llu: pid %u gone, %u slot(s) reclaimed\n",
			   (unsigned long long)c->id, c->pid, freed);
	close(c->fd);
	if (c->pidfd >= 0)
		close(c->pidfd);
	*c->pprev = c->next;
	if (c->next)
		c->next->pprev = c->pprev;
	d->nclients--;
	c->user->nclients--;
	xsd_user_put(d, c->user);
	free(c);
}

/* Bytes we sent @c that it has not read yet. */
static int xsd_unread(const struct xsd_client *c)
{
	int n = 0;

	return ioctl(c->fd, SIOCOUTQ, &n) ? 0 : n;
}

/*
 * Done with @c (no receive of it in flight): its slots go back; the
 * connection is closed, unless replies we sent still wait unread in its
 * queue (their descriptors stay charged to us until read): then it is
 * parked, counted against its user's connections, until they are read or
 * the peer closes (xsd_clients_tick()).
 */
static void xsd_client_drop(struct xsd *d, struct xsd_client *c)
{
	bool lent = c->lent;

	/* The lease ends with the connection, whatever it had on loan. */
	if (lent)
		xsd_log_limited(&xsd_rl_lease, XSD_LOG_INFO,
				"client %llu (pid %u): connection closed with %u CPU(s) on loan: "
				"lease ended\n", (unsigned long long)c->id, c->pid, c->lent);
	c->lending = false;
	c->lent = 0;
	for (uint32_t s = 0; s < d->nslots && c->nslots; s++)
		if (d->owner[s] == c)
			xsd_slot_free(d, s);
	/* Replies without descriptors cost nothing once we close. */
	if (c->fds_sent && xsd_unread(c) > 0) {
		c->parked = true;
		shutdown(c->fd, SHUT_RD);
	} else {
		xsd_client_free(d, c);
	}
	if (lent)
		xsd_shares_republish(d);
}

/* At exit, after the ring is gone (no receive in flight into a buffer). */
void xsd_client_close_all(struct xsd *d)
{
	while (d->clients)
		xsd_client_free(d, d->clients);
}

static int xsd_send(struct xsd_client *c, struct xs_abi_reply *r, const int *fds, int nfds)
{
	char cbuf[CMSG_SPACE(2 * sizeof(int))];
	struct iovec iov = { r, sizeof(*r) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	r->magic = XS_ABI_MSG_MAGIC;
	r->version = XS_ABI_MSG_VERSION;
	r->size = sizeof(*r);
	if (nfds) {
		struct cmsghdr *cm;

		memset(cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf;
		mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, nfds * sizeof(int));
	}
	/* Never block the loop on a client that does not read its replies. */
	if (sendmsg(c->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)sizeof(*r))
		return -EIO;
	c->last_type = r->type;
	return 0;
}

/* Whether @tid is a thread of @c's process: /proc/PID/task/TID exists
 * while the pidfd says that process still runs (then PID was still it). */
static int xsd_tid_of_client(const struct xsd_client *c, uint32_t tid)
{
	char path[64];
	struct stat st;

	if (xsd_client_gone(c))
		return -ESRCH;
	snprintf(path, sizeof(path), "/proc/%u/task/%u", c->pid, tid);
	if (!tid || stat(path, &st))
		return -EPERM;
	return xsd_client_gone(c) ? -ESRCH : 0;
}

static int32_t xsd_register(struct xsd *d, struct xsd_client *c, uint32_t tid,
			    uint32_t *slot)
{
	uint32_t s;
	int ret;

	*slot = UINT32_MAX;
	ret = xsd_tid_of_client(c, tid);
	if (ret)
		return ret;
	if (xsd_slot_of_tid(d, tid) != UINT32_MAX)
		return -EEXIST;
	if (c->nslots >= (uint64_t)d->opt.client_slots)
		return -EDQUOT;
	if (d->used_slots >= d->nslots || d->free_slot == UINT32_MAX)
		return -ENOSPC;
	if (c->user->nslots >= xsd_user_slots(d))
		return -EDQUOT;
	s = d->free_slot;
	/* The slot's identity first, then the registration (the thread's
	 * task storage) that lets the programs write it. */
	ret = xsd_slot_write(d, s, tid, c->pid, XS_ABI_WORKER_UNKNOWN, 0, false);
	if (!ret && d->bpf) {
		ret = xsd_bpf_register(d, c->pid, tid, s);
		if (ret)
			xsd_slot_write(d, s, 0, 0, XS_ABI_WORKER_FREE, 0, false);
	}
	if (ret)
		return ret;
	if (d->bpf) {
		/* A thread already asleep is not switched again until it wakes:
		 * start from what /proc says, unless the program got there
		 * first (it owns the slot from the registration on). */
		uint64_t ticks;
		uint32_t cpu;
		char st;

		if (!xsd_task_stat(c->pid, tid, &ticks, &st, &cpu))
			xsd_slot_write(d, s, tid, c->pid,
				       xsd_worker_state(st),
				       cpu, true);
	}
	d->free_slot = d->slot_link[s];
	d->slot_tid[s] = tid;
	d->slot_pid[s] = c->pid;
	d->slot_link[s] = d->tid_bucket[xsd_tid_hash(d, tid)];
	d->tid_bucket[xsd_tid_hash(d, tid)] = s;
	d->owner[s] = c;
	c->nslots++;
	c->user->nslots++;
	d->used_slots++;
	*slot = s;
	return 0;
}

/* LEND of @offer CPUs on @c: how many are taken (r->count), republished. */
static int32_t xsd_lend(struct xsd *d, struct xsd_client *c, uint32_t offer, uint32_t *taken)
{
	uint32_t own = xsd_shares_own(d, c->pid), others = 0;

	*taken = 0;
	if (c->lending)
		return -EALREADY;
	/* What the process's other connections have on loan already. */
	for (const struct xsd_client *o = d->clients; o; o = o->next)
		if (o != c && o->pid == c->pid && o->lending)
			others += o->lent;
	if (own > 1 && others < own - 1)
		*taken = offer < own - 1 - others ? offer : own - 1 - others;
	c->lending = true;
	c->lender = true;
	c->lent = *taken;
	if (d->opt.verbose)
		xsd_log_limited(&xsd_rl_lend, XSD_LOG_INFO,
				"client %llu (pid %u): lends %u of the %u CPU(s) offered\n",
				(unsigned long long)c->id, c->pid, *taken, offer);
	if (*taken)
		xsd_shares_republish(d);
	return 0;
}

static int32_t xsd_reclaim(struct xsd *d, struct xsd_client *c)
{
	bool lent = c->lent;

	if (!c->lending)
		return -ENOENT;
	c->lending = false;
	c->lent = 0;
	if (lent)
		xsd_shares_republish(d);
	return 0;
}

/* An error reply (no descriptors), then the connection goes. */
static int xsd_refuse(struct xsd *d, struct xsd_client *c, int32_t err, const char *why,
		      struct xsd_ratelimit *rl)
{
	struct xs_abi_reply r = { .type = XS_ABI_ERROR, .status = err };

	xsd_log_limited(rl, d->opt.verbose ? XSD_LOG_NOTICE : XSD_LOG_INFO,
			"client %llu (pid %u uid %u): %s: closing\n", (unsigned long long)c->id,
			c->pid, c->uid, why);
	if (!xsd_unread(c))
		xsd_send(c, &r, NULL, 0);
	xsd_client_drop(d, c);
	return -1;
}

/* A receive of 0 bytes is an empty SEQPACKET record or the end of the
 * connection; the socket tells them apart (the peer's close shuts down
 * our receive side). */
static bool xsd_hung_up(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLRDHUP };

	if (poll(&p, 1, 0) < 0)
		return true;
	return p.revents & (POLLRDHUP | POLLHUP | POLLERR);
}

/* Whether the peer closed its end (our own shutdown(SHUT_RD) raises
 * POLLRDHUP, not POLLHUP). */
static bool xsd_peer_closed(int fd)
{
	struct pollfd p = { .fd = fd, .events = 0 };

	if (poll(&p, 1, 0) < 0)
		return true;
	return p.revents & (POLLHUP | POLLERR);
}

/* Act on the request of @n bytes in c->buf: 0 (answered: read the next),
 * XSD_CLIENT_DEFERRED (waits for its user's budget), -1 (dropped). */
static int xsd_client_request(struct xsd *d, struct xsd_client *c, int n, uint64_t now)
{
	struct xs_abi_request q;
	struct xs_abi_reply r;
	const char *why;
	int fds[2], ret;

	/* One copy of the bytes: every decision below reads it, nothing
	 * reads the receive buffer again. */
	ret = xsd_request_check(c->buf, (size_t)n, &why);
	if (ret)
		return xsd_refuse(d, c, ret, why, &xsd_rl_protocol);
	memcpy(&q, c->buf, sizeof(q));
	if (!(q.type == XS_ABI_RECLAIM && c->lending) &&
	    !xsd_user_spend(d, c->user, now, 1 + (int64_t)q.count)) {
		c->deferred = true;
		c->pending = n;
		return XSD_CLIENT_DEFERRED;
	}
	c->deferred = false;
	if (xsd_client_gone(c))
		return xsd_refuse(d, c, -ESRCH, "the process that connected has exited",
				  &xsd_rl_identity);
	memset(&r, 0, sizeof(r));
	r.type = q.type;
	r.mode = d->mode;
	switch (q.type) {
	case XS_ABI_HELLO:
		c->hello_ns = now;
		r.nslots = d->nslots;
		fds[0] = d->state_ro_fd;
		fds[1] = d->workers_ro_fd;
		if (xsd_send(c, &r, fds, 2))
			goto gone;
		c->fds_sent = true;
		return 0;
	case XS_ABI_REGISTER:
		r.count = q.count;
		for (uint32_t i = 0; i < q.count; i++) {
			int32_t err = xsd_register(d, c, q.tids[i], &r.slots[i]);

			if (err && !r.status)
				r.status = err;
		}
		break;
	case XS_ABI_UNREGISTER:
		r.count = q.count;
		for (uint32_t i = 0; i < q.count; i++) {
			uint32_t s = xsd_slot_of_tid(d, q.tids[i]);

			r.slots[i] = UINT32_MAX;
			if (s == UINT32_MAX || d->owner[s] != c) {
				if (!r.status)
					r.status = -ENOENT;
				continue;
			}
			xsd_slot_free(d, s);
			r.slots[i] = s;
		}
		break;
	case XS_ABI_LEND:
		r.status = xsd_lend(d, c, q.tids[0], &r.count);
		break;
	case XS_ABI_RECLAIM:
		r.status = xsd_reclaim(d, c);
		break;
	}
	r.nslots = c->nslots;
	if (d->opt.verbose && r.status)
		xsd_log_limited(&xsd_rl_protocol, XSD_LOG_INFO,
				"client %llu (pid %u): request %u: %s\n",
				(unsigned long long)c->id, c->pid, q.type, strerror(-r.status));
	if (xsd_send(c, &r, NULL, 0))
		goto gone;
	return 0;
gone:
	xsd_client_drop(d, c);
	return -1;
}

/* Whether the request of @n bytes in c->buf is a RECLAIM sent right after
 * the LEND it ends, whose reply may still be unread: the one request that
 * need not wait for the last reply. When that LEND came, every earlier
 * reply had been read (else it was refused), so only its reply is
 * unread. */
static bool xsd_reclaim_after_lend(const struct xsd_client *c, int n)
{
	const struct xs_abi_request *q = (const void *)c->buf;

	return c->lending && c->last_type == XS_ABI_LEND && n == (int)sizeof(*q) &&
	       q->type == XS_ABI_RECLAIM;
}

int xsd_client_input(struct xsd *d, struct xsd_client *c, int n)
{
	uint64_t now = xsd_now_ns();

	if (n < 0 || (n == 0 && xsd_hung_up(c->fd))) {
		xsd_client_drop(d, c);
		return -1;
	}
	c->last_ns = now;
	/* A request before the last reply was read: the protocol is one
	 * reply per request, read before the next request. */
	if (xsd_unread(c) > 0 && !xsd_reclaim_after_lend(c, n))
		return xsd_refuse(d, c, -EPROTO, "a request before its last reply was read",
				  &xsd_rl_protocol);
	c->fds_sent = false; /* every reply was read */
	return xsd_client_request(d, c, n, now);
}

/*
 * Every tick: requests that waited for their user's budget are served
 * (then @arm re-arms their receive); parked clients whose replies were
 * read, or whose peer is gone, are freed; and, every second, clients that
 * hold no slot and were silent for XSCHEDD_CLIENT_IDLE_MS have their
 * receive side shut down (their receive then ends and xsd_client_input()
 * drops them: closed, or parked while a reply with descriptors is unread).
 */
void xsd_clients_tick(struct xsd *d, uint64_t now, bool second,
		      void (*arm)(void *ctx, struct xsd_client *c), void *ctx)
{
	struct xsd_client *c = d->clients, *next;
	uint64_t idle = (uint64_t)d->opt.client_idle_ms * 1000000u;

	for (; c; c = next) {
		next = c->next;
		if (c->deferred) {
			if (xsd_client_request(d, c, c->pending, now) == 0)
				arm(ctx, c);
		} else if (c->parked) {
			if (second && (xsd_unread(c) <= 0 || xsd_peer_closed(c->fd)))
				xsd_client_free(d, c);
		} else if (second && !c->nslots && !c->slow && now - c->last_ns > idle) {
			xsd_log_limited(&xsd_rl_refused, XSD_LOG_INFO,
					"client %llu (pid %u uid %u): silent for "
					"XSCHEDD_CLIENT_IDLE_MS=%lld: closing\n",
					(unsigned long long)c->id, c->pid, c->uid,
					(long long)d->opt.client_idle_ms);
			c->slow = true;
			/* only our receive side: POLLHUP keeps meaning that
			 * the peer closed (a parked client waits for it) */
			shutdown(c->fd, SHUT_RD);
		}
	}
}

void xsd_clients_reap_dead_tids(struct xsd *d)
{
	char path[64];
	struct stat st;

	for (uint32_t s = 0; s < d->nslots; s++) {
		if (!d->owner[s])
			continue;
		snprintf(path, sizeof(path), "/proc/%u/task/%u", d->slot_pid[s], d->slot_tid[s]);
		if (xsd_client_gone(d->owner[s]) || stat(path, &st))
			xsd_slot_free(d, s);
	}
}
