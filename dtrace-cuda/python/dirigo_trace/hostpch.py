"""hostpch: a precompiled header for the host compile of a CUDA source.

The host compile (nvbuild.py) compiles cudafe++'s output, one file of
about 420 000 lines of which all but the last few hundred come from the
headers (torch/extension.h and what it includes), rewritten by cudafe++.
For two sources that include the same headers before their own first
line, that part is the same text (the module id it names is the same:
nvbuild.module_id), so gcc can parse it once into a precompiled header
and load it for every later source, which more than halves the host
compile.

split() cuts cudafe++'s output before the first line marker that names
the source file itself after its first line: the headers' part (the
prefix) and the rest.  The precompiled header of a prefix lives in the
cache entry pch-KEY, KEY a hash of the prefix, the compiler's flags and
its version; it is used only when the prefix of the source being compiled
is that text byte for byte (so the compile means what the whole file
means).  It is made by the second compile that meets its prefix (the
first only leaves a mark), so a header set that one program alone uses
costs nothing, and a builder that finds another one making it compiles
without it rather than wait.  DIRIGO_EXT_PCH=0 turns it off.
"""
import os
import re

from . import extcache, nvbuild

_MARK = re.compile(rb'^# [0-9]+ "([^"]*)"')


def enabled():
    return os.environ.get("DIRIGO_EXT_PCH", "1") != "0"


def split(text):
    """(first line, prefix, rest) of cudafe++'s output text (bytes), or
    None when it has no prefix worth precompiling."""
    nl = text.find(b"\n")
    if nl < 0:
        return None
    first = text[:nl + 1]
    m = _MARK.match(first)
    if not m:
        return None
    own = re.compile(rb'^# [0-9]+ "' + re.escape(m.group(1)) + rb'"', re.M)
    m2 = own.search(text, nl + 1)
    if not m2:
        return None
    # Back over the directives and blank lines just before it: cudafe++
    # writes the pragmas of the source's first declaration there.
    cut = m2.start()
    while cut > nl + 1:
        prev = text.rfind(b"\n", 0, cut - 1) + 1
        line = text[prev:cut].strip()
        if line and not line.startswith(b"#"):
            break
        cut = prev
    if cut - (nl + 1) < 1 << 20:
        return None
    return first, text[nl + 1:cut], text[cut:]


def _io(argv):
    """The index of the input in a host compile's argv and of its output."""
    try:
        o = argv.index("-o")
    except ValueError:
        return None
    inputs = [i for i, a in enumerate(argv) if a.endswith(".cpp") and i != o + 1]
    if len(inputs) != 1 or o + 1 >= len(argv):
        return None
    return inputs[0], o + 1


def phase(cc, cwd, version):
    """The "host pch" phase for the host compile phase cc (run after
    cudafe++, before cc): chooses the precompiled header for cc's input,
    makes it when its turn has come, and points cc at a main file that
    includes it.  version: the host compiler's version text."""
    return nvbuild.Phase("host pch", fn=lambda ph, log: _run(ph, log, cc, cwd, version),
                         after=["host front end"], cwd=cwd)


def _run(ph, log, cc, cwd, version):
    ph.note = "off" if not enabled() else "none"
    if not enabled():
        return 0
    io = _io(cc.argv)
    if io is None:
        return 0
    src = os.path.join(cwd, cc.argv[io[0]])
    with open(src, "rb") as f:
        text = f.read()
    parts = split(text)
    if parts is None:
        return 0
    first, prefix, rest = parts
    flags = [a for i, a in enumerate(cc.argv) if i not in io and a != "-o"]
    k = extcache.key("hostpch 1", version, " ".join(flags), prefix)
    d = extcache.entry("pch", k)
    header = os.path.join(d, "prefix.h")
    gch = header + ".gch"
    log.write("prefix of %d bytes: %s\n" % (len(prefix), d))

    def use(how):
        main = src[:-len(".cpp")] + ".pch.cpp"
        with open(main, "wb") as f:
            f.write(first + b'#include "' + header.encode() + b'"\n' + rest)
        cc.argv = list(cc.argv)
        cc.argv[io[0]] = os.path.basename(main)
        ph.note = how
        return 0

    if os.path.exists(gch):
        return use("used")
    if os.path.exists(os.path.join(d, "failed")):
        ph.note = "failed before"
        return 0
    seen = os.path.join(d, "seen")
    if not os.path.exists(seen):
        open(seen, "w").close()
        ph.note = "first seen"
        return 0
    with extcache.locked(d, wait=False) as mine:
        if os.path.exists(gch):
            return use("used")
        if not mine:
            ph.note = "being made"
            return 0
        tmp = "%s.%d.tmp" % (header, os.getpid())
        with open(tmp, "wb") as f:
            f.write(prefix)
        extcache.publish(tmp, header)
        make = [a for a in flags if a != "-c"]
        make = [("c++-header" if a == "c++" and make[i - 1] == "-x" else a)
                for i, a in enumerate(make)]
        if "-x" not in make:
            make[1:1] = ["-x", "c++-header"]
        gtmp = "%s.%d.tmp" % (gch, os.getpid())
        if nvbuild.call(ph, make + [header, "-o", gtmp], log) != 0:
            log.write("cannot precompile the prefix; compiling without\n")
            open(os.path.join(d, "failed"), "w").close()
            ph.note = "failed"
            return 0
        extcache.publish(gtmp, gch)
    return use("made")
