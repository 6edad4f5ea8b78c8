#!/usr/bin/env python3
"""`racetrack export` checked end to end with Perfetto's own trace schema.

Makes a `racetrack synth` trace with every injected hazard, checks it, and
exports it to Perfetto protobuf and Chrome JSON. The protobuf is decoded with
the schema Perfetto's Python package ships (perfetto.protos...perfetto_trace_pb2,
Perfetto's complete schema, not our subset) and replayed the way
trace_processor imports TrackEvent: packets sorted by timestamp, stably; on
each track a slice ends the slices that ended by its start, and must nest in
those that did not; a flow id on two slices' flow_ids is one flow, from the
earlier to the later. trace_processor itself needs a binary it downloads on
first use, which this sandbox and CI cannot fetch, so its rules are replayed
here instead (see docs/export.md, "Checking an export").

Asserts: no field Perfetto's schema does not know; every op exactly one
slice; every device-timed op's slice exactly at its device_start..device_end
(the fraction is printed); the record -> wait flows of the trace; a hazard
slice per shown group of `racetrack check`, numbered [N] as check numbers
them, with its explanation and fix, a flow between its two ops and instants
on them; NVTX ranges that nest and contain their ops. The Chrome JSON export
gets the same time and hazard checks.

Exit 0: passed; 77: skipped (the perfetto package is not installed); 1: failed.
"""

import argparse
import json
import os
import subprocess
import sys
from collections import defaultdict
from decimal import Decimal

SKIP = 77


def run(*args):
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        sys.exit(f"{' '.join(args)} exited {done.returncode}:\n{done.stderr}")
    return done


class Failures:
    def __init__(self):
        self.count = 0

    def check(self, ok, what):
        if not ok:
            self.count += 1
            if self.count <= 20:
                print("FAIL:", what)
        return ok


def unknown_fields(message, path="packet"):
    """Paths of fields the schema does not define, anywhere in `message`."""
    from google.protobuf import unknown_fields as uf

    found = []
    if len(uf.UnknownFieldSet(message)):
        found.append(path)
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        repeated = field.is_repeated if hasattr(field, "is_repeated") else field.label == field.LABEL_REPEATED
        items = value if repeated else [value]
        for item in items:
            found += unknown_fields(item, path + "." + field.name)
    return found


def annotation_value(a):
    kind = a.WhichOneof("value")
    return getattr(a, kind) if kind else None


def replay_perfetto(trace, fail):
    """trace_processor's TrackEvent import, reduced to what the export uses."""
    tracks = {}
    events = []
    for index, packet in enumerate(trace.packet):
        if packet.HasField("track_descriptor"):
            d = packet.track_descriptor
            fail.check(d.uuid not in tracks, f"track {d.uuid} described twice")
            tracks[d.uuid] = d
        elif packet.HasField("track_event"):
            events.append((packet.timestamp, index, packet.track_event))
    for d in tracks.values():
        fail.check(not d.HasField("parent_uuid") or d.parent_uuid in tracks, f"track {d.name}: unknown parent")
    events.sort(key=lambda e: (e[0], e[1]))

    TE = type(events[0][2]) if events else None
    slices = []
    stacks = defaultdict(list)  # track -> open slices
    flow_begun = {}  # flow id -> slice index
    flows = []  # (from slice, to slice, id)

    def pop_ended(stack, ts, new_is_instant):
        # Closed on the left, open on the right; instants stack on instants.
        while stack:
            top = slices[stack[-1]]
            if top["end"] is None:
                return
            if top["end"] < ts or (top["end"] == ts and not (top["end"] == top["ts"] and new_is_instant)):
                stack.pop()
            else:
                return

    for ts, _, e in events:
        fail.check(e.track_uuid in tracks, f"event '{e.name}' on an undescribed track")
        stack = stacks[e.track_uuid]
        if e.type == TE.TYPE_SLICE_END:
            while stack and slices[stack[-1]]["end"] is not None:
                stack.pop()
            if not fail.check(stack, f"END at {ts} without an open slice"):
                continue
            slices[stack.pop()]["end"] = ts
            continue
        instant = e.type == TE.TYPE_INSTANT
        fail.check(instant or e.type == TE.TYPE_SLICE_BEGIN, f"unexpected event type {e.type}")
        pop_ended(stack, ts, instant)
        s = {
            "track": e.track_uuid,
            "ts": ts,
            "end": ts if instant else None,
            "name": e.name,
            "cat": list(e.categories),
            "args": {a.name: annotation_value(a) for a in e.debug_annotations},
            "depth": len(stack),
            "instant": instant,
        }
        idx = len(slices)
        slices.append(s)
        stack.append(idx)
        for fid in e.flow_ids:
            if fid in flow_begun:
                flows.append((flow_begun.pop(fid), idx, fid))
            else:
                flow_begun[fid] = idx
        for fid in e.terminating_flow_ids:
            if fail.check(fid in flow_begun, f"flow {fid} ends before it begins"):
                flows.append((flow_begun.pop(fid), idx, fid))
    for track, stack in stacks.items():
        fail.check(all(slices[i]["end"] is not None for i in stack), f"unclosed slice on {tracks[track].name}")
    # Strict nesting: a slice inside its parent on the stack.
    for s in slices:
        fail.check(s["end"] is not None and s["end"] >= s["ts"], f"slice '{s['name']}' has no valid end")
    return tracks, slices, flows, flow_begun


def check_nesting(slices, fail):
    by_track = defaultdict(list)
    for s in slices:
        if not s["instant"]:
            by_track[s["track"]].append(s)
    for track, items in by_track.items():
        items.sort(key=lambda s: (s["ts"], -(s["end"] - s["ts"])))
        open_ = []
        for s in items:
            while open_ and open_[-1]["end"] <= s["ts"] and not (open_[-1]["end"] == s["ts"] == s["end"]):
                open_.pop()
            if open_:
                fail.check(s["end"] <= open_[-1]["end"], f"'{s['name']}' at {s['ts']} overlaps '{open_[-1]['name']}'")
            open_.append(s)


def load_trace_ops(racetrack, trace, workdir):
    as_json = os.path.join(workdir, "trace.json")
    run(racetrack, "convert", trace, as_json)
    with open(as_json) as f:
        return json.load(f)


def shown_groups(check):
    return [g for g in check["groups"] if g["shown"]]


def verify_perfetto(path, ops, groups, strings, fail):
    from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

    trace = pb.Trace()
    with open(path, "rb") as f:
        trace.ParseFromString(f.read())
    unknown = [p for packet in trace.packet for p in unknown_fields(packet)]
    fail.check(not unknown, f"fields Perfetto's schema does not know: {sorted(set(unknown))[:5]}")

    tracks, slices, flows, dangling = replay_perfetto(trace, fail)
    check_nesting(slices, fail)
    op_slices = {s["args"]["seq"]: s for s in slices if "seq" in s["args"] and not s["instant"]}
    fail.check(len(op_slices) == len(ops), f"{len(op_slices)} op slices for {len(ops)} ops")

    exact, timed = device_times(ops, {seq: (s["ts"], s["end"]) for seq, s in op_slices.items()})
    fail.check(exact == timed and timed > 0, f"only {exact} of {timed} device slices keep their device times")
    print(f"perfetto: device slices at their recorded device times: {exact}/{timed} ({100.0 * exact / timed:.1f}%)")

    # Record -> wait flows, as the trace binds them.
    latest, pairs = {}, set()
    for op in ops:
        if "record" in op:
            latest[op["record"].get("event", 0)] = int(op["seq"])
        elif "wait" in op and op["wait"].get("event", 0) in latest:
            pairs.add((latest[op["wait"].get("event", 0)], int(op["seq"])))
    slice_seq = {id(s): s["args"].get("seq") for s in slices}
    got = {(slice_seq[id(slices[a])], slice_seq[id(slices[b])]) for a, b, fid in flows if fid < (1 << 62)}
    fail.check(got == pairs, f"record -> wait flows: {len(got)} exported, {len(pairs)} in the trace")
    fail.check(all(fid >= (1 << 62) for fid in dangling), "a record -> wait flow was left open")

    # Hazards: a slice per shown group, numbered as check numbers them.
    hazard_tracks = {u for u, d in tracks.items() if d.name.startswith("Hazards")}
    hazards = [s for s in slices if s["track"] in hazard_tracks]
    fail.check(len(hazards) == len(groups) > 0, f"{len(hazards)} hazard slices for {len(groups)} shown groups")
    index_of = {id(s): i for i, s in enumerate(slices)}
    for g in groups:
        number = g["number"]
        first, second = int(g["hazard"]["first"]["seq"]), int(g["hazard"]["second"]["seq"])
        mine = [s for s in hazards if s["args"].get("hazard") == number]
        if not fail.check(len(mine) == 1, f"hazard [{number}]: {len(mine)} slices"):
            continue
        h = mine[0]
        fail.check(h["name"].startswith(f"[{number}] "), f"hazard [{number}] is named '{h['name']}'")
        fail.check((h["args"]["first_seq"], h["args"]["second_seq"]) == (first, second), f"hazard [{number}]: ops")
        fail.check((h["args"].get("explanation") or None) == (g.get("explanation") or None), f"hazard [{number}]: explanation")
        fail.check(h["args"].get("fix") == g["fix"]["text"], f"hazard [{number}]: fix")
        fail.check(h["args"].get("signature") == g["signature"], f"hazard [{number}]: signature")
        # check's JSON spells enums in lower case; the export's arguments as its text report does.
        fail.check(h["args"].get("kind", "").lower() == g["hazard"]["kind"], f"hazard [{number}]: kind")
        fail.check(h["args"].get("class") == g["hazard"]["class"], f"hazard [{number}]: class")
        fail.check(h["args"].get("confidence") == g["confidence"], f"hazard [{number}]: confidence")
        if g["fix"]["pytorch"]:
            fail.check(h["args"].get("fix_pytorch") == g["fix"]["pytorch"], f"hazard [{number}]: PyTorch fix")
        a, b = op_slices[first], op_slices[second]
        fail.check(h["ts"] == min(a["ts"], b["ts"]) and h["end"] == max(a["end"], b["end"]),
                   f"hazard [{number}] does not span its ops")
        ia, ib, ih = index_of[id(a)], index_of[id(b)], index_of[id(h)]
        linked = {frozenset((x, y)) for x, y, _ in flows}
        fail.check(frozenset((ia, ib)) in linked, f"hazard [{number}]: no flow between its ops")
        fail.check(frozenset((ih, ia)) in linked and frozenset((ih, ib)) in linked,
                   f"hazard [{number}]: no flow from the hazard slice to its ops")
        for side, op in (("first", a), ("second", b)):
            marks = [s for s in slices if s["instant"] and s["track"] == op["track"] and s["ts"] == op["ts"]
                     and s["name"] == f"hazard [{number}] {side}"]
            fail.check(len(marks) == 1, f"hazard [{number}]: no instant on its {side} op")
            fail.check(f"[{number}] {side}" in op["args"].get("hazards", ""), f"hazard [{number}]: {side} op unmarked")

    # NVTX: every op inside the ranges of its path, on its thread's NVTX track.
    nvtx = defaultdict(list)  # (thread track name, depth) -> slices
    for s in slices:
        name = tracks[s["track"]].name
        if name.endswith(" NVTX"):
            nvtx[name].append(s)
    fail.check(nvtx, "no NVTX track")
    ranges = [s for items in nvtx.values() for s in items]
    covered = 0
    with_path = [op for op in ops if op.get("nvtx")]
    by_path = defaultdict(list)
    for r in ranges:
        by_path[r["args"]["path"]].append((r["ts"], r["end"]))
    for op in with_path:
        path = strings[op["nvtx"] - 1]
        start = max(int(op.get("hostStart", 0)), 0)
        end = max(int(op.get("hostEnd", 0)), start)
        parts = [p for p in path.split("/") if p]
        prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
        covered += all(any(s <= start and end <= e for s, e in by_path[p]) for p in prefixes)
    fail.check(covered == len(with_path), f"{len(with_path) - covered} ops outside their NVTX ranges")
    print(f"perfetto: {len(slices)} slices on {len(tracks)} tracks, {len(flows)} flows, "
          f"{len(hazards)} hazards, {len(ranges)} NVTX ranges")


def device_times(ops, spans):
    exact = timed = 0
    for op in ops:
        if "deviceStart" not in op or "stream" not in op or "sync" in op or "query" in op:
            continue
        timed += 1
        span = spans.get(int(op["seq"]))
        exact += span == (int(op["deviceStart"]), int(op["deviceEnd"]))
    return exact, timed


def verify_chrome(path, ops, groups, fail):
    with open(path) as f:
        doc = json.load(f, parse_float=Decimal)
    events = doc["traceEvents"]
    ns = lambda us: int(Decimal(us) * 1000)  # exact: the file has 3 decimals
    spans = {}
    for e in events:
        if e["ph"] == "X" and "seq" in e["args"] and e["cat"] not in ("hazard", "nvtx"):
            fail.check(Decimal(e["ts"]).as_tuple().exponent >= -3, "ts with sub-ns digits")
            spans[e["args"]["seq"]] = (ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]))
    fail.check(len(spans) == len(ops), f"chrome: {len(spans)} op events for {len(ops)} ops")
    exact, timed = device_times(ops, spans)
    fail.check(exact == timed, f"chrome: only {exact} of {timed} device slices keep their device times")
    print(f"chrome: device slices at their recorded device times: {exact}/{timed} ({100.0 * exact / timed:.1f}%)")
    hazards = [e for e in events if e["ph"] == "X" and e["cat"] == "hazard"]
    numbers = sorted(e["args"]["hazard"] for e in hazards)
    fail.check(numbers == list(range(1, len(groups) + 1)), f"chrome: hazard numbers {numbers}")
    starts = defaultdict(int)
    for e in events:
        if e["ph"] in "sf" and e.get("cat") == "hazard":
            starts[(e["id"], e["ph"])] += 1
    ids = {i for i, _ in starts}
    fail.check(all(starts[(i, "s")] == 1 and starts[(i, "f")] == 1 for i in ids), "chrome: unpaired hazard flows")
    fail.check(len(ids) == 3 * len(groups), f"chrome: {len(ids)} hazard flows for {len(groups)} hazards")
    marks = [e for e in events if e["ph"] == "i"]
    fail.check(len(marks) == 2 * len(groups), f"chrome: {len(marks)} hazard marks for {len(groups)} hazards")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--racetrack", required=True)
    parser.add_argument("--workdir", required=True)
    args = parser.parse_args()
    try:
        import perfetto.protos.perfetto.trace.perfetto_trace_pb2  # noqa: F401
    except Exception as e:  # ImportError, or a protobuf runtime too old for the schema
        print(f"SKIPPED: Perfetto's Python package is not usable ({e}); "
              "scripts/install-deps.sh installs it (pip install perfetto)")
        return SKIP

    os.makedirs(args.workdir, exist_ok=True)
    trace = os.path.join(args.workdir, "hazards.rtrace")
    run(args.racetrack, "synth", "-o", trace, "--seed", "3", "--ops", "20000", "--inject", "all")
    check = json.loads(run(args.racetrack, "check", trace, "--format", "json").stdout)
    groups = shown_groups(check)
    doc = load_trace_ops(args.racetrack, trace, args.workdir)
    ops, strings = doc["ops"], doc.get("strings", [])
    fail = Failures()

    proto = os.path.join(args.workdir, "hazards.pftrace")
    run(args.racetrack, "export", trace, proto)
    verify_perfetto(proto, ops, groups, strings, fail)
    chrome = os.path.join(args.workdir, "hazards.json")
    run(args.racetrack, "export", trace, chrome)
    verify_chrome(chrome, ops, groups, fail)

    print(f"{'FAILED' if fail.count else 'passed'}: {fail.count} failure(s)")
    return 1 if fail.count else 0


if __name__ == "__main__":
    sys.exit(main())
