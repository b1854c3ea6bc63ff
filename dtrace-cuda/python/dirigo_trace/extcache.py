"""extcache: where built extensions are kept, and how builders share them.

The cache is one folder per user: $DIRIGO_EXT_CACHE, else
$XDG_CACHE_HOME/dirigo/ext, else ~/.cache/dirigo/ext.  It holds one
folder per entry, named KIND-KEY (an extension: its module name and the
hash of everything its build depends on; shared objects: "compat-KEY",
"pch-KEY").  Keys hash contents, never the paths of a checkout, so a build
made from one checkout is found from another.

An entry is complete when its product exists (renamed into place as the
last step of its build).  Builders take the entry's lock (flock on
KIND-KEY/.lock) before building it and look again once they hold it, so
two builders of one entry build it once and a second one waits for the
first; a builder that dies leaves an entry without its product, which the
next builder redoes.
"""
import contextlib
import fcntl
import hashlib
import os


def root():
    """The cache folder (made if missing)."""
    d = os.environ.get("DIRIGO_EXT_CACHE")
    if not d:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        d = os.path.join(base, "dirigo", "ext")
    os.makedirs(d, exist_ok=True)
    return d


def key(*parts):
    """A 16-hex-digit hash of parts (strings or bytes), in order."""
    h = hashlib.sha256()
    for p in parts:
        h.update(p if isinstance(p, bytes) else str(p).encode())
        h.update(b"\0")
    return h.hexdigest()[:16]


def entry(kind, k):
    """The folder of entry KIND-K (made if missing)."""
    d = os.path.join(root(), "%s-%s" % (kind, k))
    os.makedirs(d, exist_ok=True)
    return d


@contextlib.contextmanager
def locked(d, wait=True):
    """Holds the lock of entry folder d; yields True, or False when wait is
    false and another builder holds it."""
    with open(os.path.join(d, ".lock"), "a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def publish(tmp, final):
    """Puts a finished product in place (atomically)."""
    os.replace(tmp, final)
