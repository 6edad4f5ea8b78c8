#!/usr/bin/env python3
"""GPU checks for `racetrack replay --backend cuda`, run from the root of the
bundle that scripts/gpu-bundle.sh stages (tests/gpu/run_replay_checks.sh starts it).

1. Samples: under --stress every buggy sample of traces/samples/manifest.json
   manifests each of its hazards, for a few seeds; no fixed sample corrupts a read.
2. Synth: clean synth traces (known and raw modes) never corrupt a read under
   --stress; hazards injected into a synth trace manifest.
3. Fidelity: with --timing traced the replayed makespan (-o, then `racetrack
   info`) is within 15% of the traced one, for synth traces with device times.
4. Issue rate: with --timing fast the report's ops/s is at least 200,000.
5. Captures: traces that run_capture_checks.py left in --captures-dir, when
   there are any: one whose check shows no hazard never corrupts a read, one
   with hazards manifests at least one under --stress.

Runs never stop at the first failure; the budget cuts them off. The table
comes last; the exit status is 1 when any check failed.
"""

import argparse
import glob
import json
import os
import re
import sys

from budgeted_runs import BudgetedRunner, last_line, table

RACETRACK = "bin/racetrack"
SAMPLES = "traces/samples"
SECTIONS = ("samples", "synth", "fidelity", "rate", "captures")
FIDELITY_TOLERANCE = 0.15
MIN_OPS_PER_SECOND = 200_000


class Runner(BudgetedRunner):
    def __init__(self, args):
        super().__init__(args)
        self.rows = []  # (check, trace, expected, got, passed)

    run = BudgetedRunner.execute

    def replay(self, trace, flags, label):
        """`racetrack replay --backend cuda --format json`; returns (report or None, why)."""
        command = [RACETRACK, "replay", "--backend", self.args.backend, "--format", "json", *flags, trace]
        rc, out, err = self.run(command, label)
        try:
            return json.loads(out), ""
        except ValueError:
            return None, f"replay failed (rc {rc}): {last_line(err) or last_line(out)}"

    def record(self, check, trace, expected, got, passed):
        self.rows.append((check, trace, expected, got, passed))
        self.log(f"{'PASS' if passed else 'FAIL'} {check} {trace}: {got}")

    def synth(self, path, flags, label):
        if os.path.exists(path):
            return True
        rc, _, err = self.run([RACETRACK, "synth", "-o", path, *flags], label)
        if rc != 0:
            self.record("synth", os.path.basename(path), "a trace", f"synth failed (rc {rc}): {last_line(err)}", False)
        return rc == 0

    # ---- 1. samples

    def samples(self):
        with open(os.path.join(SAMPLES, "manifest.json")) as f:
            samples = json.load(f)["samples"]
        repeat = str(self.args.repeat)
        for seed in range(1, self.args.seeds + 1):
            for sample in samples:
                name = sample["file"].replace(".pbtxt", "")
                flags = ["--stress", "--repeat", repeat, "--seed", str(seed)]
                report, why = self.replay(os.path.join(SAMPLES, sample["file"]), flags, f"{name}-seed{seed}")
                trace = f"{name} (seed {seed})"
                if report is None:
                    self.record("sample", trace, expected_of(sample), why, False)
                    continue
                got, passed = judge_sample(sample, report)
                self.record("sample", trace, expected_of(sample), got, passed)

    # ---- 2. synth

    def synth_clean(self):
        for modes, schedule in (("known", "1f1b"), ("raw", "sequential")):
            path = os.path.join(self.args.work_dir, f"clean-{modes}-{schedule}.rtrace")
            if not self.synth(path, ["--ops", "20000", "--modes", modes, "--schedule", schedule], "synth-clean"):
                continue
            report, why = self.replay(path, ["--stress", "--repeat", "2", "--timing", "fast"], f"clean-{modes}")
            name = os.path.basename(path)
            if report is None:
                self.record("synth clean", name, "0 corrupted reads", why, False)
                continue
            corrupted = report["corrupted_reads"]
            manifested = sum(1 for h in report["hazards"] if h["manifested_runs"] > 0)
            self.record("synth clean", name, "0 corrupted reads",
                        f"{corrupted} corrupted reads, {manifested} hazards manifested",
                        corrupted == 0 and manifested == 0)

    def synth_injected(self):
        path = os.path.join(self.args.work_dir, "injected.rtrace")
        flags = ["--ops", "6000", "--layers", "2", "--microbatches", "3", "--activation-bytes", "65536",
                 "--inject", "C1:2", "--inject", "C2:2", "--inject", "C3:2", "--inject", "C4:2", "--inject", "C5:2"]
        if not self.synth(path, flags, "synth-injected"):
            return
        with open(path + ".truth.json") as f:
            injected = json.load(f)["injected"]
        report, why = self.replay(path, ["--stress", "--repeat", "2", "--timing", "fast"], "injected")
        expected = f"{len(injected)} injected manifest"
        if report is None:
            self.record("synth injected", "injected.rtrace", expected, why, False)
            return
        manifested = {seq_pair(h) for h in report["hazards"] if h["manifested_runs"] > 0}
        missing = [f"{h['shape']} #{h['first_seq']}->#{h['second_seq']}" for h in injected
                   if (h["first_seq"], h["second_seq"]) not in manifested]
        got = f"{len(injected) - len(missing)} of {len(injected)}" + (f"; missing {', '.join(missing)}" if missing else "")
        self.record("synth injected", "injected.rtrace", expected, got, bool(injected) and not missing)

    # ---- 3. fidelity

    def fidelity(self):
        for modes, schedule in (("known", "1f1b"), ("raw", "sequential")):
            path = os.path.join(self.args.work_dir, f"timed-{modes}-{schedule}.rtrace")
            if not self.synth(path, ["--ops", "20000", "--modes", modes, "--schedule", schedule, "--seed", "2"],
                              "synth-timed"):
                continue
            replayed = path.replace(".rtrace", ".replayed.rtrace")
            report, why = self.replay(path, ["--timing", "traced", "-o", replayed], f"fidelity-{modes}")
            name = os.path.basename(path)
            expected = f"within {FIDELITY_TOLERANCE:.0%}"
            if report is None:
                self.record("fidelity", name, expected, why, False)
                continue
            traced, replay_span = self.span(path), self.span(replayed)
            if traced is None or replay_span is None or traced <= 0:
                self.record("fidelity", name, expected, "no makespan from racetrack info", False)
                continue
            ratio = replay_span / traced
            self.record("fidelity", name, expected,
                        f"replayed {replay_span / 1000:.1f} ms / traced {traced / 1000:.1f} ms = {ratio:.3f}",
                        abs(ratio - 1) <= FIDELITY_TOLERANCE)

    def span(self, trace):
        """The trace's makespan in us, as `racetrack info` prints it."""
        _, out, _ = self.run([RACETRACK, "info", trace], "info")
        return info_span_us(out)

    # ---- 4. issue rate

    def rate(self):
        path = os.path.join(self.args.work_dir, "rate.rtrace")
        if not self.synth(path, ["--ops", "100000", "--seed", "3"], "synth-rate"):
            return
        report, why = self.replay(path, ["--timing", "fast"], "rate")
        expected = f">= {MIN_OPS_PER_SECOND:,} ops/s"
        if report is None:
            self.record("issue rate", "rate.rtrace", expected, why, False)
            return
        rate = report["ops_per_second"]
        self.record("issue rate", "rate.rtrace", expected, f"{rate:,.0f} ops/s ({report['ops']} ops)",
                    rate >= MIN_OPS_PER_SECOND)

    # ---- 5. captures

    def captures(self):
        traces = sorted(t for t in glob.glob(os.path.join(self.args.captures_dir, "*.rtrace"))
                        if not os.path.basename(t).startswith("overhead"))
        if not traces:
            self.log(f"no captured traces in {self.args.captures_dir} (run_capture_checks.py leaves them there)")
            return
        for trace in traces:
            if self.remaining() < self.args.optional_reserve_s:
                self.log(f"skip {trace}: time budget")
                continue
            name = os.path.basename(trace)
            report, why = self.replay(trace, ["--stress", "--repeat", "2"], "capture-" + name)
            if report is None:
                self.record("capture", name, "-", why, False)
                continue
            manifested = sum(1 for h in report["hazards"] if h["manifested_runs"] > 0)
            if report["hazards"]:
                self.record("capture", name, f"1+ of {len(report['hazards'])} hazards manifest",
                            f"{manifested} manifested", manifested > 0)
            else:
                self.record("capture", name, "0 corrupted reads", f"{report['corrupted_reads']} corrupted reads",
                            report["corrupted_reads"] == 0)

    # ---- the table

    def report(self):
        rows = [("check", "trace", "expected", "got", "pass")]
        failed = 0
        for check, trace, expected, got, passed in self.rows:
            rows.append((check, trace, expected, got, "yes" if passed else "NO"))
            failed += not passed
        lines = ["", f"racetrack replay --backend {self.args.backend}: GPU checks", ""] + table(rows)
        lines += ["", f"{failed} check(s) failed; {self.runs} runs in {self.elapsed():.0f} s; logs in {self.args.work_dir}"]
        print("\n".join(lines), flush=True)
        return failed


# ---- pure helpers (no GPU needed)

def expected_of(sample):
    return f"{len(sample['hazards'])} hazard(s) manifest" if sample["hazards"] else "no corruption"


def seq_pair(verdict):
    """(first seq, second seq) of a replay verdict (docs/schemas/replay.schema.json)."""
    return verdict["hazard"]["first"]["seq"], verdict["hazard"]["second"]["seq"]


def judge_sample(sample, report):
    """(got, passed): a buggy sample's manifest hazards all manifest; a fixed one corrupts nothing."""
    if not sample["hazards"]:
        manifested = sum(1 for h in report["hazards"] if h["manifested_runs"] > 0)
        got = f"{report['corrupted_reads']} corrupted reads, {manifested} manifested"
        return got, report["corrupted_reads"] == 0 and manifested == 0
    parts, passed = [], True
    for want in sample["hazards"]:
        found = [h for h in report["hazards"] if seq_pair(h) == (want["first_seq"], want["second_seq"])]
        runs = found[0]["manifested_runs"] if found else 0
        parts.append(f"#{want['first_seq']}->#{want['second_seq']} {runs}/{report['runs']}" if found
                     else f"#{want['first_seq']}->#{want['second_seq']} not found")
        passed = passed and runs > 0
    return ", ".join(parts), passed


def info_span_us(output):
    """`racetrack info`'s span ("spanning 6.58 s": three digits, unit that fits) in us."""
    match = re.search(r"spanning ([0-9.]+) (ns|\u00b5s|ms|s)\b", output)
    if not match:
        return None
    return float(match.group(1)) * {"ns": 1e-3, "\u00b5s": 1.0, "ms": 1e3, "s": 1e6}[match.group(2)]






def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sections", default=",".join(SECTIONS), help="comma list of " + ", ".join(SECTIONS))
    parser.add_argument("--work-dir", default="/tmp/racetrack-replay-checks", help="traces and logs")
    parser.add_argument("--captures-dir", default="/tmp/racetrack-capture-checks",
                        help="where run_capture_checks.py left its traces")
    parser.add_argument("--budget-s", type=float, default=240,
                        help="seconds for everything: runs are cut off at this point, then the table is printed")
    parser.add_argument("--optional-reserve-s", type=float, default=30, help="captured traces need this much left")
    parser.add_argument("--run-timeout-s", type=float, default=120, help="limit for one run")
    parser.add_argument("--seeds", type=int, default=2, help="--stress seeds per sample")
    parser.add_argument("--repeat", type=int, default=4, help="--repeat of every sample replay")
    parser.add_argument("--backend", default="cuda", choices=("cuda", "host"),
                        help="host: try the checks without a GPU (the issue rate target is the GPU's)")
    args = parser.parse_args()
    sections = set(args.sections.split(","))
    if not sections <= set(SECTIONS) or args.seeds < 1 or args.repeat < 1:
        parser.error(f"--sections takes {', '.join(SECTIONS)}; --seeds and --repeat must be positive")
    for needed in (RACETRACK, os.path.join(SAMPLES, "manifest.json")):
        if not os.path.exists(needed):
            parser.error(f"{needed} not found: run from the bundle root (scripts/gpu-bundle.sh)")

    runner = Runner(args)
    if "samples" in sections:
        runner.samples()
    if "synth" in sections:
        runner.synth_clean()
    if "fidelity" in sections:
        runner.fidelity()
    if "rate" in sections:
        runner.rate()
    if "synth" in sections:
        runner.synth_injected()
    if "captures" in sections:
        runner.captures()
    sys.exit(1 if runner.report() else 0)


if __name__ == "__main__":
    main()
