"""nvbuild: compile one CUDA source as `nvcc -c` does, in less time.

nvcc runs its phases one after another.  For one PTX target (nvcc 13:
`nvcc --dryrun --keep` lists them) they are

    host    gcc -E (host)     -> cudafe++ (host front end)
    device  gcc -E (device)   -> cicc -> ptxas -> fatbinary
    final   gcc -c of cudafe++'s output, which includes cicc's stub and
            the fatbinary

and the only link between the two chains before the final compile is the
module id, a name cudafe++ makes and cicc reads.  plan() takes nvcc's own
command lines and changes three things:

  * the module id is written by us before either chain starts (one fixed
    name per source: see module_id()), so that cudafe++ and cicc run at
    the same time;
  * the host chain and the final compile run at -O0 (the host code of an
    extension runs once, to launch kernels; compiling torch's headers at
    -O3 is most of a build); the device chain keeps nvcc's flags as they
    are, so the PTX is nvcc's, up to the module id in the names of
    internal symbols;
  * the final compile may use a precompiled header of the part of
    cudafe++'s output that comes from the headers (hostpch.py).

When nvcc's phases are not of that shape (another nvcc, several targets)
plan() returns None and the caller runs nvcc itself.

run() runs phases (Phase: argv, environment, what it waits for) as soon
as what they wait for is done, and records each one's wall and CPU time.
"""
import os
import re
import shlex
import subprocess
import threading
import time

_ASSIGN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
_VAR = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
_OPT = re.compile(r"^-O([0-3sgz]|fast)?$")


class Phase:
    """One step of a build: the command argv, or the Python function fn
    (called as fn(phase, log), returning an exit status; it runs its
    commands with call()).  after: names of the phases it waits for; note:
    a word for the timings."""

    def __init__(self, name, argv=None, env=None, after=(), fn=None, cwd=None):
        self.name = name
        self.argv = argv
        self.env = env
        self.after = list(after)
        self.fn = fn
        self.cwd = cwd
        self.start = self.end = None
        self.cpu = 0.0
        self.status = None
        self.note = ""
        self.proc = None


def module_id(index):
    """The module id of the index-th CUDA source of an extension: the same
    for every extension (so that cudafe++'s output, which names it, is the
    same text for the same headers: hostpch.py), distinct within one."""
    return "_dirigo_ext_tu%d" % index


def _expand(s, env):
    return _VAR.sub(lambda m: env.get(m.group(1) or m.group(2), ""), s)


def dryrun(nvcc, args, cwd, env):
    """nvcc's phases for nvcc ARGS: (environment, [argv...]), or None."""
    p = subprocess.run([nvcc, "--dryrun"] + args, cwd=cwd, env=env, capture_output=True,
                       text=True)
    if p.returncode != 0:
        return None
    penv = dict(env)
    cmds = []
    for line in p.stderr.splitlines():
        if not line.startswith("#$ "):
            continue
        line = line[3:].strip()
        m = _ASSIGN.match(line)
        if m and " " not in line.split("=", 1)[0]:
            try:
                words = shlex.split(m.group(2))
            except ValueError:
                return None
            penv[m.group(1)] = _expand(" ".join(words), penv)
            continue
        try:
            argv = [_expand(w, penv) for w in shlex.split(line)]
        except ValueError:
            return None
        if argv:
            cmds.append(argv)
    return penv, cmds


def _tool(argv):
    return os.path.basename(argv[0])


def _is_cc(argv):
    t = _tool(argv)
    return t in ("gcc", "g++", "cc", "c++", "clang", "clang++") or t.endswith(("-gcc", "-g++"))


def _host_opt(argv):
    """argv with its -O options made -O0 (the host compiler's)."""
    out = [a for a in argv if not _OPT.match(a)]
    return out[:1] + ["-O0"] + out[1:]


def plan(nvcc, args, cwd, env, index):
    """The phases of `nvcc ARGS` (which compile one source with -c), run in
    cwd, as described at the top; index is the source's place among the
    extension's CUDA sources.  The phases are named "host preprocess",
    "host front end", "device preprocess", "cicc", "ptxas", "fatbinary"
    and "host compile".  Returns (phases, module id file, module id), or None when nvcc's
    phases are not of the expected shape."""
    got = dryrun(nvcc, args, cwd, env)
    if got is None:
        return None
    penv, cmds = got
    kinds = []
    for argv in cmds:
        t = _tool(argv)
        if _is_cc(argv) and "-E" in argv:
            dev = any(a.startswith("-D__CUDA_ARCH__=") for a in argv)
            kinds.append("dev_pp" if dev else "host_pp")
        elif _is_cc(argv) and "-c" in argv:
            kinds.append("host_cc")
        elif t == "cudafe++":
            kinds.append("host_fe")
        elif t == "cicc":
            kinds.append("dev_fe")
        elif t in ("ptxas", "fatbinary"):
            kinds.append(t)
        else:
            return None
    shape = [k for k in kinds if k != "ptxas"]
    if shape != ["host_pp", "host_fe", "dev_pp", "dev_fe", "fatbinary", "host_cc"]:
        return None
    mid_file = None
    for argv in cmds:
        if "--module_id_file_name" in argv:
            i = argv.index("--module_id_file_name")
            if i + 1 < len(argv):
                mid_file = argv[i + 1]
    if mid_file is None:
        return None
    phases = []
    last = {"host": None, "device": None}
    for kind, argv in zip(kinds, cmds):
        argv = [a for a in argv if a != "--gen_module_id_file"]
        chain = "host" if kind.startswith("host") else "device"
        if kind == "host_cc":
            ph = Phase("host compile", _host_opt(argv), penv, after=["host front end", "fatbinary"],
                       cwd=cwd)
        else:
            name = {"host_pp": "host preprocess", "host_fe": "host front end",
                    "dev_pp": "device preprocess", "dev_fe": "cicc"}.get(kind, kind)
            if kind == "host_pp":
                argv = _host_opt(argv)
            ph = Phase(name, argv, penv, after=[last[chain]] if last[chain] else [], cwd=cwd)
            last[chain] = name
        phases.append(ph)
    return phases, os.path.join(cwd, mid_file), module_id(index)


class Failed(Exception):
    """A phase failed; phase names it."""

    def __init__(self, phase):
        super().__init__("%s failed (status %s)" % (phase.name, phase.status))
        self.phase = phase


def _wait(p):
    """Waits for p; (exit status, CPU seconds it used)."""
    while True:
        try:
            _, st, ru = os.wait4(p.pid, 0)
        except ChildProcessError:
            return p.wait(), 0.0
        except InterruptedError:
            continue
        p.returncode = os.waitstatus_to_exitcode(st)
        return p.returncode, ru.ru_utime + ru.ru_stime


def call(ph, argv, log, cwd=None, env=None):
    """Runs argv for phase ph (its output to log); returns its exit status
    and adds its CPU time to ph's.  ph.proc is the running process."""
    log.write("$ " + " ".join(shlex.quote(a) for a in argv) + "\n")
    log.flush()
    try:
        p = subprocess.Popen(argv, cwd=cwd or ph.cwd, env=env or ph.env, stdout=log,
                             stderr=subprocess.STDOUT)
    except OSError as e:
        log.write("cannot run %s: %s\n" % (argv[0], e))
        return 127
    ph.proc = p
    status, cpu = _wait(p)
    ph.proc = None
    ph.cpu += cpu
    return status


def run(phases, logdir, t0=None):
    """Runs phases, each once those it waits for are done; a phase's output
    goes to logdir/phase-NAME.log.  Raises Failed for the first phase that
    fails (the others are stopped).  Times are in seconds from t0."""
    t0 = time.monotonic() if t0 is None else t0
    by_name = {ph.name: ph for ph in phases}
    done = {ph.name: threading.Event() for ph in phases}
    lock = threading.Lock()
    failed = []

    def stop_all():
        for q in phases:
            p = q.proc
            if p is not None and p.returncode is None:
                try:
                    p.kill()
                except OSError:
                    pass

    def one(ph):
        try:
            for a in ph.after:
                done[a].wait()
            if failed or any(by_name[a].status != 0 for a in ph.after):
                ph.status = "skipped"
                return
            ph.start = time.monotonic() - t0
            logname = os.path.join(logdir, "phase-%s.log" % ph.name.replace(" ", "-"))
            with open(logname, "w") as log:
                try:
                    if ph.fn is not None:
                        ph.status = ph.fn(ph, log)
                    else:
                        ph.status = call(ph, ph.argv, log)
                except Exception as e:  # a bug of ours: the build fails, saying so
                    log.write("%s: %s\n" % (type(e).__name__, e))
                    ph.status = "error"
            ph.end = time.monotonic() - t0
            if ph.status != 0:
                with lock:
                    failed.append(ph)
                stop_all()
        finally:
            done[ph.name].set()

    threads = [threading.Thread(target=one, args=(ph,)) for ph in phases]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    if failed:
        raise Failed(failed[0])
    return phases
