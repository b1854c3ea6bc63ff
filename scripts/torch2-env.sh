#!/bin/sh
# torch2-env.sh VENV [SPEC]: make VENV a virtual environment with torch 2.x
# from PyPI (SPEC, default torch==2.15.0) and what the recorder and the
# extension builder need (numpy, msgpack, pybind11); print its python.
# make check-torch2 calls it with build/torch2; it is kept between runs
# (VENV/.dirigo-spec records what it holds).
#
# PyPI's Linux torch wheel is a CUDA build; its CUDA libraries come as
# separate wheels (~3 GB).  On a machine whose CUDA toolkit already has
# most of them (/usr/local/cuda, as here), --lean (the default) installs
# torch without its dependencies, then its Python dependencies, then only
# the CUDA wheels torch needs to import that the toolkit lacks (cuFile,
# cuSPARSELt, NVSHMEM, NCCL: the versions torch's metadata pins); torch
# then runs on the CPU.  --full installs torch with all its dependencies.
#
# Exit 0 done; 1 torch could not be installed (the reason on stderr, the
# last lines of pip's log in VENV.log).
set -u
mode=lean
case "${1:-}" in --lean|--full) mode=${1#--}; shift ;; esac
venv=${1:?usage: torch2-env.sh [--lean|--full] VENV [SPEC]}
spec=${2:-torch==2.15.0}
log=$venv.log
py=$venv/bin/python
die() { echo "torch2-env: $*" >&2; exit 1; }

if [ -x "$py" ] && [ "$(cat "$venv/.dirigo-spec" 2>/dev/null)" = "$mode $spec" ] &&
   "$py" -c 'import torch, numpy, msgpack, pybind11' 2>/dev/null; then
	echo "$py"; exit 0
fi
base=
for p in /usr/bin/python3 python3; do
	command -v "$p" >/dev/null 2>&1 && "$p" -c 'import ensurepip, venv' 2>/dev/null && { base=$p; break; }
done
[ -n "$base" ] || die "no python3 with the venv module (apt-get install python3-venv)"
rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
: >"$log"
"$base" -m venv "$venv" >>"$log" 2>&1 || die "$base -m venv $venv failed (see $log)"
pip() { "$py" -m pip install --disable-pip-version-check -q "$@" >>"$log" 2>&1; }
fail() { tail -n 5 "$log" | sed 's/^/torch2-env:   /' >&2; die "$1 (see $log)"; }

echo "torch2-env: installing $spec ($mode) into $venv" >&2
if [ $mode = full ]; then
	pip "$spec" numpy msgpack pybind11 || fail "pip could not install $spec from PyPI"
else
	pip --no-deps "$spec" || fail "pip could not install $spec from PyPI"
	# torch's own requirements: the Python ones as they are, the CUDA ones
	# only where the toolkit lacks the library.
	reqs=$("$py" - <<-\EOP
	import importlib.metadata as m, re
	keep = ("nvidia-cusparselt", "nvidia-nvshmem", "nvidia-nccl")
	for r in m.requires("torch") or []:
	    if "extra ==" in r:
	        continue
	    name = re.split(r"[ ;<>=~!\[]", r, 1)[0].lower()
	    spec = r.split(";")[0].strip()
	    if name.startswith("nvidia-") or name.startswith("cuda-") or name == "triton":
	        if not name.startswith(keep):
	            continue
	    print(spec.replace(" ", ""))
	EOP
	) || fail "cannot read torch's requirements"
	# cuFile comes with the cuda-toolkit wheel, which the toolkit stands for
	pip $reqs nvidia-cufile numpy msgpack pybind11 || fail "pip could not install torch's dependencies"
fi
"$py" -c 'import torch, numpy, msgpack, pybind11' >>"$log" 2>&1 ||
	fail "torch does not import in $venv"
echo "$mode $spec" >"$venv/.dirigo-spec"
echo "$py"
