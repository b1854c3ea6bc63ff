"""ext: build torch C++/CUDA extensions against CPU torch, for tracing.

A KernelBench solution builds its kernels with
torch.utils.cpp_extension.load_inline (or load); an AI CUDA Engineer
solution is one .cu file with a forward() and a PYBIND11_MODULE.  Neither
builds on a machine without a GPU build of torch, so dirigo builds them
itself (see dtrace-cuda(1), section KERNELBENCH):

  * in the C++ standard torch's headers need (cxx_std(): C++17 for
    torch 1.13, C++20 for the torch 2.x releases whose headers insist);
  * the CUDA sources with nvcc (-cudart shared, -Xcompiler -fPIC, torch's
    own nvcc flags, PTX for compute_90 or $DIRIGO_CUDA_ARCH), the C++ sources
    with the host compiler, against torch's headers
    (torch.utils.cpp_extension.include_paths()) and Python's;
  * with compat/ first on the include path (a stub of
    c10/cuda/impl/cuda_cmake_macros.h, which CPU torch lacks), compat/
    dirigo_compat.h included before each source, and compat/compat.cpp
    (current stream, device count, the C10_CUDA_CHECK helper) linked in;
  * after rewriting the sources (REWRITES below) so that checks for CUDA
    tensors accept the CPU tensors they get: x.is_cuda() becomes
    x.is_cpu(), kCUDA becomes kCPU, x.cuda() becomes x.cpu(), and the CUDA
    device and stream guards become dirigo_compat::DeviceGuard (no-op).

The kernels then take CPU data pointers, which the record-only runtime
records (and maps to torch storages) instead of running.  Builds are
cached by a hash of the sources, the flags and the tool versions, in
$DIRIGO_EXT_CACHE (dtrace-cuda sets it to build/ext-cache of the
checkout), else ~/.cache/dirigo/ext-cache.
"""
import fcntl
import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
COMPAT = os.path.join(HERE, "compat")
BUILDER_VERSION = "1"

# (pattern, replacement), applied in order to every C++ and CUDA source.
REWRITES = [
    (re.compile(r"\.is_cuda\s*\(\s*\)"), ".is_cpu()"),
    (re.compile(r"\bDeviceType::CUDA\b"), "DeviceType::CPU"),
    (re.compile(r"\bkCUDA\b"), "kCPU"),
    (re.compile(r"\.cuda\s*\(\s*\)"), ".cpu()"),
    (re.compile(r"\b(?:at|c10)::cuda::(?:Optional)?CUDA(?:Stream)?Guard\b"),
     "dirigo_compat::DeviceGuard"),
    (re.compile(r"(?<![:\w])(?:Optional)?CUDA(?:Stream)?Guard\b(?=\s+\w+\s*[({])"),
     "dirigo_compat::DeviceGuard"),
]

CUDA_FLAGS = [
    "--expt-relaxed-constexpr",
    "-D__CUDA_NO_HALF_OPERATORS__", "-D__CUDA_NO_HALF_CONVERSIONS__",
    "-D__CUDA_NO_BFLOAT16_CONVERSIONS__", "-D__CUDA_NO_HALF2_OPERATORS__",
]


def cpp_extension():
    """torch.utils.cpp_extension, imported without its note that no CUDA
    runtime is found (there is none on purpose)."""
    import contextlib
    import io
    with contextlib.redirect_stderr(io.StringIO()):
        import torch.utils.cpp_extension as ce
    return ce


class BuildError(Exception):
    """An extension did not build; the message names the log."""


def rewrite(text):
    """The source with the CPU-compatibility rewrites applied."""
    for pat, rep in REWRITES:
        text = pat.sub(rep, text)
    return text


def cache_root():
    d = os.environ.get("DIRIGO_EXT_CACHE")
    if not d:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
        d = os.path.join(base, "dirigo", "ext-cache")
    os.makedirs(d, exist_ok=True)
    return d


def nvcc_path():
    p = os.environ.get("NVCC")
    if p:
        return p
    p = shutil.which("nvcc")
    if p:
        return p
    home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    return os.path.join(home, "bin", "nvcc")


def cuda_home():
    return os.environ.get("CUDA_HOME") or os.path.dirname(os.path.dirname(os.path.realpath(nvcc_path())))


def _tool_version(argv):
    try:
        return subprocess.run(argv, capture_output=True, text=True, check=False).stdout
    except OSError:
        return ""


def _common_flags(name):
    import sysconfig
    import torch
    ce = cpp_extension()
    inc = [COMPAT] + list(ce.include_paths()) + [sysconfig.get_paths()["include"]]
    flags = ["-I" + p for p in inc]
    flags += ["-DTORCH_EXTENSION_NAME=" + name, "-DTORCH_API_INCLUDE_EXTENSION_H",
              "-D_GLIBCXX_USE_CXX11_ABI=%d" % int(torch._C._GLIBCXX_USE_CXX11_ABI)]
    abi = getattr(ce, "_get_pybind11_abi_build_flags", None)
    if abi:
        flags += abi()
    return flags


def cxx_std():
    """The C++ standard torch's headers need: c++20 where they say so
    (torch 2.x from about 2.10: ATen.h stops with an #error before C++20),
    else c++17 (torch 1.13 to 2.9)."""
    ce = cpp_extension()
    for inc in ce.include_paths():
        try:
            with open(os.path.join(inc, "ATen", "ATen.h"), errors="replace") as f:
                return "c++20" if "C++20 or later" in f.read() else "c++17"
        except OSError:
            continue
    return "c++17"


def _link_flags():
    ce = cpp_extension()
    lib = os.path.join(os.path.dirname(os.path.dirname(ce.__file__)), "lib")
    return ["-L" + lib, "-lc10", "-ltorch", "-ltorch_cpu", "-ltorch_python",
            "-L" + os.path.join(cuda_home(), "lib64"), "-lcudart"]


def _arch_flags():
    arch = os.environ.get("DIRIGO_CUDA_ARCH", "90")
    return ["-gencode", "arch=compute_%s,code=compute_%s" % (arch, arch)]


def _run(argv, log):
    log.write("$ " + " ".join(argv) + "\n")
    log.flush()
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)      # never trace the compilers
    env.pop("DIRIGO_TRACE_FD", None)
    return subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env)


def _wait_all(procs, logpath):
    bad = [p for p in procs if p.wait() != 0]
    if bad:
        tail = ""
        try:
            with open(logpath, errors="replace") as f:
                lines = [l for l in f.read().splitlines() if "error" in l.lower()]
            tail = "\n".join(lines[:8])
        except OSError:
            pass
        raise BuildError("the extension did not build (see %s)%s" %
                         (logpath, ":\n" + tail if tail else ""))


def build(name, cpp_sources=(), cuda_sources=(), extra_cflags=(), extra_cuda_cflags=(),
          extra_ldflags=(), extra_include_paths=(), verbose=False):
    """Builds an extension module named name from sources (lists of
    (file name, text)); returns the path of its .so, built or cached."""
    import torch
    extra_inc = ["-I" + p for p in extra_include_paths]
    common = _common_flags(name) + extra_inc
    cxx = os.environ.get("CXX", "c++")
    std = "-std=" + cxx_std()
    cflags = [std, "-fPIC", "-O1", "-w", "-include",
              os.path.join(COMPAT, "dirigo_compat.h")] + common + list(extra_cflags)
    nvflags = ([std, "-Xcompiler", "-fPIC", "-cudart", "shared", "-O3", "-w",
                "-include", os.path.join(COMPAT, "dirigo_compat.h")] + CUDA_FLAGS +
               _arch_flags() + common + list(extra_cuda_cflags))
    h = hashlib.sha256()
    for part in (BUILDER_VERSION, torch.__version__, _tool_version([nvcc_path(), "--version"]),
                 _tool_version([cxx, "--version"]), " ".join(cflags), " ".join(nvflags),
                 " ".join(extra_ldflags)):
        h.update(part.encode() + b"\0")
    for fn in ("dirigo_compat.h", "compat.cpp"):
        with open(os.path.join(COMPAT, fn), "rb") as f:
            h.update(f.read())
    for fname, text in list(cpp_sources) + list(cuda_sources):
        h.update(fname.encode() + b"\0" + text.encode() + b"\0")
    key = h.hexdigest()[:16]
    root = cache_root()
    d = os.path.join(root, "%s-%s" % (name, key))
    so = os.path.join(d, name + ".so")
    if os.path.exists(so):
        return so
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, ".lock"), "w") as lockf:
        fcntl.flock(lockf, fcntl.LOCK_EX)
        if os.path.exists(so):
            return so
        logpath = os.path.join(d, "build.log")
        print("dirigo_trace: building extension '%s' (cached in %s)" % (name, d), file=sys.stderr)
        objs, procs = [], []
        with open(logpath, "w") as log:
            for fname, text in cpp_sources:
                src = os.path.join(d, fname)
                with open(src, "w") as f:
                    f.write(rewrite(text))
                objs.append(src + ".o")
                procs.append(_run([cxx] + cflags + ["-c", src, "-o", src + ".o"], log))
            for fname, text in cuda_sources:
                src = os.path.join(d, fname)
                with open(src, "w") as f:
                    f.write(rewrite(text))
                objs.append(src + ".o")
                procs.append(_run([nvcc_path()] + nvflags + ["-c", src, "-o", src + ".o"], log))
            compat_o = os.path.join(d, "compat.o")
            procs.append(_run([cxx] + cflags + ["-c", os.path.join(COMPAT, "compat.cpp"),
                                                "-o", compat_o], log))
            objs.append(compat_o)
            _wait_all(procs, logpath)
            tmp = so + ".tmp"
            _wait_all([_run([nvcc_path(), "-shared", "-cudart", "shared", "-Xcompiler", "-fPIC",
                             "-o", tmp] + objs + _link_flags() + list(extra_ldflags), log)],
                      logpath)
            os.rename(tmp, so)
    return so


def import_so(name, so):
    """Imports the extension module name from its .so."""
    spec = importlib.util.spec_from_file_location(name, so)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    sys.modules.setdefault(name, mod)
    return mod


def _listify(x):
    if x is None:
        return []
    if isinstance(x, str):
        return [x]
    return list(x)


def load_inline(name, cpp_sources, cuda_sources=None, functions=None, extra_cflags=None,
                extra_cuda_cflags=None, extra_ldflags=None, extra_include_paths=None,
                build_directory=None, verbose=False, with_cuda=None, is_python_module=True,
                with_pytorch_error_handling=True, keep_intermediates=True, **_ignored):
    """Stands in for torch.utils.cpp_extension.load_inline: the same sources
    (main.cpp gets torch/extension.h and the bindings of functions, cuda.cu
    torch/types.h, cuda.h and cuda_runtime.h), built by build()."""
    cpp = "#include <torch/extension.h>\n" + "\n".join(_listify(cpp_sources))
    if functions:
        if isinstance(functions, str):
            functions = [functions]
        if isinstance(functions, dict):
            items = list(functions.items())
        else:
            items = [(f, f) for f in functions]
        defs = "".join('m.def("%s", &%s, "%s");\n' % (f, f, doc.replace('"', '\\"'))
                       for f, doc in items)
        cpp += "\nPYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n" + defs + "}\n"
    sources = [("main.cpp", cpp)]
    cuda = []
    if cuda_sources:
        cuda = [("cuda.cu", "#include <torch/types.h>\n#include <cuda.h>\n"
                 "#include <cuda_runtime.h>\n" + "\n".join(_listify(cuda_sources)))]
    so = build(name, sources, cuda, _listify(extra_cflags), _listify(extra_cuda_cflags),
               _listify(extra_ldflags), _listify(extra_include_paths), verbose)
    return import_so(name, so)


def load(name, sources, extra_cflags=None, extra_cuda_cflags=None, extra_ldflags=None,
         extra_include_paths=None, build_directory=None, verbose=False, **_ignored):
    """Stands in for torch.utils.cpp_extension.load: files ending in .cu or
    .cuh are CUDA, the rest C++."""
    cpp, cuda = [], []
    for i, path in enumerate(_listify(sources)):
        with open(path) as f:
            text = f.read()
        base = "%d-%s" % (i, os.path.basename(path))
        (cuda if path.endswith((".cu", ".cuh")) else cpp).append((base, text))
    inc = _listify(extra_include_paths) + sorted({os.path.dirname(os.path.abspath(p))
                                                  for p in _listify(sources)})
    so = build(name, cpp, cuda, _listify(extra_cflags), _listify(extra_cuda_cflags),
               _listify(extra_ldflags), inc, verbose)
    return import_so(name, so)


def load_cu(path):
    """Builds and imports a one-file extension (an AI CUDA Engineer
    solution: kernels, forward(), PYBIND11_MODULE(TORCH_EXTENSION_NAME))."""
    with open(path) as f:
        text = f.read()
    name = "dirigo_ext_" + hashlib.sha256(text.encode()).hexdigest()[:12]
    kind = "cuda" if path.endswith(".cu") else "cpp"
    src = [(os.path.basename(path) if kind == "cuda" else "main.cpp", text)]
    so = build(name, [] if kind == "cuda" else src, src if kind == "cuda" else [],
               extra_include_paths=[os.path.dirname(os.path.abspath(path))])
    return import_so(name, so)


def install():
    """Makes torch.utils.cpp_extension.load_inline and load build with this
    module (call before the program imports them)."""
    ce = cpp_extension()
    ce.load_inline = load_inline
    ce.load = load
