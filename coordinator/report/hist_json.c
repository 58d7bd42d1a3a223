/* hist_json: see hist_json.h.  jansson's integers are signed 64-bit: a
 * negative one is refused here, every other check is hist_codec's. */
#include "coordinator/report/hist_json.h"

#include <errno.h>
#include <stdio.h>

#include "common/hist_codec.h"
#include "common/why.h"
#include "coordinator/report/jint.h"

json_t *hist_json_encode(const struct hist *h)
{
    json_t *runs = json_array();
    struct hist_enc e;
    uint64_t v;
    int bad = !runs;

    hist_enc_begin(&e, h);
    while (!bad && hist_enc_next(&e, &v))
        bad = json_array_append_new(runs, jint(v)) != 0;
    if (bad) {
        json_decref(runs);
        return NULL;
    }
    /* "o" steals runs, also when pack fails */
    return json_pack("{sIsIsIsIso}", "count", (json_int_t)h->count, "sum", (json_int_t)h->sum_ns,
                     "min", (json_int_t)hist_enc_min(h), "max", (json_int_t)h->max_ns, "runs", runs);
}

static int u64_at(json_t *o, const char *key, uint64_t *v, char *why, size_t whylen)
{
    json_t *x = json_object_get(o, key);

    if (!x)
        return why_fail(why, whylen, "'%s' missing", key);
    if (!json_is_integer(x) || json_integer_value(x) < 0)
        return why_fail(why, whylen, "'%s' is not an unsigned integer", key);
    *v = (uint64_t)json_integer_value(x);
    return 0;
}

int hist_json_decode(json_t *o, struct hist *h, char *why, size_t whylen)
{
    uint64_t count = 0, sum = 0, min = 0, max = 0;
    struct hist_dec d;
    json_t *runs;
    int rc;

    hist_init(h);
    if (!json_is_object(o))
        return why_fail(why, whylen, "not an object");
    if (u64_at(o, "count", &count, why, whylen) || u64_at(o, "sum", &sum, why, whylen) ||
        u64_at(o, "min", &min, why, whylen) || u64_at(o, "max", &max, why, whylen))
        return -EINVAL;
    runs = json_object_get(o, "runs");
    if (!json_is_array(runs))
        return why_fail(why, whylen, "'runs' %s", runs ? "is not an array" : "missing");
    rc = hist_dec_begin(&d, h, count, sum, min, max, json_array_size(runs));
    for (size_t i = 0; rc == 0 && i < json_array_size(runs); i++) {
        json_t *x = json_array_get(runs, i);

        rc = !json_is_integer(x) || json_integer_value(x) < 0 ?
             hist_dec_fail(&d, "'runs' holds a value that is not an unsigned integer") :
             hist_dec_value(&d, (uint64_t)json_integer_value(x));
    }
    if (rc == 0)
        rc = hist_dec_end(&d);
    if (rc) {
        snprintf(why, whylen, "%s", d.why);
        return rc;
    }
    return 0;
}

json_t *hist_json_summary(const struct hist *h, int brief)
{
    struct jb b = { 0 };
    json_t *o = json_object();

    /* An empty histogram's min is UINT64_MAX: report 0 like the other keys. */
    if (!brief)
        jb_put(&b, o, "min", jint(h->count ? h->min_ns : 0));
    jb_put(&b, o, "mean", json_real(hist_mean(h)));
    jb_put(&b, o, "p50", jint(hist_percentile(h, 50.0)));
    if (!brief)
        jb_put(&b, o, "p90", jint(hist_percentile(h, 90.0)));
    jb_put(&b, o, "p99", jint(hist_percentile(h, 99.0)));
    if (!brief)
        jb_put(&b, o, "p999", jint(hist_percentile(h, 99.9)));
    jb_put(&b, o, "max", jint(h->count ? h->max_ns : 0));
    if (!brief)
        jb_put(&b, o, "hist", hist_json_encode(h));
    if (b.failed) {
        json_decref(o);
        return NULL;
    }
    return o;
}
