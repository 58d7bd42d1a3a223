/* mp: the msgpack-c steps every hand-written codec of proto/ repeats.
 *
 * msg.c's messages are field tables (msg_codec.c); the few values that do
 * not fit a table (pool_msg, coh_msg, the error causes, the verification
 * results, the histogram) are packed and read with msgpack-c directly, and
 * these are the pieces they share: a packer writing into a struct buf, a
 * frame started and finished around a map, keyed values, and the lookup
 * and bounded reads a decoder makes before it trusts a value.  Texts of
 * errors name where (a prefix such as "phase 1: ") and the key. */
#ifndef NFSTORM_MP_H
#define NFSTORM_MP_H

#include <stddef.h>
#include <stdint.h>
#include <msgpack.h>
#include "proto/frame.h"

/* msgpack-c's write callback into a struct buf (data). */
int mp_buf_put(void *data, const char *p, size_t len);

/* Start a frame on out: a header to fill, a packer pk writing after it,
 * and a map of nkeys + 1 keys whose first is "type": type_name.  Returns
 * the frame's start for mp_frame_end. */
size_t mp_frame_begin(struct buf *out, msgpack_packer *pk, const char *type_name, uint32_t nkeys);
/* Fill the header of the frame that starts at start. */
void mp_frame_end(struct buf *out, size_t start);

void mp_pack_str(msgpack_packer *pk, const char *s, size_t n);
void mp_pack_key(msgpack_packer *pk, const char *k);
void mp_pack_u64(msgpack_packer *pk, const char *k, uint64_t v);
/* The key k, then the string s up to its NUL or max bytes (a fixed buffer
 * filled to the brim is not overread); "" for s NULL. */
void mp_pack_kstr(msgpack_packer *pk, const char *k, const char *s, size_t max);
/* The key k, then the head of an array of n items (the caller packs them). */
void mp_pack_karray(msgpack_packer *pk, const char *k, size_t n);

/* A wire string made safe for a one-line message: at most 32 bytes
 * (then "..."), each unprintable byte as '?'.  Returns dst. */
const char *mp_show(char dst[40], const msgpack_object_str *s);

/* Format a decoder's one-line reason into err (when errlen > 0, cut
 * short at errlen); returns -EBADMSG, so a check reads
 * `return mp_fail(err, errlen, "...", ...);`. */
int mp_fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* o as a C string in dst (size bytes with the NUL): 0, or -1 with dst ""
 * when o is not a string, holds a NUL or does not fit. */
int mp_cstr(const msgpack_object *o, char *dst, size_t size);

/* The value under key of map (a MAP object), or NULL. */
const msgpack_object *mp_lookup(const msgpack_object *map, const char *key);

/* The unsigned integer under key, at most max, into *out.  0, or
 * -EBADMSG with "<where>missing 'key'" or "<where>'key' is not an integer
 * in 0..max" in err. */
int mp_get_u(const msgpack_object *map, const char *where, const char *key, uint64_t max, uint64_t *out,
             char *err, size_t errlen);

/* The string under key, NUL-free and shorter than size, into out.  0, or
 * -EBADMSG with "<where>'key' is missing" or "... is not a string that
 * fits" in err. */
int mp_get_str(const msgpack_object *map, const char *where, const char *key, char *out, size_t size,
               char *err, size_t errlen);

#endif
