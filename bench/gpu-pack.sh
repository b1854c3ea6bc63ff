#!/bin/sh
# gpu-pack.sh: on the build machine, put into build/gpu-libs what a bare
# GPU machine without registries needs to run the carried bin/ and lib/
# for bench/gpu-check.sh: the shared libraries they load that are not the C
# library's own (libz3, libmsgpackc, libzstd, libarchive, libjansson, ...),
# and jq with its libraries (60 MB), then all of it with bin/ and lib/ in
# build/gpu-carry.tar.xz (about 19 MB).  Carry that file; gpu-check.sh
# unpacks it when make cannot build there.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
dst=$top/build/gpu-libs
[ -x "$top/bin/dtrace-cuda" ] || { echo "gpu-pack: build first (make)" >&2; exit 1; }
rm -rf "$dst" && mkdir -p "$dst"
jq=$(command -v jq) || { echo "gpu-pack: jq not found" >&2; exit 1; }
cp "$jq" "$dst/jq"
for f in "$top"/bin/* "$top"/lib/*.so "$jq"; do
	ldd "$f" | awk '$3 ~ /^\// { print $3 }'
done | sort -u | while read -r so; do
	case $(basename "$so") in
	libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*|libgcc_s.so.*|libstdc++.so.*) ;;
	*) cp -L "$so" "$dst/" ;;
	esac
done
tar -C "$top" -cJf "$top/build/gpu-carry.tar.xz" bin lib build/gpu-libs
du -sh "$dst" "$top/build/gpu-carry.tar.xz" | sed 's/^/gpu-pack: /'
