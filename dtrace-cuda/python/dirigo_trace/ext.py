"""ext: build torch C++/CUDA extensions against CPU torch, for tracing.

A KernelBench solution builds its kernels with
torch.utils.cpp_extension.load_inline (or load); an AI CUDA Engineer
solution is one .cu file with a forward() and a PYBIND11_MODULE.  Neither
builds on a machine without a GPU build of torch, so dirigo builds them
itself (see dtrace-cuda(1), section KERNELBENCH):

  * in the C++ standard torch's headers need (cxx_std(): C++17 for
    torch 1.13, C++20 for the torch 2.x releases whose headers insist);
  * the CUDA sources with nvcc's phases (nvbuild.py: host and device
    front ends at once, host code at -O0, the device code exactly as nvcc
    compiles it with the flags below), with -cudart shared, -Xcompiler
    -fPIC, torch's own nvcc flags and PTX for compute_90 or
    $DIRIGO_CUDA_ARCH; the C++ sources with the host compiler at -O0;
    against torch's headers (torch.utils.cpp_extension.include_paths())
    and Python's;
  * with a copy of compat/'s headers first on the include path (a stub of
    c10/cuda/impl/cuda_cmake_macros.h, which CPU torch lacks), its
    dirigo_compat.h included before each source, and compat.cpp (streams,
    device queries, the C10_CUDA_CHECK helper) built once per toolchain
    into libdirigo_compat.so, which import_so loads before the extension
    (Compat);
  * after rewriting the sources and the local headers they include
    (REWRITES below) so that checks for CUDA tensors accept the CPU tensors
    they get: x.is_cuda() becomes x.is_cpu(), kCUDA becomes kCPU, x.cuda()
    becomes x.cpu(), the CUDA device guards become
    dirigo_compat::DeviceGuard (no-op), and a module the source names
    itself (PYBIND11_MODULE(Name, m)) takes the build's name.

The kernels then take CPU data pointers, which the record-only runtime
records (and maps to torch storages) instead of running.  Builds are
cached (extcache.py) by a hash of the sources, the local headers they
include, the flags and the toolchain, never of a checkout's paths.
"""
import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time

from . import extcache, hostpch, nvbuild

HERE = os.path.dirname(os.path.abspath(__file__))
COMPAT = os.path.join(HERE, "compat")
BUILDER_VERSION = "3"

# (pattern, replacement), applied in order to every C++ and CUDA source.
REWRITES = [
    (re.compile(r"\.is_cuda\s*\(\s*\)"), ".is_cpu()"),
    (re.compile(r"\bDeviceType::CUDA\b"), "DeviceType::CPU"),
    (re.compile(r"\bkCUDA\b"), "kCPU"),
    (re.compile(r"\.cuda\s*\(\s*\)"), ".cpu()"),
    (re.compile(r"\b(?:at|c10)::cuda::(?:Optional)?CUDAGuard\b"),
     "dirigo_compat::DeviceGuard"),
    (re.compile(r"(?<![:\w])(?:Optional)?CUDAGuard\b(?=\s+\w+\s*[({])"),
     "dirigo_compat::DeviceGuard"),
    # a module named in the source (PYBIND11_MODULE(ShuffleNetUnit, m))
    # gets the name of its build, or Python finds no PyInit_ for it
    (re.compile(r"\bPYBIND11_MODULE\s*\(\s*\w+\s*,"), "PYBIND11_MODULE(TORCH_EXTENSION_NAME,"),
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
        return subprocess.run(argv, capture_output=True, text=True, check=False,
                              env=_env()).stdout
    except OSError:
        return ""


_TOOLCHAIN = None


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


class Toolchain:
    """What every build here shares: compilers and their versions, torch's
    and Python's include folders and libraries, the compat entry."""

    def __init__(self):
        import sysconfig
        import torch
        ce = cpp_extension()
        self.nvcc = nvcc_path()
        self.cxx = os.environ.get("CXX", "c++")
        self.torch = torch.__version__
        self.abi = int(torch._C._GLIBCXX_USE_CXX11_ABI)
        self.includes = list(ce.include_paths()) + [sysconfig.get_paths()["include"]]
        abi = getattr(ce, "_get_pybind11_abi_build_flags", None)
        self.pybind_flags = abi() if abi else []
        lib = os.path.join(os.path.dirname(os.path.dirname(ce.__file__)), "lib")
        self.link = ["-L" + lib, "-lc10", "-ltorch", "-ltorch_cpu", "-ltorch_python",
                     "-L" + os.path.join(cuda_home(), "lib64"), "-lcudart"]
        self.nvcc_version = _tool_version([self.nvcc, "--version"])
        self.cxx_version = _tool_version([self.cxx, "--version"])
        host = os.environ.get("NVCC_CCBIN") or "gcc"
        self.host_version = _tool_version([host, "--version"])
        self.fingerprint = extcache.key(BUILDER_VERSION, self.torch, self.abi, sys.version,
                                        " ".join(self.includes), " ".join(self.link),
                                        " ".join(self.pybind_flags), self.nvcc_version,
                                        self.cxx_version, self.host_version)
        self.std = "-std=" + cxx_std()
        self.compat = None


def toolchain():
    global _TOOLCHAIN
    if _TOOLCHAIN is None:
        _TOOLCHAIN = Toolchain()
    return _TOOLCHAIN


def _arch_flags():
    arch = os.environ.get("DIRIGO_CUDA_ARCH", "90")
    return ["-gencode", "arch=compute_%s,code=compute_%s" % (arch, arch)]


def _compat_files(headers_only):
    out = []
    for dirpath, _, files in os.walk(COMPAT):
        for fn in sorted(files):
            if headers_only and not fn.endswith(".h"):
                continue
            p = os.path.join(dirpath, fn)
            out.append((os.path.relpath(p, COMPAT), p))
    return sorted(out)


def _copy_entry(kind, tc, files):
    """The cache entry KIND-KEY holding a copy of files (compat/ paths)
    under src/, KEY their contents and the toolchain's."""
    parts = [kind + " 1", tc.fingerprint]
    for rel, p in files:
        with open(p, "rb") as f:
            parts += [rel, f.read()]
    d = extcache.entry(kind, extcache.key(*parts))
    ok = os.path.join(d, "copied")
    if not os.path.exists(ok):
        with extcache.locked(d):
            if not os.path.exists(ok):
                for rel, p in files:
                    dst = os.path.join(d, "src", rel)
                    os.makedirs(os.path.dirname(dst), exist_ok=True)
                    shutil.copyfile(p, dst + ".tmp")
                    extcache.publish(dst + ".tmp", dst)
                open(ok, "w").close()
    return d


class Compat:
    """compat/ in the cache, so that no build names a checkout's files: the
    headers every source includes (entry compat-KEY, KEY their contents:
    part of every extension's key), and libdirigo_compat.so, built from
    compat.cpp once per toolchain and compat sources (entry compatlib-KEY)
    and loaded before each extension (import_so): an extension does not
    link it, so changing compat.cpp rebuilds one small library, not every
    extension."""

    def __init__(self, tc):
        self.tc = tc
        self.dir = _copy_entry("compat", tc, _compat_files(True))
        self.include = os.path.join(self.dir, "src")
        self.header = os.path.join(self.include, "dirigo_compat.h")
        self.libdir = None

    def library(self):
        """The path of libdirigo_compat.so, built if missing (waiting for
        another builder making it)."""
        tc = self.tc
        if self.libdir is None:
            self.libdir = _copy_entry("compatlib", tc, _compat_files(False))
        lib = os.path.join(self.libdir, "libdirigo_compat.so")
        if os.path.exists(lib):
            return lib
        with extcache.locked(self.libdir):
            if os.path.exists(lib):
                return lib
            src = os.path.join(self.libdir, "src")
            flags = ([tc.std, "-fPIC", "-O1", "-w", "-I" + src] +
                     ["-I" + p for p in tc.includes] +
                     ["-D_GLIBCXX_USE_CXX11_ABI=%d" % tc.abi, "-include",
                      os.path.join(src, "dirigo_compat.h")])
            tmp = "%s.%d.tmp" % (lib, os.getpid())
            ph = nvbuild.Phase("compat library", [tc.cxx, "-shared"] + flags +
                               [os.path.join(src, "compat.cpp"), "-o", tmp] + tc.link,
                               _env(), cwd=self.libdir)
            try:
                nvbuild.run([ph], self.libdir)
            except nvbuild.Failed:
                raise BuildError("the compat library did not build (see %s)" %
                                 os.path.join(self.libdir, "phase-compat-library.log"))
            extcache.publish(tmp, lib)
        return lib


def _local_headers(texts, dirs):
    """(name, bytes) of the files that #include "..." in texts reaches in
    dirs, transitively: the key of a build covers them, not the folder's
    path."""
    inc = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
    seen, out, todo = set(), [], list(texts)
    while todo:
        for name in inc.findall(todo.pop()):
            if name in seen:
                continue
            seen.add(name)
            for d in dirs:
                p = os.path.join(d, name)
                if os.path.isfile(p):
                    with open(p, "rb") as f:
                        data = f.read()
                    out.append((name, data))
                    todo.append(data.decode("utf-8", "replace"))
                    break
    return sorted(out)


def _write_headers(d, headers):
    """Rewritten copies of the local headers in the build folder d, which
    the quoted includes of the sources there find first."""
    for hname, data in headers:
        p = os.path.normpath(os.path.join(d, hname))
        if not p.startswith(d + os.sep):
            continue        # outside the folder: the original is used
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(rewrite(data.decode("utf-8", "replace")))


def _env():
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)      # never trace the compilers
    env.pop("DIRIGO_TRACE_FD", None)
    return env


def _rename(phases, suffix):
    for ph in phases:
        ph.name += suffix
        ph.after = [a + suffix for a in ph.after]
    return phases


def _error_lines(d, phases):
    """The first lines that say error, in the logs of the phases that failed
    or, failing that, of all of them."""
    out = []
    for ph in phases:
        if ph.status in (0, None, "skipped") and out:
            continue
        p = os.path.join(d, "phase-%s.log" % ph.name.replace(" ", "-"))
        try:
            with open(p, errors="replace") as f:
                out += [l for l in f.read().splitlines()[1:] if "error" in l.lower()]
        except OSError:
            pass
    return out[:8]


def _write_log(d, phases, t0):
    """build.log: every phase's log, in order; timing.json: the phases'
    wall and CPU times (bench/build-time.sh reads it)."""
    with open(os.path.join(d, "build.log"), "w") as log:
        for ph in phases:
            p = os.path.join(d, "phase-%s.log" % ph.name.replace(" ", "-"))
            try:
                with open(p, errors="replace") as f:
                    log.write("## %s (%s)\n" % (ph.name, ph.status) + f.read())
            except OSError:
                pass
    rec = {"total": round(time.monotonic() - t0, 3),
           "phases": [{"name": ph.name, "start": ph.start and round(ph.start, 3),
                       "end": ph.end and round(ph.end, 3), "cpu": round(ph.cpu, 3),
                       "status": ph.status, "note": ph.note} for ph in phases]}
    with open(os.path.join(d, "timing.json"), "w") as f:
        json.dump(rec, f, indent=1)
        f.write("\n")


def build(name, cpp_sources=(), cuda_sources=(), extra_cflags=(), extra_cuda_cflags=(),
          extra_ldflags=(), extra_include_paths=(), verbose=False, cached_only=False):
    """Builds an extension module named name from sources (lists of
    (file name, text)); returns the path of its .so, built or cached
    (cached_only: the cached one, or None)."""
    tc = toolchain()
    if tc.compat is None:
        tc.compat = Compat(tc)
    compat = tc.compat
    # Flags with the folders named by placeholders, for the key.
    src_dirs = list(extra_include_paths)
    inc = ["{compat}"] + tc.includes + ["{src%d}" % i for i in range(len(src_dirs))]
    common = ["-I" + p for p in inc]
    common += ["-DTORCH_EXTENSION_NAME=" + name, "-DTORCH_API_INCLUDE_EXTENSION_H",
               "-D_GLIBCXX_USE_CXX11_ABI=%d" % tc.abi] + tc.pybind_flags
    cflags = ([tc.std, "-fPIC", "-w", "-include", "{compat}/dirigo_compat.h"] + common +
              list(extra_cflags) + ["-O0"])
    nvflags = ([tc.std, "-Xcompiler", "-fPIC", "-cudart", "shared", "-O3", "-w",
                "-include", "{compat}/dirigo_compat.h"] + CUDA_FLAGS + _arch_flags() + common +
               list(extra_cuda_cflags))
    texts = [t for _, t in list(cpp_sources) + list(cuda_sources)]
    parts = [BUILDER_VERSION, tc.fingerprint, os.path.basename(compat.dir), " ".join(cflags),
             " ".join(nvflags), " ".join(extra_ldflags), "phased %s" % _phased()]
    # The sources as compiled (rewritten): a change of REWRITES rebuilds
    # only the extensions it changes.
    for fname, text in list(cpp_sources) + list(cuda_sources):
        parts += [fname, rewrite(text)]
    headers = _local_headers(texts, src_dirs)
    for hname, data in headers:
        parts += ["header " + hname, rewrite(data.decode("utf-8", "replace"))]
    k = extcache.key(*parts)
    subst = {"{compat}": compat.include}
    subst.update({"{src%d}" % i: p for i, p in enumerate(src_dirs)})

    def real(flags):
        out = []
        for a in flags:
            for ph, p in subst.items():
                a = a.replace(ph, p)
            out.append(a)
        return out

    cflags, nvflags = real(cflags), real(nvflags)
    so = os.path.join(extcache.root(), "%s-%s" % (name, k), name + ".so")
    if os.path.exists(so) or cached_only:
        return so if os.path.exists(so) else None
    d = extcache.entry(name, k)
    with extcache.locked(d):
        if os.path.exists(so):
            return so
        print("dirigo_trace: building extension '%s' (cached in %s)" % (name, d), file=sys.stderr)
        t0 = time.monotonic()
        env = _env()
        phases, objs = [], []
        _write_headers(d, headers)
        for i, (fname, text) in enumerate(cpp_sources):
            with open(os.path.join(d, fname), "w") as f:
                f.write(rewrite(text))
            objs.append(fname + ".o")
            phases.append(nvbuild.Phase("c++ %d" % i, [tc.cxx] + cflags +
                                        ["-c", fname, "-o", fname + ".o"], env, cwd=d))
        for i, (fname, text) in enumerate(cuda_sources):
            with open(os.path.join(d, fname), "w") as f:
                f.write(rewrite(text))
            obj = os.path.splitext(fname)[0] + ".o"
            objs.append(obj)
            args = nvflags + ["--keep", "--keep-dir", ".", "-c", fname, "-o", obj]
            with open(os.path.join(d, os.path.splitext(fname)[0] + ".nvcc.json"), "w") as f:
                json.dump(args, f)       # how to compile it with nvcc itself
            got = nvbuild.plan(tc.nvcc, args, d, env, i) if _phased() else None
            if got is None:
                ps = [nvbuild.Phase("nvcc", [tc.nvcc] + nvflags + ["-c", fname, "-o", obj], env,
                                    cwd=d)]
            else:
                ps, mid_file, mid = got
                with open(mid_file, "w") as f:
                    f.write(mid)
                cc = [p for p in ps if p.name == "host compile"][0]
                pch = hostpch.phase(cc, d, tc.host_version, src_dirs)
                cc.after.append(pch.name)
                ps.append(pch)
            phases += _rename(ps, "" if len(cuda_sources) == 1 else " %d" % i)
        tmp = so + ".tmp"
        phases.append(nvbuild.Phase("link", [tc.nvcc, "-shared", "-cudart", "shared", "-Xcompiler",
                                             "-fPIC", "-o", tmp] + objs + tc.link +
                                    list(extra_ldflags), env,
                                    after=[ph.name for ph in phases], cwd=d))
        try:
            nvbuild.run(phases, d, t0)
        except nvbuild.Failed:
            _write_log(d, phases, t0)
            lines = _error_lines(d, phases)
            raise BuildError("the extension did not build (see %s)%s" %
                             (os.path.join(d, "build.log"),
                              ":\n" + "\n".join(lines) if lines else ""))
        _write_log(d, phases, t0)
        extcache.publish(tmp, so)
    return so


def _phased():
    """Whether CUDA sources are compiled by nvcc's phases run here
    (nvbuild.py), rather than by nvcc itself: DIRIGO_EXT_PHASES=0 says no."""
    return os.environ.get("DIRIGO_EXT_PHASES", "1") != "0"


def import_so(name, so):
    """Imports the extension module name from its .so, after the compat
    library it needs (loaded into the global namespace)."""
    import ctypes
    tc = toolchain()
    if tc.compat is None:
        tc.compat = Compat(tc)
    ctypes.CDLL(tc.compat.library(), mode=ctypes.RTLD_GLOBAL)
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


def load_cu(path, cached_only=False):
    """Builds and imports a one-file extension (an AI CUDA Engineer
    solution: kernels, forward(), PYBIND11_MODULE(TORCH_EXTENSION_NAME)).
    cached_only: returns the path of its cached .so, or None, and builds
    and imports nothing."""
    with open(path) as f:
        text = f.read()
    name = "dirigo_ext_" + hashlib.sha256(text.encode()).hexdigest()[:12]
    kind = "cuda" if path.endswith(".cu") else "cpp"
    src = [(os.path.basename(path) if kind == "cuda" else "main.cpp", text)]
    so = build(name, [] if kind == "cuda" else src, src if kind == "cuda" else [],
               extra_include_paths=[os.path.dirname(os.path.abspath(path))],
               cached_only=cached_only)
    if cached_only:
        return so
    return import_so(name, so)


def install():
    """Makes torch.utils.cpp_extension.load_inline and load build with this
    module (call before the program imports them), and, with a torch that
    has no CUDA, x.cuda(), x.to("cuda") and their module forms in the
    program's Python keep their tensors on the CPU (the C++ side is
    rewritten the same way, REWRITES): every tensor of a trace on the CPU
    stands for a device one."""
    import torch
    ce = cpp_extension()
    ce.load_inline = load_inline
    ce.load = load
    if not torch.cuda.is_available() and not getattr(torch.Tensor.to, "_dirigo", False):
        torch.Tensor.cuda = _stay
        torch.nn.Module.cuda = _stay
        torch.Tensor.to = _on_cpu(torch.Tensor.to)
        torch.nn.Module.to = _on_cpu(torch.nn.Module.to)


def _stay(self, *args, **kwargs):
    """Tensor.cuda / Module.cuda without CUDA: self, where it is."""
    return self


def _cpu_device(d):
    import torch
    if isinstance(d, str) and d.split(":")[0] == "cuda":
        return "cpu"
    if isinstance(d, torch.device) and d.type == "cuda":
        return torch.device("cpu")
    return d


def _on_cpu(to):
    """Tensor.to / Module.to without CUDA: a CUDA device ("cuda",
    "cuda:0", torch.device("cuda")) means the CPU."""
    def wrapped(self, *args, **kwargs):
        args = tuple(_cpu_device(a) for a in args)
        if "device" in kwargs:
            kwargs["device"] = _cpu_device(kwargs["device"])
        return to(self, *args, **kwargs)
    wrapped._dirigo = True
    return wrapped
