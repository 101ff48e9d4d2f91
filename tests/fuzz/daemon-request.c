// SPDX-License-Identifier: MIT
/*
 * daemon-request.c - fuzz xschedd's client request check.
 *
 * Input: one record as received on the client socket. xsd_request_check()
 * (daemon/request.c) is what xsd_client_input() runs on it before acting.
 * Promises: a refused record comes with a reason and one of the errors the
 * protocol documents; an accepted one is exactly one request of a known
 * type whose tid count fits (the daemon then indexes tids[] by it).
 */
#include "fuzz.h"
#include "../../daemon/xschedd.h"

/* The daemon receives into a 512-byte buffer (clients.c XSD_RECV_BUF):
 * a longer record arrives truncated to it, still longer than a request. */
#define RECV_BUF 512

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_Alignas(8) unsigned char buf[RECV_BUF];
	const struct xs_abi_request *q = (const void *)buf;
	const char *why = NULL;
	int ret;

	if (size > sizeof(buf))
		size = sizeof(buf);
	memcpy(buf, data, size);
	ret = xsd_request_check(buf, size, &why);
	if (ret) {
		FUZZ_CHECK(why && *why);
		FUZZ_CHECK(ret == -EBADMSG || ret == -EMSGSIZE || ret == -EPROTO ||
			   ret == -EOPNOTSUPP);
		return 0;
	}
	FUZZ_CHECK(size == sizeof(*q));
	FUZZ_CHECK(q->magic == XS_ABI_MSG_MAGIC && q->version == XS_ABI_MSG_VERSION);
	FUZZ_CHECK(q->size == sizeof(*q) && q->count <= XS_ABI_MAX_TIDS);
	FUZZ_CHECK(q->type == XS_ABI_HELLO || q->type == XS_ABI_REGISTER ||
		   q->type == XS_ABI_UNREGISTER || q->type == XS_ABI_LEND ||
		   q->type == XS_ABI_RECLAIM);
	FUZZ_CHECK(q->type != XS_ABI_HELLO || q->count == 0);
	FUZZ_CHECK(q->type != XS_ABI_LEND || (q->count == 1 && q->tids[0]));
	FUZZ_CHECK(q->type != XS_ABI_RECLAIM || q->count == 0);
	return 0;
}
