#!/usr/bin/env python3
"""fuzz-mutate.py: the mutation campaign of bench/fuzz-stages.sh.

Mutants of valid input streams, run through a stage binary with a time
limit; outcomes counted by exit status, crashes (a signal, or a sanitizer's
exit status 70) and hangs (killed at the time limit), with the longest
run, and wrong statuses (one outside 0-3: "bad status"; exit 2 with
nothing on standard error: "silent trouble").  Five kinds of mutation,
in turn:

  flip   1 to 8 bytes set to random values
  trunc  the stream cut at a random byte
  mp     MessagePack-aware: a value's type, a string's or array's length,
         an integer set to a boundary (0, -1, 2^31, 2^32 - 1, 2^63, ...), an
         index field set out of range, a record dropped, doubled or moved;
         then, mostly, the end records recounted (so that the stage reads
         further than its reader)
  json   the JSON view (dcat) edited: lines dropped, doubled, swapped,
         numbers, keys and characters changed; back through dcat -r
  ptx    the PTX text of a module record edited: lines dropped, doubled,
         swapped, types and opcodes replaced (.b128, mul.wide widths, ...),
         an endless loop, special registers, immediates

Seeds: the streams of DIR that the stage takes (exit 0, 1 or 3), with
--seed-limit S only those it takes within S seconds.

Usage: fuzz-mutate.py --stage NAME --bin DIR --seeds DIR -n N [-j J]
       [--timeout S] [--seed-limit S] [--max-time S] [--seed K] [--keep DIR]
       [-- STAGE OPTIONS...]
Prints one line of JSON with the counts (of the mutants run when
--max-time S ended the campaign after S seconds).
"""
import argparse
import concurrent.futures as cf
import json
import os
import random
import re
import struct
import subprocess
import sys
import time

# ---- MessagePack, enough to edit streams ------------------------------------


class Map(list):
    """A map as its list of (key, value) pairs: order and duplicates kept."""


def unpack(b, i=0):
    c = b[i]
    i += 1
    if c <= 0x7f:
        return c, i
    if c >= 0xe0:
        return c - 0x100, i
    if 0x80 <= c <= 0x8f:
        return unpack_map(b, i, c & 0x0f)
    if 0x90 <= c <= 0x9f:
        return unpack_array(b, i, c & 0x0f)
    if 0xa0 <= c <= 0xbf:
        n = c & 0x1f
        return b[i:i + n].decode("utf-8", "surrogateescape"), i + n
    if c == 0xc0:
        return None, i
    if c == 0xc2:
        return False, i
    if c == 0xc3:
        return True, i
    if c in (0xc4, 0xc5, 0xc6):
        w = {0xc4: 1, 0xc5: 2, 0xc6: 4}[c]
        n = int.from_bytes(b[i:i + w], "big")
        i += w
        return bytes(b[i:i + n]), i + n
    if c in (0xc7, 0xc8, 0xc9):
        w = {0xc7: 1, 0xc8: 2, 0xc9: 4}[c]
        n = int.from_bytes(b[i:i + w], "big")
        i += w
        return ("ext", b[i], bytes(b[i + 1:i + 1 + n])), i + 1 + n
    if c == 0xca:
        return struct.unpack(">f", b[i:i + 4])[0], i + 4
    if c == 0xcb:
        return struct.unpack(">d", b[i:i + 8])[0], i + 8
    if 0xcc <= c <= 0xcf:
        w = 1 << (c - 0xcc)
        return int.from_bytes(b[i:i + w], "big"), i + w
    if 0xd0 <= c <= 0xd3:
        w = 1 << (c - 0xd0)
        return int.from_bytes(b[i:i + w], "big", signed=True), i + w
    if 0xd4 <= c <= 0xd8:
        n = 1 << (c - 0xd4)
        return ("ext", b[i], bytes(b[i + 1:i + 1 + n])), i + 1 + n
    if c in (0xd9, 0xda, 0xdb):
        w = {0xd9: 1, 0xda: 2, 0xdb: 4}[c]
        n = int.from_bytes(b[i:i + w], "big")
        i += w
        return b[i:i + n].decode("utf-8", "surrogateescape"), i + n
    if c in (0xdc, 0xdd):
        w = 2 if c == 0xdc else 4
        return unpack_array(b, i + w, int.from_bytes(b[i:i + w], "big"))
    if c in (0xde, 0xdf):
        w = 2 if c == 0xde else 4
        return unpack_map(b, i + w, int.from_bytes(b[i:i + w], "big"))
    raise ValueError("bad byte %#x" % c)


def unpack_array(b, i, n):
    out = []
    for _ in range(n):
        v, i = unpack(b, i)
        out.append(v)
    return out, i


def unpack_map(b, i, n):
    out = Map()
    for _ in range(n):
        k, i = unpack(b, i)
        v, i = unpack(b, i)
        out.append((k, v))
    return out, i


def pack(o, out):
    if o is None:
        out.append(b"\xc0")
    elif o is True:
        out.append(b"\xc3")
    elif o is False:
        out.append(b"\xc2")
    elif isinstance(o, int):
        if 0 <= o < 0x80:
            out.append(bytes([o]))
        elif -32 <= o < 0:
            out.append(struct.pack("b", o))
        elif 0 <= o < 2**64:
            out.append(b"\xcf" + struct.pack(">Q", o))
        elif -2**63 <= o < 0:
            out.append(b"\xd3" + struct.pack(">q", o))
        else:
            out.append(b"\xcf" + struct.pack(">Q", o & (2**64 - 1)))
    elif isinstance(o, float):
        out.append(b"\xcb" + struct.pack(">d", o))
    elif isinstance(o, str):
        b = o.encode("utf-8", "surrogateescape")
        out.append((bytes([0xa0 | len(b)]) if len(b) < 32 else b"\xdb" + struct.pack(">I", len(b))) + b)
    elif isinstance(o, bytes):
        out.append(b"\xc6" + struct.pack(">I", len(o)) + o)
    elif isinstance(o, tuple) and o and o[0] == "ext":
        out.append(b"\xc9" + struct.pack(">I", len(o[2])) + bytes([o[1] & 0xff]) + o[2])
    elif isinstance(o, Map):
        out.append(b"\xdf" + struct.pack(">I", len(o)))
        for k, v in o:
            pack(k, out)
            pack(v, out)
    elif isinstance(o, list):
        out.append(b"\xdd" + struct.pack(">I", len(o)))
        for x in o:
            pack(x, out)
    else:
        raise TypeError(type(o))


def records(b):
    out, i = [], 0
    while i < len(b):
        v, i = unpack(b, i)
        out.append(v)
    return out


def rtype(r):
    if isinstance(r, Map):
        for k, v in r:
            if k == "t":
                return v
    return None


def recount(recs):
    """Rewrites the records and counts of every end record, as dcat -r."""
    seen = {}
    total = 0
    for r in recs:
        t = rtype(r)
        if t == "header":
            seen, total = {}, 0
        if t == "end" and isinstance(r, Map):
            keep = [(k, v) for k, v in r if k not in ("records", "counts")]
            c = Map((k, n) for k, n in seen.items())
            r[:] = keep + [("records", total), ("counts", c)]
            continue
        if isinstance(t, str):
            seen[t] = seen.get(t, 0) + 1
        total += 1
    return recs


def dump(recs):
    out = []
    for r in recs:
        pack(r, out)
    return b"".join(out)

# ---- mutations ------------------------------------------------------------------

BOUNDS = [0, 1, -1, 2, 7, 255, 256, 65535, 65536, 2**31 - 1, 2**31, 2**32 - 1, 2**32,
          2**40, 2**63 - 1, 2**63, 2**64 - 1, -2**31, -2**63]
INDEX_KEYS = {"value", "launch", "module", "output", "input", "buf", "prev", "src", "in", "out",
              "tensor", "storage", "op", "result", "prog", "index", "off", "bytes", "len",
              "src_off", "dom", "addr", "val", "seq", "line", "version", "grid", "block",
              "shmem", "size", "records", "checked", "equal", "differ", "uninit", "nargs"}


def nodes(o, path, out):
    out.append((path, o))
    if isinstance(o, Map):
        for i, (k, v) in enumerate(o):
            nodes(v, path + [("m", i, k)], out)
    elif isinstance(o, list):
        for i, v in enumerate(o):
            nodes(v, path + [("a", i, None)], out)


def put(root, path, v):
    o = root
    for kind, i, _ in path[:-1]:
        o = o[i][1] if kind == "m" else o[i]
    kind, i, k = path[-1]
    if kind == "m":
        o[i] = (k, v)
    else:
        o[i] = v


def random_value(rnd):
    return rnd.choice([None, True, False, rnd.choice(BOUNDS), rnd.random() * 1e10 - 5e9,
                       float("nan"), float("inf"), "", "x" * rnd.randint(1, 40), b"\x00" * rnd.randint(0, 9),
                       [], [rnd.choice(BOUNDS)] * rnd.randint(1, 5), Map(), Map([("t", "x")])])


def mut_mp(b, rnd):
    recs = records(b)
    if not recs:
        return b
    for _ in range(rnd.randint(1, 3)):
        op = rnd.random()
        i = rnd.randrange(len(recs))
        if op < 0.08 and len(recs) > 1:
            del recs[i]
            continue
        if op < 0.14:
            recs.insert(i, recs[i])
            continue
        if op < 0.18:
            j = rnd.randrange(len(recs))
            recs[i], recs[j] = recs[j], recs[i]
            continue
        ns = []
        nodes(recs[i], [], ns)
        ns = ns[1:]
        if not ns:
            continue
        idx = [n for n in ns if n[0][-1][0] == "m" and n[0][-1][2] in INDEX_KEYS]
        path, v = rnd.choice(idx) if idx and rnd.random() < 0.5 else rnd.choice(ns)
        r = rnd.random()
        if isinstance(v, bool) or v is None or r < 0.25:
            nv = random_value(rnd)
        elif isinstance(v, int):
            nv = rnd.choice(BOUNDS) if rnd.random() < 0.7 else v + rnd.choice([-1, 1, 1000])
        elif isinstance(v, float):
            nv = rnd.choice([0.0, -0.0, float("nan"), float("inf"), 1e308, v * 2, -v])
        elif isinstance(v, str):
            nv = v[:rnd.randint(0, len(v))] if rnd.random() < 0.5 else v + rnd.choice(["x", "\x00", "é", v])
        elif isinstance(v, bytes):
            nv = v[:rnd.randint(0, len(v))] if rnd.random() < 0.5 else v + v
        elif isinstance(v, Map):
            nv = Map(v)
            if nv and rnd.random() < 0.5:
                del nv[rnd.randrange(len(nv))]
            elif nv:
                nv.append(nv[rnd.randrange(len(nv))])
        elif isinstance(v, list):
            nv = list(v)
            if nv and rnd.random() < 0.4:
                del nv[rnd.randrange(len(nv))]
            elif nv and rnd.random() < 0.7:
                nv.append(nv[rnd.randrange(len(nv))])
            else:
                nv = nv * rnd.randint(2, 50)
        else:
            nv = random_value(rnd)
        put(recs[i], path, nv)
    if rnd.random() < 0.8:
        recount(recs)
    return dump(recs)


PTX_SUBST = [(r"\.u32\b", ".b128"), (r"\.f32\b", ".f64"), (r"\.u64\b", ".u16"),
             (r"mul\.wide\.u32", "mul.wide.u16"), (r"mul\.wide\.s32", "mul.wide.u64"),
             (r"%tid\.x", "%ctaid.x"), (r"%ntid\.x", "%nctaid.y"), (r"\.global", ".shared"),
             (r"\b\d+\b", "4294967295"), (r"\b\d+\b", "2147483648"), (r"ld\.", "st."),
             (r"add\.", "div."), (r"setp\.", "selp."), (r"bar\.sync", "bar.sync 0, 7;"),
             (r"\bret;", "bra $L__BB0_0;"), (r"%r\d+", "%r999999"), (r"\.reg \.\w+ \t%\w+<\d+>", ".reg .b32 %x<0>")]


def mut_ptx_text(t, rnd):
    lines = t.split("\n")
    for _ in range(rnd.randint(1, 3)):
        r = rnd.random()
        i = rnd.randrange(len(lines))
        if r < 0.2 and len(lines) > 1:
            del lines[i]
        elif r < 0.35:
            lines.insert(i, lines[i])
        elif r < 0.45:
            j = rnd.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif r < 0.55:
            # an endless loop at the first instruction of a body
            for k, l in enumerate(lines):
                if l.strip() == "{" and k + 1 < len(lines):
                    lines.insert(k + 1, "$DIRIGO_LOOP:\n\tbra $DIRIGO_LOOP;")
                    break
        else:
            pat, rep = rnd.choice(PTX_SUBST)
            cand = [k for k, l in enumerate(lines) if re.search(pat, l)]
            if cand:
                k = rnd.choice(cand)
                lines[k] = re.sub(pat, rep, lines[k], count=1)
    return "\n".join(lines)


def mut_ptx(b, rnd):
    recs = records(b)
    mods = [r for r in recs if rtype(r) == "module"]
    if not mods:
        return mut_mp(b, rnd)
    m = rnd.choice(mods)
    for i, (k, v) in enumerate(m):
        if k == "ptx":
            if isinstance(v, bytes):
                v = v.decode("utf-8", "surrogateescape")
            if isinstance(v, str):
                m[i] = ("ptx", mut_ptx_text(v, rnd))
    recount(recs)
    return dump(recs)


def mut_json(b, rnd, bindir):
    j = subprocess.run([os.path.join(bindir, "dcat")], input=b, capture_output=True)
    if j.returncode != 0:
        return None
    lines = j.stdout.decode("utf-8", "surrogateescape").split("\n")
    lines = [l for l in lines if l]
    for _ in range(rnd.randint(1, 3)):
        r = rnd.random()
        i = rnd.randrange(len(lines))
        if r < 0.15 and len(lines) > 1:
            del lines[i]
        elif r < 0.25:
            lines.insert(i, lines[i])
        elif r < 0.32:
            k = rnd.randrange(len(lines))
            lines[i], lines[k] = lines[k], lines[i]
        elif r < 0.65:
            nums = list(re.finditer(r"-?\d+(\.\d+)?", lines[i]))
            if nums:
                m = rnd.choice(nums)
                lines[i] = lines[i][:m.start()] + str(rnd.choice(BOUNDS)) + lines[i][m.end():]
        elif r < 0.8:
            keys = list(re.finditer(r'"(\w+)":', lines[i]))
            if keys:
                m = rnd.choice(keys)
                lines[i] = lines[i][:m.start(1)] + rnd.choice(["x", m.group(1) + "_", "t", "value"]) + \
                    lines[i][m.end(1):]
        else:
            s = lines[i]
            p = rnd.randrange(len(s)) if s else 0
            lines[i] = s[:p] + rnd.choice(["", "[", "]", "{", "}", ",", "\"", "0", "null", "[[[[[[[["]) + s[p + 1:]
    r = subprocess.run([os.path.join(bindir, "dcat"), "-r"], input="\n".join(lines).encode("utf-8", "surrogateescape") + b"\n",
                       capture_output=True)
    return r.stdout if r.returncode == 0 else None


def mutate(seed, rnd, kind, bindir):
    try:
        if kind == "flip":
            b = bytearray(seed)
            for _ in range(rnd.randint(1, 8)):
                b[rnd.randrange(len(b))] = rnd.randrange(256)
            return bytes(b)
        if kind == "trunc":
            return seed[:rnd.randrange(len(seed))]
        if kind == "mp":
            return mut_mp(seed, rnd)
        if kind == "ptx":
            return mut_ptx(seed, rnd)
        if kind == "json":
            return mut_json(seed, rnd, bindir)
    except (ValueError, IndexError, TypeError, struct.error, RecursionError):
        return None
    return None

# ---- the campaign ---------------------------------------------------------------

KINDS = ["flip", "trunc", "mp", "json", "ptx"]


def run_one(argv, data, timeout):
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _, err = p.communicate(data, timeout=timeout)
        return p.returncode, time.monotonic() - t0, err
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        return "hang", time.monotonic() - t0, b""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stage", required=True)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--seeds", required=True)
    ap.add_argument("-n", type=int, default=10000)
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", default=None)
    ap.add_argument("--seed-limit", type=float, default=None)
    ap.add_argument("--max-time", type=float, default=None)
    ap.add_argument("opts", nargs="*")
    a = ap.parse_args()
    seeds = []
    for f in sorted(os.listdir(a.seeds)):
        b = open(os.path.join(a.seeds, f), "rb").read()
        if 0 < len(b) < 2_000_000:
            seeds.append((f, b))
    argv = [os.path.join(a.bin, a.stage)] + a.opts
    # mutants of streams the stage takes reach past its reader
    # (and, with --seed-limit S, that it takes within S seconds: a campaign
    # of a given size then fits a given time)
    took = []
    for f, b in seeds:
        st, dt, _ = run_one(argv, b, a.timeout)
        if st in (0, 1, 3) and (a.seed_limit is None or dt <= a.seed_limit):
            took.append((f, b))
    seeds = took
    if not seeds:
        sys.exit("fuzz-mutate: no seed in %s that %s takes" % (a.seeds, a.stage))

    def job(i):
        rnd = random.Random(a.seed * 1000003 + i)
        kind = KINDS[i % len(KINDS)]
        name, seed = seeds[rnd.randrange(len(seeds))]
        m = None
        for _ in range(4):
            m = mutate(seed, rnd, kind, a.bin)
            if m is not None:
                break
        if m is None:
            m = seed[:rnd.randrange(len(seed))]
            kind = "trunc"
        st, dt, err = run_one(argv, m, a.timeout)
        return i, kind, name, m, st, dt, err

    counts, kinds, longest = {}, {}, (0.0, None)
    crashes = []
    done = 0
    ex = cf.ThreadPoolExecutor(max_workers=a.j)
    try:
        # SIGINT, or --max-time seconds, ends the campaign early: the counts
        # so far are printed
        t0 = time.monotonic()
        for i, kind, name, m, st, dt, err in ex.map(job, range(a.n)):
            done += 1
            if st == "hang":
                out = "hang"
            elif isinstance(st, int) and (st < 0 or st >= 70 or b"Sanitizer" in err or b"runtime error" in err):
                out = "crash"
            elif st not in (0, 1, 2, 3):
                out = "bad status"
            elif st == 2 and not err.strip():
                out = "silent trouble"
            else:
                out = "exit %d" % st
            counts[out] = counts.get(out, 0) + 1
            kinds.setdefault(kind, {}).setdefault(out, 0)
            kinds[kind][out] += 1
            if dt > longest[0]:
                longest = (dt, "%s mutant %d of %s" % (kind, i, name))
            if out in ("crash", "hang", "bad status", "silent trouble"):
                crashes.append((i, kind, name, out, st, err[-400:].decode("utf-8", "replace")))
                if a.keep:
                    os.makedirs(a.keep, exist_ok=True)
                    with open(os.path.join(a.keep, "%s-%s-%d" % (a.stage, out.replace(" ", "_"), i)), "wb") as f:
                        f.write(m)
            if a.max_time is not None and time.monotonic() - t0 > a.max_time:
                break
    except KeyboardInterrupt:
        pass
    ex.shutdown(wait=False, cancel_futures=True)
    print(json.dumps({"stage": a.stage, "bin": a.bin, "seeds": len(seeds), "mutants": done, "outcomes": counts,
                      "by_kind": kinds,
                      "longest_s": round(longest[0], 2), "longest": longest[1],
                      "bad": [{"i": c[0], "kind": c[1], "seed": c[2], "outcome": c[3], "status": str(c[4]),
                               "stderr": c[5]} for c in crashes[:20]]}))


if __name__ == "__main__":
    main()
