#!/usr/bin/env bash
# t1850: scripts/check-comments.py (run by make test) flags a comment
# stranded above another comment block and a dir/file.[ch] path a comment
# names that does not exist; it passes the real tree, a design note atop a
# file, section banners, "/*" inside a string and other projects' headers.
source "$(dirname "$0")/lib.sh"
CHECK=$ROOT/scripts/check-comments.py
F=$T/tree
mkdir -p "$F/agent" "$F/common"
: >"$F/common/real.h"
cat >"$F/agent/a.c" <<'C'
/* a.c: the design note, then a banner; neither is a finding. */
#include "common/real.h"
#include <nfsc/libnfs.h>

/* ---- helpers ---- */

/* Parse a widget; the format is in common/real.h. */
static int parse(const char *s)
{
    const char *t = "/* not a comment: agent/nowhere.c */";
    return s[0] == t[0];
}

/* Emit the widget (the old emitter lived in agent/emit_old.c). */
/* Count widgets. */
static int count(void)
{
    return 1;
}

/* Left over from a deleted function. */

/* Free widgets. */
static void widget_free(void)
{
}
C
out=$("$CHECK" "$F" 2>&1); rc=$?
[ $rc -eq 1 ] || fail "exit status $rc on a tree with findings: $out"
grep -qx 'agent/a.c:14: stranded: .*(line 15) .*static int count(void).*' <<<"$out" || fail "no adjacent stranded finding: $out"
grep -qx 'agent/a.c:21: stranded: .*(line 23) .*static void widget_free(void).*' <<<"$out" || fail "no blank-line stranded finding: $out"
grep -qx 'agent/a.c:14: no-file: a comment names agent/emit_old.c, which does not exist' <<<"$out" || fail "no missing-path finding: $out"
grep -q 'check-comments: 3 finding(s)' <<<"$out" || fail "expected exactly 3 findings: $out"
grep -q 'nowhere.c\|real.h\|libnfs.h\|a.c:[1-9]:' <<<"$out" && fail "a false finding: $out"

# the repository itself is clean (make test runs this too)
out=$("$CHECK" "$ROOT" 2>&1) || fail "the tree has comment findings: $out"
grep -q 'check-comments: 0 finding(s)' <<<"$out" || fail "summary: $out"
echo "t1850: ok"
