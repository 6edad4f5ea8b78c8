"""racetrack's JSON outputs (check, sim, replay, info) against docs/schemas, on
every sample and on synth traces with injected hazards (known, raw and
code modes); documents that break the schemas are rejected; and one hazard has
one number in check (text and JSON), sim and replay.

Run from ctest (tests/schemas/CMakeLists.txt), which sets RACETRACK (the
binary), RACETRACK_SAMPLES, RACETRACK_SCHEMAS and RACETRACK_TEST_TMPDIR.
"""
import atexit
import copy
import glob
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from schema_support import Schemas

RACETRACK = os.environ["RACETRACK"]
SAMPLES = os.environ["RACETRACK_SAMPLES"]
SCHEMAS = Schemas(os.environ["RACETRACK_SCHEMAS"])
# One scratch directory per process: ctest runs the suites in parallel.
TMP = tempfile.mkdtemp(dir=os.environ["RACETRACK_TEST_TMPDIR"])
atexit.register(shutil.rmtree, TMP, ignore_errors=True)


def run(*args, codes=(0, 1)):
    """Runs racetrack; returns (exit status, stdout), failing on an unexpected status."""
    r = subprocess.run([RACETRACK, *args], capture_output=True, text=True, timeout=120)
    if r.returncode not in codes:
        raise AssertionError(f"racetrack {' '.join(args)}: exit {r.returncode}\n{r.stderr}")
    return r.returncode, r.stdout


def run_json(*args, codes=(0, 1)):
    code, out = run(*args, "--format", "json", codes=codes)
    return code, json.loads(out)


def scratch(name):
    path = os.path.join(TMP, name)
    os.makedirs(path, exist_ok=True)
    return path


_synth = {}


def synth(modes):
    """A small 1F1B step with every hazard shape injected, in `modes` (cached).

    Seed 1 numbers possible groups before the shown ones, which the numbering tests need."""
    if modes not in _synth:
        path = os.path.join(scratch("synth-" + modes), "step.rtrace")
        run("synth", "-o", path, "--ops", "6000", "--layers", "2", "--microbatches", "2", "--activation-bytes",
            "1048576", "--modes", modes, "--inject", "all", "--seed", "1", codes=(0,))
        _synth[modes] = path
    return _synth[modes]


def outputs(trace):
    """(schema, what ran, document) for every JSON output of `trace`."""
    yield "check", "check", run_json("check", trace)[1]
    yield "check", "check --all possible", run_json("check", "--all", "--min-confidence", "possible", trace)[1]
    yield "check", "check --no-fix", run_json("check", "--no-fix", trace)[1]
    yield "sim", "sim", run_json("sim", trace)[1]
    yield "sim", "sim --adversarial --apply-fixes", run_json("sim", "--adversarial", "--apply-fixes", trace)[1]
    yield "replay", "replay --stress", run_json("replay", "--stress", "--timing", "fast", trace)[1]
    yield "info", "info", run_json("info", trace, codes=(0,))[1]


class Valid:
    def assertValid(self, schema, document, what):
        errors = SCHEMAS.errors(schema, document)
        self.assertEqual(errors, [], f"{what}: does not match {schema}.schema.json")


class SchemasAreWellFormed(unittest.TestCase):
    def test_every_schema_is_a_valid_schema(self):
        for name in SCHEMAS.schemas:
            with self.subTest(schema=name):
                SCHEMAS.validator(name)  # check_schema raises on a malformed schema

    def test_every_output_starts_at_version_1(self):
        for name in ("check", "sim", "replay", "info"):
            ref = SCHEMAS.raw[name]["properties"]["schema_version"]["$ref"]
            self.assertEqual(ref, "hazard.schema.json#/$defs/schema_version")
        self.assertEqual(SCHEMAS.raw["hazard"]["$defs"]["schema_version"]["const"], 3)


class SampleOutputs(unittest.TestCase, Valid):
    def test_every_sample_output_matches_its_schema(self):
        samples = sorted(glob.glob(os.path.join(SAMPLES, "*.pbtxt")))
        self.assertGreater(len(samples), 20)
        for trace in samples:
            for schema, what, document in outputs(trace):
                with self.subTest(sample=os.path.basename(trace), output=what):
                    self.assertValid(schema, document, what)
                    self.assertEqual(document["schema_version"], 3)

    def test_racing_samples_report_hazards(self):
        # The validation above must have seen hazard objects, not only empty lists.
        _, check = run_json("check", os.path.join(SAMPLES, "c1_reload_not_waited.race.pbtxt"))
        self.assertEqual(len(check["groups"]), 1)
        hazard = check["groups"][0]["hazard"]
        self.assertEqual((hazard["kind"], hazard["class"]), ("raw", "copy-vs-copy"))
        self.assertEqual((hazard["overlap"]["space"], hazard["overlap"]["device"]), ("host", None))
        self.assertEqual((hazard["first"]["op"], hazard["first"]["direction"], hazard["first"]["role"]),
                         ("memcpy", "d2h", "d2h"))


class SynthOutputs(unittest.TestCase, Valid):
    def test_injected_hazards_in_known_raw_and_code_modes(self):
        for modes in ("known", "raw", "code"):
            trace = synth(modes)
            seen = 0
            for schema, what, document in outputs(trace):
                with self.subTest(modes=modes, output=what):
                    self.assertValid(schema, document, what)
                    seen += len(document.get("hazards", []))
            self.assertGreater(seen, 0, modes)

    def test_sides_say_where_their_modes_came_from(self):
        sources = {}
        for modes in ("raw", "code"):
            _, document = run_json("check", "--all", "--min-confidence", "possible", "--no-fix", synth(modes))
            self.assertValid("check", document, f"check of a {modes} trace")
            sources[modes] = {side["access"]["mode_source"] for h in document["hazards"]
                              for side in (h["first"], h["second"]) if side["op"] == "kernel"}
            launches = document["access_modes"]["launches"]
            self.assertEqual(launches["machine_code"] > 0, modes == "code", launches)
        self.assertEqual(sources["raw"], {"unknown"})
        self.assertEqual(sources["code"], {"machine-code"})
        _, off = run_json("check", "--no-code-modes", "--no-fix", synth("code"))
        self.assertEqual(off["access_modes"]["launches"]["machine_code"], 0)

    def test_a_bounded_hazard_list_says_it_is_truncated(self):
        trace = synth("raw")
        # Whole segments: every kernel in a driver allocation overlaps, so the list is long.
        flags = ("--all", "--min-confidence", "possible", "--no-fix", "--whole-segments")
        _, full = run_json("check", *flags, trace)
        total = full["hazards_listed"]["total"]
        self.assertGreater(total, 10)
        self.assertEqual(full["hazards_listed"], {"total": total, "listed": total, "truncated": False})
        r = subprocess.run([RACETRACK, "check", *flags, "--max-hazards", "3", "--format", "json", trace],
                           capture_output=True, text=True)
        bounded = json.loads(r.stdout)
        self.assertValid("check", bounded, "check --max-hazards 3")
        # Written hazard by hazard, yet indented like every other document.
        self.assertEqual(json.dumps(bounded, indent=2, ensure_ascii=False) + "\n", r.stdout)
        self.assertEqual(bounded["hazards_listed"], {"total": total, "listed": 3, "truncated": True})
        self.assertEqual(bounded["hazards"], full["hazards"][:3])
        self.assertIn(f"3 of {total}", r.stderr)

    def test_info_on_a_truncated_trace_is_a_valid_partial_document(self):
        trace = synth("known")
        cut = os.path.join(scratch("truncated"), "cut.rtrace")
        with open(trace, "rb") as f:
            data = f.read()
        with open(cut, "wb") as f:
            f.write(data[: len(data) * 2 // 3])
        code, document = run_json("info", cut, codes=(2,))
        self.assertValid("info", document, "info on a truncated trace")
        self.assertFalse(document["complete"])
        self.assertIn("cut.rtrace", document["error"])
        _, whole = run_json("info", trace, codes=(0,))
        self.assertTrue(whole["complete"])
        self.assertIsNone(whole["error"])
        self.assertLess(document["ops"], whole["ops"])


def values_record(path, records):
    """A values record as racetrack_torch writes it (docs/diff.md)."""
    with open(path, "w") as f:
        f.write(json.dumps({"racetrack_values": 1, "torch": "test"}) + "\n")
        for seq, (phase, module, op, out_hash, absmax) in enumerate(records):
            digest = {"hash": out_hash, "dtype": "float32", "numel": 4, "sum": absmax, "absmax": absmax,
                      "nan": 0, "inf": 0}
            f.write(json.dumps({"seq": seq, "phase": phase, "module": module, "op": op, "n": 0,
                                "t": 1764680000000000000 + seq, "thread": 7, "in": [digest],
                                "out": [digest]}) + "\n")
    return path


class DiffOutputs(unittest.TestCase, Valid):
    def test_diff_outputs_match_their_schema(self):
        directory = scratch("diff")
        baseline = values_record(os.path.join(directory, "baseline.jsonl"), [
            ("forward", "m.fc1", "aten::addmm", "a", 1.0), ("forward", "m", "aten::gelu", "b", 1.0),
            ("backward", "m", "aten::gelu_backward", "c", 1.0), ("backward", "m.fc1", "aten::mm", "d", 1.0),
            ("backward", "m.fc1", "grad", "d", 1.0)])
        drifted = values_record(os.path.join(directory, "run.jsonl"), [
            ("forward", "m.fc1", "aten::addmm", "a", 1.0), ("forward", "m", "aten::gelu", "b", 1.0),
            ("forward", "m", "aten::_to_copy", "b", 1.0), ("recompute", "m", "aten::gelu", "b", 1.0),
            ("backward", "m", "aten::gelu_backward", "e0", 0.0)])
        code, same = run_json("diff", baseline, baseline)
        self.assertEqual(code, 0)
        self.assertValid("diff", same, "diff, no divergence")
        code, differs = run_json("diff", baseline, drifted)
        self.assertEqual(code, 1)
        self.assertValid("diff", differs, "diff, a divergence")
        self.assertEqual(differs["first_divergence"]["how"], "zeros-vs-nonzeros")
        self.assertEqual(differs["first_gradient"]["how"], "missing")
        self.assertEqual(differs["recomputed_matched"], 1)


class RanksOutputs(unittest.TestCase, Valid):
    def test_a_multi_rank_check_matches_its_schema(self):
        directory = scratch("ranks")
        run("synth", "-o", os.path.join(directory, "rank-%r.rtrace"), "--ranks", "3", "--ops", "15000", "--layers",
            "4", "--microbatches", "2", "--activation-bytes", "65536", "--inject", "C12_bucket:3,C11_stash")
        with open(os.path.join(directory, "rank-9.rtrace"), "w") as f:
            f.write("not a trace")
        code, merged = run_json("check", directory)
        self.assertEqual(code, 1)
        self.assertValid("check-ranks", merged, "check of four rank traces, one unreadable")
        self.assertEqual(merged["summary"]["checked"], 3)
        self.assertEqual(merged["summary"]["failed"], 1)
        self.assertEqual([t["rank"] for t in merged["traces"]], [0, 1, 2, None])
        bucket = [g for g in merged["groups"] if g["hazard"]["class"] == "communication"]
        self.assertTrue(bucket, "the gradient-bucket race is a communication hazard")
        self.assertEqual(bucket[0]["ranks"], [0, 1, 2])
        # Each trace's own report names its rank and host.
        _, one = run_json("check", os.path.join(directory, "rank-1.rtrace"))
        self.assertValid("check", one, "check of one rank")
        self.assertEqual((one["rank"], one["host"]), (1, "synth-node0"))


class RejectsWrongDocuments(unittest.TestCase):
    """The schemas are real constraints: each change below breaks them."""

    @classmethod
    def setUpClass(cls):
        race = os.path.join(SAMPLES, "c1_reload_not_waited.race.pbtxt")
        cls.check = run_json("check", "--all", race)[1]
        cls.sim = run_json("sim", "--adversarial", race)[1]
        cls.replay = run_json("replay", "--stress", "--timing", "fast", race)[1]
        cls.info = run_json("info", race, codes=(0,))[1]

    def rejected(self, schema, document, change):
        broken = copy.deepcopy(document)
        change(broken)
        self.assertNotEqual(SCHEMAS.errors(schema, broken), [], f"{schema}: accepted a wrong document")

    def test_the_unchanged_documents_are_valid(self):
        for schema, document in (("check", self.check), ("sim", self.sim), ("replay", self.replay),
                                 ("info", self.info)):
            self.assertEqual(SCHEMAS.errors(schema, document), [], schema)

    def test_wrong_documents_are_rejected(self):
        group = lambda d: d["groups"][0]
        self.rejected("check", self.check, lambda d: d.pop("schema_version"))
        self.rejected("check", self.check, lambda d: d.update(schema_version=1))
        self.rejected("check", self.check, lambda d: group(d)["hazard"].update(kind="RAW"))
        self.rejected("check", self.check, lambda d: group(d)["hazard"]["overlap"].update(space="host memory"))
        self.rejected("check", self.check, lambda d: group(d)["hazard"].pop("number"))
        self.rejected("check", self.check, lambda d: group(d)["hazard"]["first"]["access"].update(address="4096"))
        self.rejected("check", self.check, lambda d: group(d).update(confidence="certain"))
        self.rejected("check", self.check, lambda d: d.pop("hazards_listed"))
        self.rejected("check", self.check, lambda d: group(d).update(undocumented=1))
        self.rejected("check", self.check, lambda d: group(d)["hazard"]["first"]["access"].update(mode_source="code"))
        self.rejected("check", self.check, lambda d: group(d)["hazard"]["second"]["access"].pop("mode_source"))
        self.rejected("check", self.check, lambda d: d["access_modes"]["launches"].pop("machine_code"))
        # The shape sim and replay had before: a side as a string.
        self.rejected("sim", self.sim, lambda d: d["hazards"][0]["hazard"].update(first="#4 memcpy D2H (d2h_stream)"))
        self.rejected("sim", self.sim, lambda d: d["hazards"][0].update(schedule="as given"))
        self.rejected("replay", self.replay, lambda d: d["hazards"][0]["stale"][0].update(reader_seq="7"))
        self.rejected("replay", self.replay, lambda d: d.update(backend="gpu"))
        self.rejected("info", self.info, lambda d: d["ops_per_kind"].update(kernels=1))
        self.rejected("info", self.info, lambda d: d["streams"][0].update(role="offload"))

    def test_the_published_schemas_accept_added_fields(self):
        # Adding a field keeps the schema_version (docs/schemas/README.md).
        open_schemas = Schemas(os.environ["RACETRACK_SCHEMAS"], strict=False)
        document = copy.deepcopy(self.check)
        document["groups"][0]["added_later"] = True
        self.assertEqual(open_schemas.errors("check", document), [])
        self.assertNotEqual(SCHEMAS.errors("check", document), [])


def hazard_key(h):
    return (h["kind"], h["first"]["seq"], h["second"]["seq"], h["first"]["access"]["address"],
            h["second"]["access"]["address"], h["first"]["graph_node"], h["second"]["graph_node"])


def numbers_by_key(hazards):
    out = {}
    for h in hazards:
        out.setdefault(hazard_key(h), set()).add(h["number"])
    return out


class OneNumbering(unittest.TestCase):
    def check_numbers(self, trace, flags=(), sim_and_replay=True):
        code, text = run("check", *flags, "--max", "1000", trace)
        _, check = run_json("check", *flags, "--all", trace)
        groups = check["groups"]
        self.assertEqual([g["number"] for g in groups], list(range(1, len(groups) + 1)))
        for g in groups:
            self.assertEqual(g["hazard"]["number"], g["number"])
        # Text: "[N] ..." then, a few lines on, "signature: S" of the same group.
        text_numbers = {int(n): s for n, s in re.findall(r"^\[(\d+)\] .*?^    signature: (.*?)$", text, re.M | re.S)}
        shown = {g["number"]: g["signature"] for g in groups if g["shown"]}
        self.assertEqual(text_numbers, shown)
        # The hidden groups' lines (the strongest ten) name their numbers too:
        # "[N] possible, anchored, ...: COUNT x SIGNATURE".
        hidden_lines = re.findall(r"^  \[(\d+)\] [^\n]*?: (\d+) x (.*)$", text, re.M)
        hidden = [g for g in groups if not g["shown"] and not g["suppressed"]]
        self.assertEqual(len(hidden_lines), min(len(hidden), 10))
        for number, count, signature in hidden_lines:
            g = groups[int(number) - 1]
            self.assertFalse(g["shown"], number)
            self.assertEqual((int(count), signature), (g["count"], g["signature"]))
        by_key = numbers_by_key(check["hazards"])
        for numbers in by_key.values():
            self.assertEqual(len(numbers), 1)
        for h in check["hazards"]:
            self.assertTrue(groups[h["number"] - 1]["shown"])
        if not sim_and_replay:
            return check

        _, sim = run_json("sim", "--adversarial", trace)
        _, replay = run_json("replay", "--stress", "--timing", "fast", trace)
        for name, report in (("sim", sim), ("replay", replay)):
            with self.subTest(output=name):
                self.assertEqual(numbers_by_key(v["hazard"] for v in report["hazards"]), by_key)
        # sim and replay text number their verdicts the same way.
        _, sim_text = run("sim", "--adversarial", trace)
        self.assertEqual([int(n) for n in re.findall(r"^\[(\d+)\]", sim_text, re.M)],
                         [v["hazard"]["number"] for v in sim["hazards"]])
        _, replay_text = run("replay", "--stress", "--timing", "fast", trace)
        self.assertEqual([int(n) for n in re.findall(r"^\[(\d+)\]", replay_text, re.M)],
                         [v["hazard"]["number"] for v in replay["hazards"]])
        return check

    def test_known_modes(self):
        check = self.check_numbers(synth("known"))
        self.assertGreaterEqual(sum(g["shown"] for g in check["groups"]), 3)

    def test_raw_modes_keep_the_numbers_of_hidden_groups(self):
        check = self.check_numbers(synth("raw"))
        shown = [g["number"] for g in check["groups"] if g["shown"]]
        hidden = [g["number"] for g in check["groups"] if not g["shown"]]
        # Possible groups come first here: the shown ones keep their place.
        self.assertTrue(shown and hidden and min(hidden) < min(shown))
        # ... and their numbers do not change when the hidden groups are shown.
        _, everything = run_json("check", "--min-confidence", "possible", "--no-fix", synth("raw"))
        self.assertEqual([(g["number"], g["signature"]) for g in everything["groups"]],
                         [(g["number"], g["signature"]) for g in check["groups"]])

    def test_suppressed_groups_keep_their_numbers(self):
        trace = synth("known")
        _, check = run_json("check", trace)
        first = check["groups"][0]["signature"]
        suppress = os.path.join(scratch("suppress"), "suppress.txt")
        with open(suppress, "w") as f:
            f.write(first + "\n")
        suppressed = self.check_numbers(trace, ("--suppress", suppress), sim_and_replay=False)
        self.assertTrue(suppressed["groups"][0]["suppressed"])
        self.assertEqual([g["number"] for g in suppressed["groups"] if g["shown"]],
                         [g["number"] for g in check["groups"][1:] if g["shown"]])


if __name__ == "__main__":
    unittest.main()
