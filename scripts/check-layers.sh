#!/bin/sh
# check-layers.sh [ROOT]: the layering of the source tree (README, "Layout";
# dirigo(7), DESIGN).  Three layers, each a folder, each including only those
# below it: libcommon < formats < engine < everything else (the tools,
# tests, bench).  Every include of a layer's header is written with its
# folder, from the one include root at the top of the tree
# (#include "formats/obligation.h"), never relative to the including file
# nor by a bare name that only a flat -Ilibcommon would find.
#
# Prints one line per fault, FILE:LINE: what is wrong, and exits 1 if there
# is any, 0 if none, 2 if ROOT is not a source tree.  ROOT defaults to the
# tree this script is in.
set -u

root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
if ! [ -d "$root/libcommon" ]; then
	echo "check-layers: '$root' has no libcommon/" >&2
	exit 2
fi
cd "$root" || exit 2

# Every source file of the tree, build outputs and vendored files left out.
files=$(find . \( -name .git -o -name 'build*' -o -name bin -o -name lib \
                  -o -name __pycache__ \) -prune -o \
             -type f \( -name '*.[ch]' -o -name '*.cpp' -o -name '*.cu' -o -name '*.cuh' \) \
             -print | sed 's|^\./||' | LC_ALL=C sort)

faults=$(
{
	# the list of files first, so that an include can be looked up
	printf '%s\n' "$files" | sed 's|^|F |'
	for f in $files; do
		grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
			sed "s|^|I $f |"
	done
} | awk '
function rank(p) {
	if (p ~ /^libcommon\//) return 0
	if (p ~ /^formats\//) return 1
	if (p ~ /^engine\//) return 2
	return 3
}
function layer(r) { return r == 0 ? "libcommon" : r == 1 ? "formats" : r == 2 ? "engine" : "the tools" }
# a/b/../c -> a/c, ./a -> a; "" where the path leaves the tree
function norm(p,   n, i, k, part, out, o) {
	n = split(p, part, "/"); k = 0
	for (i = 1; i <= n; i++) {
		if (part[i] == "" || part[i] == ".") continue
		if (part[i] == "..") { if (k == 0) return ""; k--; continue }
		out[++k] = part[i]
	}
	o = ""
	for (i = 1; i <= k; i++) o = o (i > 1 ? "/" : "") out[i]
	return o
}
$1 == "F" { have[$2] = 1; n = split($2, seg, "/"); base[seg[n]] = base[seg[n]] " " $2; next }
$1 == "I" {
	file = $2
	sub(/^I [^ ]* /, "")
	line = $0; sub(/:.*/, "", line)
	inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
	dir = file; if (!sub(/\/[^\/]*$/, "", dir)) dir = ""
	from = rank(file)
	if (inc ~ /^(libcommon|formats|engine)\//) {
		to = rank(inc)
		if (to > from)
			printf "%s:%s: includes \"%s\": %s includes %s, a layer above it\n", file, line, inc, layer(from), layer(to)
		next
	}
	local = norm((dir == "" ? "" : dir "/") inc)
	if (local != "" && (local in have)) {
		if (rank(local) < 3)
			printf "%s:%s: includes \"%s\": write it with its folder, \"%s\"\n", file, line, inc, local
		else if (rank(local) > from)
			printf "%s:%s: includes \"%s\": %s includes the tools\n", file, line, inc, layer(from)
		next
	}
	# not beside the file: a bare name that only a flat include path finds
	n = split(inc, seg, "/"); cands = base[seg[n]]
	m = split(cands, cand, " ")
	for (i = 1; i <= m; i++)
		if (rank(cand[i]) < 3 && substr(cand[i], length(cand[i]) - length(inc)) == "/" inc) {
			printf "%s:%s: includes \"%s\" by a flat include path: write \"%s\"\n", file, line, inc, cand[i]
			break
		}
}'
# and no build file hands the compiler a flat path into a layer
for f in GNUmakefile config.mk bench/* scripts/*; do
	[ -f "$f" ] && [ "$f" != scripts/check-layers.sh ] || continue
	grep -nE -e '-I[^[:space:]]*(libcommon|formats|engine)([/"[:space:]]|$)' "$f" |
		sed "s|^\([0-9]*\):.*|$f:\1: a flat include path into a layer (-I...); the one root is -I.|"
done
)

if [ -n "$faults" ]; then
	printf '%s\n' "$faults"
	exit 1
fi
exit 0
