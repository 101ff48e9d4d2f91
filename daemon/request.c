// SPDX-License-Identifier: MIT
/*
 * request.c - is a received record one well-formed client request?
 *
 * The one place that decides, from the bytes alone, whether a record on
 * the client socket is exactly one struct xs_abi_request the daemon
 * understands (clients.c then acts on it). A pure function of the buffer,
 * so that tests/fuzz/daemon-request.c runs the daemon's own check.
 */
#include <errno.h>

#include "xschedd.h"

int xsd_request_check(const void *buf, size_t n, const char **why)
{
	const struct xs_abi_request *q = buf;

	if (n == 0) {
		*why = "empty request";
		return -EBADMSG;
	}
	if (n < sizeof(*q)) {
		*why = "truncated request";
		return -EBADMSG;
	}
	if (n > sizeof(*q)) {
		*why = "oversized request";
		return -EMSGSIZE;
	}
	if (q->magic != XS_ABI_MSG_MAGIC || q->version != XS_ABI_MSG_VERSION) {
		*why = "bad magic or version";
		return -EPROTO;
	}
	if (q->size != sizeof(*q) || q->count > XS_ABI_MAX_TIDS) {
		*why = "bad size or count";
		return -EBADMSG;
	}
	switch (q->type) {
	case XS_ABI_HELLO:
		if (q->count) {
			*why = "HELLO with tids";
			return -EBADMSG;
		}
		return 0;
	case XS_ABI_REGISTER:
	case XS_ABI_UNREGISTER:
		return 0;
	case XS_ABI_LEND:
		if (q->count != 1 || !q->tids[0]) {
			*why = "LEND without exactly one CPU count > 0";
			return -EBADMSG;
		}
		return 0;
	case XS_ABI_RECLAIM:
		if (q->count) {
			*why = "RECLAIM with tids";
			return -EBADMSG;
		}
		return 0;
	default:
		*why = "unknown request type";
		return -EOPNOTSUPP;
	}
}
