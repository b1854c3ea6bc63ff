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
means).  The folders of the program's own sources (-I DIR, different for
every program) stand in the key as placeholders, as in the extension's
key: the prefix is preprocessed text whose few #include lines name the
toolkit's headers, so those folders change its meaning only when a file
in one of them would be found instead of a header the precompiled header
read.  The header is made with gcc's list of the files it read (deps),
and it is made only when none of them is in such a folder, and used only
when no such folder of the compile at hand holds a file under the name of
one of them (any trailing part of its path), which is every way an
#include could find that file there instead.  It is made by the second compile that meets its prefix (the
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


def phase(cc, cwd, version, own_dirs=()):
    """The "host pch" phase for the host compile phase cc (run after
    cudafe++, before cc): chooses the precompiled header for cc's input,
    makes it when its turn has come, and points cc at a main file that
    includes it.  version: the host compiler's version text; own_dirs: the
    folders of the program's own sources among cc's -I folders."""
    return nvbuild.Phase("host pch",
                         fn=lambda ph, log: _run(ph, log, cc, cwd, version, own_dirs),
                         after=["host front end"], cwd=cwd)


def key_flags(flags, own_dirs):
    """flags with each -I of a folder in own_dirs written as a placeholder."""
    own = {os.path.realpath(p): i for i, p in enumerate(own_dirs)}
    out, i = [], 0
    while i < len(flags):
        a = flags[i]
        if a == "-I" and i + 1 < len(flags) and os.path.realpath(flags[i + 1]) in own:
            out.append("-I{own%d}" % own[os.path.realpath(flags[i + 1])])
            i += 2
            continue
        if a.startswith("-I") and len(a) > 2 and os.path.realpath(a[2:]) in own:
            a = "-I{own%d}" % own[os.path.realpath(a[2:])]
        out.append(a)
        i += 1
    return out


def read_deps(path):
    """The files a make-style dependency file (gcc -MD -MF) names."""
    with open(path) as f:
        text = f.read().replace("\\\n", " ")
    _, _, files = text.partition(":")
    return [os.path.realpath(p) for p in files.split() if p != "\\"]


def inside(path, dirs):
    """Whether path lies in one of the folders dirs."""
    for d in dirs:
        d = os.path.realpath(d)
        if path == d or path.startswith(d.rstrip(os.sep) + os.sep):
            return True
    return False


def shadowed(deps, dirs):
    """A file in one of dirs under the name of a dependency (any trailing
    part of its path), which an #include could find instead; or None."""
    names = set()
    for p in deps:
        parts = p.strip(os.sep).split(os.sep)
        for k in range(1, len(parts)):
            names.add(os.path.join(*parts[-k:]))
    for d in dirs:
        for n in names:
            q = os.path.join(d, n)
            if os.path.exists(q):
                return q
    return None


def _run(ph, log, cc, cwd, version, own_dirs=()):
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
    k = extcache.key("hostpch 2", version, " ".join(key_flags(flags, own_dirs)), prefix)
    d = extcache.entry("pch", k)
    header = os.path.join(d, "prefix.h")
    gch = header + ".gch"
    deps = os.path.join(d, "deps")
    log.write("prefix of %d bytes: %s\n" % (len(prefix), d))

    def use(how):
        main = src[:-len(".cpp")] + ".pch.cpp"
        with open(main, "wb") as f:
            f.write(first + b'#include "' + header.encode() + b'"\n' + rest)
        cc.argv = list(cc.argv)
        cc.argv[io[0]] = os.path.basename(main)
        ph.note = how
        return 0

    def usable():
        hit = shadowed([p for p in read_deps(deps) if not inside(p, [d])], own_dirs)
        if hit is not None:
            log.write("%s has the name of a header the prefix read; compiling "
                      "without\n" % hit)
            ph.note = "shadowed"
        return hit is None

    if os.path.exists(gch):
        return use("used") if usable() else 0
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
            return use("used") if usable() else 0
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
        dtmp = "%s.%d.tmp" % (deps, os.getpid())
        if nvbuild.call(ph, make + ["-MD", "-MF", dtmp, header, "-o", gtmp], log) != 0:
            log.write("cannot precompile the prefix; compiling without\n")
            open(os.path.join(d, "failed"), "w").close()
            ph.note = "failed"
            return 0
        local = [p for p in read_deps(dtmp) if inside(p, own_dirs) and not inside(p, [d])]
        if local:
            log.write("the prefix reads %s, a file of the program's own; compiling "
                      "without\n" % local[0])
            open(os.path.join(d, "failed"), "w").close()
            ph.note = "failed"
            return 0
        extcache.publish(dtmp, deps)
        extcache.publish(gtmp, gch)
    return use("made")
