/* addr: the HOST:PORT a listening socket binds to, as the user writes it
 * on the command line (--listen of the agent, the gather and the pool).
 *
 * One parser for every program that listens, so that they all take the
 * same spellings (addr_resolve, for the programs that dial, takes names
 * too): an IPv4 or IPv6 literal (IPv6 may be bracketed), a colon,
 * and a decimal port from 0 to 65535.  Names are not resolved: a listen
 * address is an interface's address, and a lookup would block the loop.
 * (The agent's --coordinator target, which may be a name, has its own
 * parser: dial_parse_target in agent/dial.h.) */
#ifndef NFSTORM_ADDR_H
#define NFSTORM_ADDR_H

#include <sys/socket.h>
#include <uv.h>

/* Parse s ("127.0.0.1:7878", "[::1]:0", "::1:7878") into *ss, an
 * AF_INET or AF_INET6 address with the port set.  The last colon splits
 * host from port, so an unbracketed IPv6 literal works too.  0, or
 * -EINVAL (nothing useful in *ss) when s has no colon, an empty or
 * over-long host (255 bytes at most), a port that is empty, not all
 * digits or out of range, or a host that is not an IP literal. */
int addr_parse_listen(const char *s, struct sockaddr_storage *ss);

/* Resolve s, the HOST:PORT a program dials (a name or a literal, IPv6
 * bracketed), into *ss with getaddrinfo on loop (blocking: before the
 * loop runs).  0, -EINVAL when s is not HOST:PORT, or the lookup's libuv
 * error. */
int addr_resolve(uv_loop_t *loop, const char *s, struct sockaddr_storage *ss);

#endif
