"""mpack: the MessagePack writer the recorder uses.

The python3-msgpack package is used when it is importable; otherwise a small
encoder of the subset dirigo streams use (nil, bool, int, float64, str, bin,
array, map) stands in.  Both produce records that dcat(1) reads.
"""
import struct

try:
    import msgpack as _msgpack
except ImportError:  # pragma: no cover - depends on the machine
    _msgpack = None


def _enc(o, out):
    if o is None:
        out.append(b"\xc0")
    elif o is True:
        out.append(b"\xc3")
    elif o is False:
        out.append(b"\xc2")
    elif isinstance(o, int):
        if 0 <= o < 0x80:
            out.append(struct.pack("B", o))
        elif -32 <= o < 0:
            out.append(struct.pack("b", o))
        elif 0 <= o < 2**64:
            out.append(b"\xcf" + struct.pack(">Q", o))
        elif -2**63 <= o < 0:
            out.append(b"\xd3" + struct.pack(">q", o))
        else:
            raise ValueError("integer %d does not fit in 64 bits" % o)
    elif isinstance(o, float):
        out.append(b"\xcb" + struct.pack(">d", o))
    elif isinstance(o, str):
        b = o.encode("utf-8")
        n = len(b)
        if n < 32:
            out.append(struct.pack("B", 0xa0 | n))
        else:
            out.append(b"\xdb" + struct.pack(">I", n))
        out.append(b)
    elif isinstance(o, (bytes, bytearray, memoryview)):
        b = bytes(o)
        out.append(b"\xc6" + struct.pack(">I", len(b)))
        out.append(b)
    elif isinstance(o, (list, tuple)):
        out.append(b"\xdd" + struct.pack(">I", len(o)))
        for x in o:
            _enc(x, out)
    elif isinstance(o, dict):
        out.append(b"\xdf" + struct.pack(">I", len(o)))
        for k, v in o.items():
            _enc(k, out)
            _enc(v, out)
    else:
        raise TypeError("cannot encode %r" % type(o))


def packb(obj):
    """The MessagePack bytes of obj (dicts keep their insertion order)."""
    if _msgpack is not None:
        return _msgpack.packb(obj, use_bin_type=True)
    out = []
    _enc(obj, out)
    return b"".join(out)
