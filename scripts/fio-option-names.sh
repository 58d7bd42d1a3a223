#!/bin/sh
# fio-option-names.sh FIO_SRC: the names of every option fio's source
# defines (options.c's table and its aliases, each engine's own options
# in engines/*.c, and the options of the profiles in profiles/*.c), one per
# line, sorted.  Only names are taken, and only
# from `struct fio_option` arrays (an engine's ops table has a .name too).
# The result is tests/fixtures/fio-3.33-options.txt, which
# tests/unit/test_plan_fio_keys.c checks nfstorm's key inventory against.
#   FILE=1 (in the environment) prefixes each name with its source file.
set -eu
src=${1:?usage: fio-option-names.sh FIO_SRC}
for f in "$src/options.c" "$src"/engines/*.c "$src"/profiles/*.c; do
    awk -v tag="$(basename "$f" .c)" -v file="${FILE:-0}" '
        /struct fio_option [a-z_]*\[[A-Z_]*\][[:space:]]*=/ { in_tab = 1; next }
        in_tab && /^};/ { in_tab = 0 }
        in_tab && match($0, /^[[:space:]]*\.(name|alias)[[:space:]]*=[[:space:]]*"[^"]*"/) {
            s = substr($0, RSTART, RLENGTH); sub(/^[^"]*"/, "", s); sub(/"$/, "", s)
            print (file == "1" ? tag " " : "") s
        }' "$f"
done | LC_ALL=C sort -u
