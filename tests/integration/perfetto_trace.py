"""A Perfetto trace as protoc decodes it: the oracle the export tests hold
schedtop's writer to. protoc (Debian's protobuf-compiler) reads the bytes
with tests/fixtures/perfetto/schedtop_trace.proto, written from Perfetto's
public field numbers; this module only parses protoc's text output into
dicts (a field seen twice becomes a list) and lays the packets out as
tracks, sequences and counter values."""
import os
import re
import subprocess

from harness import SRC, check

PROTO_DIR = os.path.join(SRC, "tests", "fixtures", "perfetto")

_TOKEN = re.compile(r'\s*(?:(\})|([A-Za-z_][A-Za-z0-9_]*)\s*(\{|:\s*("(?:[^"\\]|\\.)*"|[^\s]+)))')


def _unquote(s):
    """A protoc text-format string (C escapes, octal bytes) as bytes."""
    body = s[1:-1].encode("latin-1")
    out, i = bytearray(), 0
    simple = {ord("n"): 10, ord("r"): 13, ord("t"): 9, ord('"'): 34,
              ord("'"): 39, ord("\\"): 92}
    while i < len(body):
        c = body[i]
        if c != 92:
            out.append(c)
            i += 1
            continue
        n = body[i + 1]
        if n in simple:
            out.append(simple[n])
            i += 2
        elif 48 <= n <= 55:
            j = i + 1
            while j < len(body) and j < i + 4 and 48 <= body[j] <= 55:
                j += 1
            out.append(int(body[i + 1:j], 8))
            i = j
        elif n == ord("x"):
            out.append(int(body[i + 2:i + 4], 16))
            i += 4
        else:
            out.append(n)
            i += 2
    return bytes(out)


def _value(v):
    if v.startswith('"'):
        return _unquote(v).decode("utf-8", errors="surrogateescape")
    if v in ("true", "false"):
        return v == "true"
    try:
        return int(v)
    except ValueError:
        return float(v)


def parse_text(text):
    """protoc's text format as nested dicts; repeated fields as lists."""
    root, stack, pos = {}, [], 0
    cur = root
    while True:
        m = _TOKEN.match(text, pos)
        if not m:
            check(not text[pos:].strip(), "protoc output not understood at %r"
                  % text[pos:pos + 80])
            break
        pos = m.end()
        if m.group(1):
            cur = stack.pop()
            continue
        key = m.group(2)
        if m.group(3) == "{":
            new = {}
            cur.setdefault(key, []).append(new)
            stack.append(cur)
            cur = new
        else:
            cur.setdefault(key, []).append(_value(m.group(4)))
    return root


def one(d, key, default=None):
    v = d.get(key)
    return v[0] if v else default


def decode(path):
    """The packets of the trace at @path, as protoc --decode reads them."""
    r = subprocess.run(["protoc", "--decode=schedtop_test.Trace", "-I", PROTO_DIR,
                        "schedtop_trace.proto"], stdin=open(path, "rb"),
                       capture_output=True)
    check(r.returncode == 0, "protoc cannot decode %s: %s" % (path, r.stderr[-400:]))
    return parse_text(r.stdout.decode("latin-1")).get("packet", [])


class Trace:
    """Tracks by uuid, sequences' defaults, and every counter value with
    its time, from the packets; checks the structural rules on the way:
    every uuid described once (a thread or process again only with a new
    name), every event's track described before it,
    timestamps not decreasing on any sequence."""

    def __init__(self, path):
        self.packets = decode(path)
        self.tracks, self.defaults = {}, {}
        self.counters = {}          # uuid -> [(ts, value)]
        self.slices = []            # (uuid, type, ts, name, annotations)
        self.snapshots = []
        self.renames = []           # (uuid, descriptor before, after)
        self.referenced = set()
        last_ts = {}
        seq_clock = {}              # seq -> its incremental clock's last value
        for p in self.packets:
            seq = one(p, "trusted_packet_sequence_id")
            check(seq, "a packet without a sequence: %s" % p)
            if "track_descriptor" in p:
                td = p["track_descriptor"][0]
                uuid = one(td, "uuid")
                if uuid in self.tracks:
                    # Only a thread or process renamed is described again:
                    # the same track, a new name (Perfetto takes the newest).
                    def unnamed(d):
                        d = {k: v for k, v in d.items() if k != "name"}
                        for kind, key in (("thread", "thread_name"),
                                          ("process", "process_name")):
                            if kind in d:
                                d[kind] = [{k: v for k, v in d[kind][0].items()
                                            if k != key}]
                        return d
                    old = self.tracks[uuid]
                    check(("thread" in td or "process" in td) and
                          unnamed(old) == unnamed(td),
                          "uuid %d described twice as different tracks: %s, then %s"
                          % (uuid, old, td))
                    self.renames.append((uuid, old, td))
                parent = one(td, "parent_uuid")
                check(parent is None or parent in self.tracks,
                      "track %d's parent %s described after it" % (uuid, parent))
                self.tracks.setdefault(uuid, td)    # its first description
                if parent:
                    self.referenced.add(parent)
            if "clock_snapshot" in p:
                cs = p["clock_snapshot"][0]
                clocks = {one(c, "clock_id"): c for c in cs.get("clocks", [])}
                if 64 in clocks:
                    # A sequence's own clock: CLOCK_MONOTONIC in deltas.
                    check(one(clocks[64], "is_incremental") and 3 in clocks and
                          one(clocks[64], "timestamp") == one(clocks[3], "timestamp"),
                          "sequence %d's clock is not MONOTONIC counted in deltas: %s"
                          % (seq, cs))
                    seq_clock[seq] = one(clocks[64], "timestamp")
                else:
                    self.snapshots.append(cs)
            if "trace_packet_defaults" in p:
                self.defaults[seq] = p["trace_packet_defaults"][0]
            if "track_event" not in p:
                continue
            ts = one(p, "timestamp")
            check(ts is not None, "an event without a timestamp")
            clock = one(self.defaults.get(seq, {}), "timestamp_clock_id")
            if clock == 64:
                check(seq in seq_clock, "sequence %d counts on a clock it never set" % seq)
                seq_clock[seq] += ts
                ts = seq_clock[seq]
            else:
                check(clock == 3, "sequence %d's events are on clock %s, not "
                      "CLOCK_MONOTONIC" % (seq, clock))
            check(ts >= last_ts.get(seq, 0), "sequence %d goes back in time: "
                  "%d after %d" % (seq, ts, last_ts.get(seq, 0)))
            last_ts[seq] = ts
            self._event(p["track_event"][0], seq, ts)

    def _event(self, te, seq, ts):
        ted = one(self.defaults.get(seq, {}), "track_event_defaults", {})
        kind = one(te, "type")
        uuid = one(te, "track_uuid", one(ted, "track_uuid"))
        check(uuid in self.tracks, "an event on track %s, never described" % uuid)
        self.referenced.add(uuid)
        if kind != 4:
            self.slices.append((uuid, kind, ts, one(te, "name"),
                                {one(a, "name"): one(a, "int_value",
                                                     one(a, "string_value"))
                                 for a in te.get("debug_annotations", [])}))
            return
        check("counter" in self.tracks[uuid], "a counter on track %d, no counter track"
              % uuid)
        main = one(te, "counter_value", one(te, "double_counter_value"))
        check(main is not None, "a counter event without a value")
        self.counters.setdefault(uuid, []).append((ts, main))
        for values, uuids_key in (("extra_counter_values", "extra_counter_track_uuids"),
                                  ("extra_double_counter_values",
                                   "extra_double_counter_track_uuids")):
            vals = te.get(values, [])
            uuids = te.get(uuids_key) or ted.get(uuids_key, [])
            check(len(vals) <= len(uuids), "%d %s for %d tracks" %
                  (len(vals), values, len(uuids)))
            for u, v in zip(uuids, vals):
                check(u in self.tracks and "counter" in self.tracks[u],
                      "extra counter on track %s, no counter track" % u)
                self.referenced.add(u)
                self.counters.setdefault(u, []).append((ts, v))

    def name(self, uuid):
        return one(self.tracks[uuid], "name")

    def parent(self, uuid):
        return one(self.tracks[uuid], "parent_uuid")

    def thread_of(self, uuid):
        """(tid, tgid) of the thread a counter track hangs under, or None."""
        parent = self.parent(uuid)
        th = parent and one(self.tracks[parent], "thread")
        return (one(th, "tid"), one(th, "pid")) if th else None

    def tid_of(self, uuid):
        """The tid of a thread track, or None."""
        th = one(self.tracks[uuid], "thread")
        return one(th, "tid") if th else None

    def unreferenced(self):
        return [u for u in self.tracks if u not in self.referenced]
