/* version: nfstorm's own version, printed by --version and recorded in
 * every result (the protocol's is PROTO_VERSION, proto/msg.h). */
#ifndef NFSTORM_VERSION_H
#define NFSTORM_VERSION_H

#define NFSTORM_VERSION "0.1"

#endif
