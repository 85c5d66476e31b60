# SPDX-License-Identifier: GPL-2.0
"""Protobuf's wire format in a few lines, for building Perfetto traces in
tests and benchmarks (variants of a real trace, damaged ones): never the
tests' truth, which protoc decodes (tests/integration/perfetto_truth.py)."""


def varint(n):
    """@n (an int64 is taken as its two's complement) as a varint."""
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b, n = n & 0x7f, n >> 7
        out.append(b | 0x80 if n else b)
        if not n:
            return bytes(out)


def field(num, value):
    """Field @num: a varint for an int, length-delimited for bytes."""
    if isinstance(value, int):
        return varint(num << 3) + varint(value)
    return varint(num << 3 | 2) + varint(len(value)) + value


def read_varint(b, i):
    """The varint at @b[@i]: (value, the index after it)."""
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7f) << shift
        shift += 7
        if c < 0x80:
            return v, i


def fields(b, start, end):
    """Each field of the message in @b[@start:@end]: (number, wire type,
    value for a varint or (start, end) of a length-delimited one, where the
    value starts)."""
    i = start
    while i < end:
        tag, i = read_varint(b, i)
        f, w = tag >> 3, tag & 7
        if w == 0:
            at = i
            v, i = read_varint(b, i)
            yield f, w, v, at
        elif w == 2:
            n, i = read_varint(b, i)
            yield f, w, (i, i + n), i
            i += n
        elif w in (1, 5):
            yield f, w, None, i
            i += 8 if w == 1 else 4
        else:
            raise ValueError("wire type %d at %d" % (w, i))


def top_packets(data):
    """A Trace's packets (field 1): (where its tag is, where its bytes
    start, its bytes), in order."""
    out = []
    for f, w, rng, at in fields(data, 0, len(data)):
        if f == 1 and w == 2:
            tag_at = at - len(varint(rng[1] - rng[0])) - 1
            out.append((tag_at, rng[0], data[rng[0]:rng[1]]))
    return out
