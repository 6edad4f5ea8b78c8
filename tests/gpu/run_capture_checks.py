#!/usr/bin/env python3
"""GPU checks for `racetrack capture`, run from the root of the bundle that
scripts/gpu-bundle.sh stages (tests/gpu/run_capture_checks.sh starts it).

1. Verdicts: every workload and variant in capture/workloads/expected.json is
   captured and checked; a buggy variant must show its expected pair of ops as
   a definite or likely hazard, a fixed one none at all.
2. Dropped records: no capture output, `racetrack info` or `racetrack dump`
   of a trace may report dropped records.
3. Overhead: medians of repeated runs, compared with the targets below.

Runs never stop at the first failure. The table comes last; the exit status
is 1 when any check failed.
"""

import argparse
import json
import os
import re
import statistics
import sys

from budgeted_runs import BudgetedRunner, last_line, table

RACETRACK = "bin/racetrack"
EXPECTED = "capture/workloads/expected.json"
TRAIN = "capture/workloads/torch/train_offload.py"
SECTIONS = ("cuda", "torch", "overhead", "torch-hazards")

# (numerator, denominator, target ratio): the capturer's overhead budget.
TARGETS = [
    ("torch launch-bound", "capture", "activity", 1.15),
    ("torch compute-bound", "capture", "plain", 1.05),
    ("torch launch-bound", "torch", "plain", 2.0),
]
# Reported without a target.
INFO_RATIOS = [
    ("torch launch-bound", "activity", "plain"),
    ("torch launch-bound", "capture", "plain"),
    ("torch launch-bound", "torch-stacks", "plain"),
    ("cuda launch-bound", "activity", "plain"),
    ("cuda launch-bound", "capture", "plain"),
    ("cuda launch-bound", "capture", "activity"),
]


class Runner(BudgetedRunner):
    def __init__(self, args):
        super().__init__(args)
        self.verdicts = []  # (workload, variant, expected, got, passed, data)
        self.dropped = []  # (count, where): dropped-record counts the captures reported
        self.captures = 0  # runs with the capturer, whose dropped counts matter
        self.torch_ok = False

    def run(self, command, label, env=None, timeout=None):
        """Runs a command (stderr folded into the output); returns (rc, output)."""
        rc, output, note = self.execute(command, label, env=env, timeout=timeout, merge_stderr=True)
        return rc, output + note  # note: why it did not run or was cut short

    def capture(self, trace, flags, command, label, env=None):
        if os.path.exists(trace):
            os.remove(trace)
        return self.run([RACETRACK, "capture", "-o", trace, *flags, "--", *command], label, env=env)

    def note_dropped(self, output, where):
        counts = dropped_counts(output)
        self.dropped.extend((count, where) for count in counts)

    # ---- 1. verdicts

    def check_workloads(self, optional, cuda, torch):
        """Captures and checks the workloads of expected.json that are selected."""
        with open(EXPECTED) as f:
            workloads = json.load(f)["workloads"]
        for workload in workloads:
            is_torch = "{python}" in workload["command"]
            if bool(workload.get("optional")) != optional or not (torch if is_torch else cuda):
                continue
            if is_torch and not self.torch_ok:
                if not optional:
                    self.skip_workload(workload, "no PyTorch with CUDA")
                continue
            command = [self.args.python if part == "{python}" else part for part in workload["command"]]
            for variant, spec in workload["variants"].items():
                for flags in spec.get("captures", workload.get("captures", [[]])):
                    name = variant + "".join(" " + flag for flag in flags)
                    if optional and self.remaining() < self.args.optional_reserve_s:
                        self.log(f"skip {workload['name']} {name}: time budget")
                        continue
                    self.check_one(workload["name"], name, flags, command + spec["args"], spec["hazard"])

    def skip_workload(self, workload, why):
        for variant in workload["variants"]:
            self.verdicts.append((workload["name"], variant, "-", f"not run: {why}", False, "-"))

    def check_one(self, workload, variant, flags, command, hazard):
        label = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{workload}-{variant}")
        trace = os.path.join(self.args.work_dir, label + ".rtrace")
        expected = describe_pair(hazard) if hazard else "no hazard"
        rc, output = self.capture(trace, flags, command, label)
        self.note_dropped(output, f"capture {workload} {variant}")
        data = data_verdict(output)
        trace = written_trace(output, trace)
        if rc != 0 or trace is None:
            self.record(workload, variant, expected, f"capture failed (rc {rc}): {failure_line(output)}", False, data)
            return
        self.captures += 1
        # The capture notes dropped records in the trace; info and dump show them.
        for command_name in ("info", "dump"):
            _, listing = self.run([RACETRACK, command_name, trace], f"{label}-{command_name}")
            self.note_dropped(listing, f"{command_name} {workload} {variant}")
        rc, report = self.run([RACETRACK, "check", "--format", "json", trace], label + "-check")
        try:
            result = json.loads(report)
        except ValueError:
            self.record(workload, variant, expected, f"check failed (rc {rc}): {failure_line(report)}", False, data)
            return
        got, passed = judge(result, hazard)
        self.record(workload, variant, expected, got, passed, data)

    def record(self, workload, variant, expected, got, passed, data):
        self.verdicts.append((workload, variant, expected, got, passed, data))
        self.log(f"{'PASS' if passed else 'FAIL'} {workload} {variant}: {got}")

    # ---- 3. overhead

    def measure(self, name, configs):
        """configs: {config: (command, env)}; returns {config: median}, runs interleaved."""
        samples = {config: [] for config in configs}
        for round_index in range(self.args.repeats):
            for config, (command, env) in configs.items():
                label = f"{name}-{config}-{round_index}".replace(" ", "_")
                rc, output = self.run(command, label, env=env)
                value = step_time(output)
                if value is None:
                    self.log(f"{name} {config}: no step time (rc {rc}): {failure_line(output)}")
                    continue
                samples[config].append(value)
                if config not in ("plain", "activity"):
                    self.captures += 1
                    self.note_dropped(output, f"{name} {config}")
        medians = {config: statistics.median(values) for config, values in samples.items() if values}
        self.log(f"{name}: {format_medians(medians)}")
        return medians

    def overhead(self):
        trace = os.path.join(self.args.work_dir, "overhead.rtrace")
        activity = dict(os.environ, RACETRACK_CAPTURE_MODE="activity")
        capture = [RACETRACK, "capture", "-o", trace]

        def variants(command, with_torch):
            configs = {
                "plain": (command, None),
                "activity": (capture + ["--"] + command, activity),
                "capture": (capture + ["--"] + command, None),
            }
            if with_torch:
                configs["torch"] = (capture + ["--torch", "--"] + command, None)
                configs["torch-stacks"] = (capture + ["--torch", "--torch-stacks", "--"] + command, None)
            return configs

        results = {}
        results["cuda launch-bound"] = self.measure(
            "cuda launch-bound", variants(["bin/wl_launch_bound", "--steps", "20", "--kernels", "2000"], False))
        if self.torch_ok:
            launch = [self.args.python, TRAIN, "--launch-bound", "--steps", "30", "--warmup", "5", "--print-step-time"]
            results["torch launch-bound"] = self.measure("torch launch-bound", variants(launch, True))
            compute = [self.args.python, TRAIN, "--compute-bound", "--steps", "8", "--warmup", "3", "--print-step-time"]
            configs = variants(compute, False)
            del configs["activity"]
            results["torch compute-bound"] = self.measure("torch compute-bound", configs)
        return results

    # ---- the table

    def report(self, overhead):
        failed = 0
        lines = ["", "racetrack capture GPU checks", ""]
        rows = [("workload", "variant", "expected", "got", "pass", "data")]
        for workload, variant, expected, got, passed, data in self.verdicts:
            rows.append((workload, variant, expected, got, "yes" if passed else "NO", data))
            failed += not passed
        if self.captures:
            # A capture reports dropped records only when there are some.
            dropped = [(count, where) for count, where in self.dropped if count > 0]
            got = f"{max(dropped)[0]} in {max(dropped)[1]}" if dropped else "none reported"
            rows.append(("dropped records", f"{self.captures} captures", "0", got, "NO" if dropped else "yes", "-"))
            failed += bool(dropped)
        lines += table(rows)

        if overhead is not None:
            rows = [("ratio", "value", "target", "pass")]
            for loop, num, den, target in TARGETS:
                value = ratio(overhead, loop, num, den)
                passed = value is not None and value <= target
                shown = f"{value:.3f}" if value is not None else "not measured"
                rows.append((f"{loop}: {num} / {den}", shown, f"<= {target:.2f}", "yes" if passed else "NO"))
                failed += not passed
            for loop, num, den in INFO_RATIOS:
                value = ratio(overhead, loop, num, den)
                if value is not None:
                    rows.append((f"{loop}: {num} / {den}", f"{value:.3f}", "-", "info"))
            lines += [""] + table(rows)
            times = [f"{loop}: {format_medians(medians)}" for loop, medians in overhead.items()]
            lines += ["", "median step times (torch: step_ms, cuda: step_us):"] + ["  " + t for t in times]
        lines += ["", f"{failed} check(s) failed; {self.runs} runs in {self.elapsed():.0f} s; logs in {self.args.work_dir}"]
        print("\n".join(lines), flush=True)
        return failed


# ---- pure helpers (no GPU needed)

def describe_pair(hazard):
    def side(s):
        return s["name"] if s["name"].startswith(s["op"]) else f"{s['op']} {s['name'] or '*'}"
    return f"{side(hazard['first'])} -> {side(hazard['second'])}"


def side_matches(want, got):
    # Kernels: the full name; copies (no name): their title, "memcpy D2H".
    return got.get("op") == want["op"] and want["name"] in (got.get("name") or got.get("display_name", ""))


def shown_groups(result):
    return [g for g in result.get("groups", [])
            if g.get("shown") and not g.get("suppressed") and g.get("confidence") in ("definite", "likely")]


def judge(result, hazard):
    """(what check found, passed) for one check JSON against one expected hazard or None."""
    groups = shown_groups(result)

    def pair(group):
        h = group["hazard"]
        return f"{group['confidence']} {h['kind']} {h['first']['display_name']} -> {h['second']['display_name']}"

    if hazard is None:
        if not groups:
            return "no hazard", True
        return f"{len(groups)} group(s), first: {pair(groups[0])}", False
    for group in groups:
        h = group["hazard"]
        if side_matches(hazard["first"], h["first"]) and side_matches(hazard["second"], h["second"]):
            return pair(group), True
    if not groups:
        counts = result.get("hazard_counts", {})
        return f"no definite/likely hazard ({counts.get('possible', 0)} possible)", False
    return f"other: {pair(groups[0])}", False


def dropped_counts(output):
    """Every dropped-record count a capture or `racetrack info` printed."""
    counts = []
    for line in output.lower().splitlines():
        if "dropped" not in line:
            continue
        for pattern in (r"dropped[\sa-z_-]*[:=]?\s*(\d+)", r"(\d+)\s+(?:[a-z-]+\s+){0,2}dropped"):
            counts += [int(m) for m in re.findall(pattern, line)]
    return counts


def written_trace(output, requested):
    """The trace a capture wrote: the requested path, or the first one the launcher names
    (it inserts .PID or .rankN when several processes share the name)."""
    if os.path.exists(requested):
        return requested
    named = re.findall(r"^racetrack capture: (/\S+): \d+ ops", output, re.MULTILINE)
    return named[0] if named and os.path.exists(named[0]) else None


def step_time(output):
    found = re.findall(r"^step_(?:ms|us)=([0-9.]+)\s*$", output, re.MULTILINE)
    return float(found[-1]) if found else None


def data_verdict(output):
    if "CORRUPTED" in output:
        return "corrupted"
    if "intact" in output:
        return "intact"
    return "-"


def format_medians(medians):
    return ", ".join(f"{config} {value:.3f}" for config, value in medians.items()) or "not measured"


def ratio(overhead, loop, num, den):
    medians = overhead.get(loop, {})
    if num not in medians or not medians.get(den):
        return None
    return medians[num] / medians[den]




def failure_line(output):
    """The program's own last words, rather than the launcher's summary."""
    lines = [line for line in output.strip().splitlines()
             if line.strip() and not line.startswith("racetrack capture:")]
    return lines[-1][:120] if lines else (last_line(output) or "(no output)")




def torch_works(python, runner):
    rc, output = runner.run([python, "-c", "import torch; assert torch.cuda.is_available(); print(torch.__version__)"],
                            "torch-probe", timeout=120)
    runner.log(f"PyTorch: {last_line(output)}" if rc == 0 else f"no usable PyTorch: {last_line(output)}")
    return rc == 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sections", default=",".join(SECTIONS), help="comma list of " + ", ".join(SECTIONS))
    parser.add_argument("--python", default=os.environ.get("PYTHON", sys.executable), help="Python with PyTorch")
    parser.add_argument("--work-dir", default="/tmp/racetrack-capture-checks", help="traces and logs")
    parser.add_argument("--budget-s", type=float, default=480,
                        help="seconds for everything: runs are cut off at this point, then the table is printed")
    parser.add_argument("--optional-reserve-s", type=float, default=60,
                        help="optional runs need this much budget left")
    parser.add_argument("--run-timeout-s", type=float, default=180, help="limit for one run")
    parser.add_argument("--repeats", type=int, default=3, help="runs per overhead configuration (median)")
    args = parser.parse_args()
    sections = set(args.sections.split(","))
    if not sections <= set(SECTIONS) or args.repeats < 1:
        parser.error(f"--sections takes {', '.join(SECTIONS)}; --repeats must be positive")
    for needed in (RACETRACK, EXPECTED):
        if not os.path.exists(needed):
            parser.error(f"{needed} not found: run from the bundle root (scripts/gpu-bundle.sh)")

    runner = Runner(args)
    runner.torch_ok = bool(sections - {"cuda"}) and torch_works(args.python, runner)
    runner.check_workloads(optional=False, cuda="cuda" in sections, torch="torch" in sections)
    overhead = runner.overhead() if "overhead" in sections else None
    if "torch-hazards" in sections:
        runner.check_workloads(optional=True, cuda=False, torch=True)
    sys.exit(1 if runner.report(overhead) else 0)


if __name__ == "__main__":
    main()
