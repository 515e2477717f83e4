/* SPDX-License-Identifier: MIT */
/*
 * tcp.c - the witness's TCP client: a connection to `diskproof witness
 * --listen`, a batch sent and its answer awaited, the witness file fetched.
 */
#include <errno.h>
#include <string.h>

#include "witness_internal.h"

int witness_tcp_connect(const char *host, const char *port, int *fd, char *err, size_t errlen)
{
	*fd = -1;
	return witness_err(err, errlen, -EPROTONOSUPPORT, "%s:%s: a TCP witness is not built yet",
			   host, port);
}

int witness_tcp_send(int fd, const char *spec, uint64_t seq, const unsigned char *frame, size_t len,
		     char *err, size_t errlen)
{
	return witness_err(err, errlen, -EPROTONOSUPPORT, "%s: a TCP witness is not built yet",
			   spec);
}

int witness_tcp_dump(const char *spec, const char *host, const char *port, unsigned char **buf,
		     size_t *len, char *err, size_t errlen)
{
	return witness_err(err, errlen, -EPROTONOSUPPORT, "%s: a TCP witness is not built yet",
			   spec);
}
