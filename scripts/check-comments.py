#!/usr/bin/env python3
"""Check that the C sources' comments stay next to, and true about, what
they describe (issue 26).  Two kinds of finding, one line each
(file:line: what), exit 1 when there is any:

  stranded   a comment block directly above another comment block (nothing
             or only blank lines between) that introduces code: the first
             was written for a function or statement that has moved or
             gone, and now reads as if it described what follows.  A
             file's opening design note (nothing but the file's first
             comments and preprocessor lines above it) and section banners
             ("/* ---- x ---- */") are not findings.
  no-file    a path "dir/file.c" or "dir/file.h" named in a comment that
             does not exist in the tree (relative to the repository root).

Usage: check-comments.py [ROOT]   (default: the repository this script is in)
Why a script and not a compiler warning: neither gcc nor clang looks at
comments; this reads them with a small tokenizer that knows strings and
character literals, so "/*" inside a string is not a comment.
"""
import os
import re
import sys

DIRS = ("agent", "common", "coordinator", "net", "proto", "tests")
PATH_RE = re.compile(r"(?<![\w./-])((?:[A-Za-z0-9_.-]+/)+[A-Za-z0-9_-]+\.[ch])(?![\w])")
BANNER_RE = re.compile(r"^\s*(/\*|//).*(----|====)")


def comments(text):
    """Yield (first_line, last_line, body) of each comment, 1-based lines."""
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c in "\"'":
            q = c
            i += 1
            while i < n and text[i] != q:
                if text[i] == "\\":
                    i += 1
                elif text[i] == "\n":
                    line += 1
                i += 1
            i += 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            body = text[i:j]
            yield line, line + body.count("\n"), body
            line += body.count("\n")
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            yield line, line, text[i:j]
            i = j
        else:
            i += 1


def blocks(cmts, lines):
    """Comments that start a line; a run of // lines is one block."""
    out = []
    for first, last, body in cmts:
        if not lines[first - 1].lstrip().startswith(("/*", "//")):
            continue
        if out and out[-1][1] + 1 == first and body.startswith("//") and out[-1][2].startswith("//"):
            out[-1] = (out[-1][0], last, out[-1][2] + "\n" + body)
        else:
            out.append((first, last, body))
    return out


def is_header_zone(lines, first):
    """Only comments, blank and preprocessor lines above line `first`."""
    in_c = False
    for l in lines[: first - 1]:
        s = l.strip()
        if in_c:
            if "*/" in s:
                in_c = False
            continue
        if not s or s.startswith(("#", "//")):
            continue
        if s.startswith("/*"):
            in_c = "*/" not in s
            continue
        return False
    return True


def check_file(root, rel, findings):
    path = os.path.join(root, rel)
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    lines = text.split("\n")
    cmts = list(comments(text))
    for first, _last, body in cmts:
        for m in PATH_RE.finditer(body):
            p = m.group(1)
            if p.startswith(("./", "../", "/")) or "://" in body[max(0, m.start() - 8): m.start() + 1]:
                continue
            if p.split("/")[0] not in DIRS + ("bench", "scripts", "deps", "docs", "examples"):
                continue  # a path of another project (linux/x.h, nfsc/libnfs.h ...)
            if not os.path.exists(os.path.join(root, p)):
                line = first + body[: m.start()].count("\n")
                findings.append(f"{rel}:{line}: no-file: a comment names {p}, which does not exist")
    bl = blocks(cmts, lines)
    for a, b in zip(bl, bl[1:]):
        # a, nothing or blank lines, b, then code right under b
        gap = lines[a[1]: b[0] - 1]
        if any(g.strip() for g in gap):
            continue
        nxt = lines[b[1]] if b[1] < len(lines) else ""
        if not nxt.strip() or nxt.lstrip().startswith(("/*", "//", "#", "}")):
            continue
        if is_header_zone(lines, a[0]) or BANNER_RE.match(lines[a[0] - 1]) \
                or BANNER_RE.match(lines[b[0] - 1]):
            continue
        findings.append(f"{rel}:{a[0]}: stranded: this comment sits above another comment "
                        f"(line {b[0]}) that introduces {nxt.strip()[:60]!r}; move or delete it")


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    findings = []
    for d in DIRS:
        for dp, dn, fn in os.walk(os.path.join(root, d)):
            dn[:] = sorted(x for x in dn if x not in ("corpus", "build"))
            for f in sorted(fn):
                if f.endswith((".c", ".h")):
                    check_file(root, os.path.relpath(os.path.join(dp, f), root), findings)
    for f in findings:
        print(f)
    print(f"check-comments: {len(findings)} finding(s)", file=sys.stderr)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
