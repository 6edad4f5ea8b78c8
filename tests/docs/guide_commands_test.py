#!/usr/bin/env python3
"""Runs every command of docs/guide.md and README.md and checks what they say.

A page's commands are the `$ ` lines of its ```console blocks (a line
ending in a backslash continues on the next). Each runs with bash, in order,
in a scratch directory per page that holds a copy of traces/samples/, with
the built `racetrack` first on PATH. Per command:

- the exit status must be the one the command's trailing `# exit N` comment
  states (0 when there is none);
- every output line shown under it must be a line of what it printed (stdout
  or stderr), compared without surrounding blanks; `...` inside a shown line
  matches any text, and a line that is only `...` stands for lines left out.

An HTML comment right before a block changes how it runs:

- `<!-- guide-test: instead COMMAND -->`: the block holds one command that
  cannot run here (a real `python train.py` under the capturer); COMMAND,
  its stand-in with the fake CUPTI of tests/capture/shim, runs instead and
  must meet the block's exit status and output. $SHIM_PROGRAM and
  $SHIM_FAKES name the stand-in program and the fakes' directory.
- `<!-- guide-test: needs-capture -->`: the block reads what a stand-in
  capture wrote; where the stand-in is not built (no CUDA toolkit with
  CUPTI), it is listed as not run with the capture blocks.
- `<!-- guide-test: not-run REASON -->`: the block is not run (a GPU, a
  display); the page must say so in its text. Such blocks are counted and
  listed in the summary.

Every `--flag` a page mentions must be an option of racetrack, one of its
subcommands or racetrack-viewer (or one of the few other tools' flags listed
in FOREIGN_FLAGS).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

FOREIGN_FLAGS = {
    "--nproc-per-node",  # torchrun
    "--steps",  # the example's train.py
    "--large",  # the benchmarks in bench/
}
DIRECTIVE = re.compile(r"<!--\s*guide-test:\s*(instead|not-run|needs-capture)\b\s*(.*?)\s*-->", re.S)
EXIT_COMMENT = re.compile(r"\s+#\s*exit\s+(\d+)\s*$")


class Block:
    def __init__(self, line, directive):
        self.line = line  # 1-based line of the opening fence
        self.directive = directive  # None, ("instead", cmd) or ("not-run", reason)
        self.commands = []  # [Command]


class Command:
    def __init__(self, line, text):
        self.line = line
        self.text = text
        self.expected_exit = 0
        self.expected_lines = []


def parse_guide(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    blocks, pending, i = [], None, 0
    while i < len(lines):
        line = lines[i]
        if line.strip().startswith("<!--"):
            comment = line
            while "-->" not in comment and i + 1 < len(lines):
                i += 1
                comment += "\n" + lines[i]
            m = DIRECTIVE.search(comment)
            if m:
                pending = (m.group(1), " ".join(m.group(2).split()))
            i += 1
            continue
        if line.strip() == "```console":
            block = Block(i + 1, pending)
            pending = None
            i += 1
            while i < len(lines) and lines[i].strip() != "```":
                text = lines[i]
                if text.startswith("$ "):
                    start = i + 1
                    command = text[2:]
                    while command.endswith("\\") and i + 1 < len(lines):
                        i += 1
                        command = command[:-1] + "\n" + lines[i]
                    cmd = Command(start, command)
                    m = EXIT_COMMENT.search(command)
                    if m:
                        cmd.expected_exit = int(m.group(1))
                    block.commands.append(cmd)
                elif block.commands and text.strip():
                    block.commands[-1].expected_lines.append(text.strip())
                i += 1
            if i == len(lines):
                sys.exit(f"{path}:{block.line}: console block never closed")
            blocks.append(block)
        i += 1
    return blocks


def line_matches(expected, actual_lines):
    if "..." in expected:
        pattern = re.compile(".*".join(re.escape(part) for part in expected.split("...")))
        return any(pattern.fullmatch(a) for a in actual_lines)
    return expected in actual_lines


def known_flags(racetrack, viewer):
    def help_of(argv):
        run = subprocess.run(argv, capture_output=True, text=True, timeout=60,
                             env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
        return run.stdout + run.stderr

    top = help_of([racetrack, "--help"])
    subcommands = re.findall(r"^\s{2}([a-z]+)\s{2,}", top.split("Subcommands:")[1], re.M)
    texts = [top] + [help_of([racetrack, s, "--help"]) for s in subcommands]
    if viewer:
        texts.append(help_of([viewer, "--help"]))
    flags = set()
    for t in texts:
        flags.update(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", t))
    return flags, subcommands


def run_page(page, args, flags, subcommands, env):
    """Runs the commands of one page; returns (failures, ran, substituted, not_run)."""
    failures = []
    blocks = parse_guide(page)
    if sum(len(b.commands) for b in blocks) < args.min_commands:
        failures.append(f"{page}: found only {sum(len(b.commands) for b in blocks)} commands")
    text = open(page, encoding="utf-8").read()
    for flag in sorted(set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", text))):
        if flag not in flags and flag not in FOREIGN_FLAGS:
            failures.append(f"{page}: {flag} is no option of racetrack {' '.join(subcommands)}")

    scratch = tempfile.mkdtemp(prefix="racetrack-guide-")
    shutil.copytree(os.path.join(args.source, "traces", "samples"), os.path.join(scratch, "traces", "samples"))
    ran = substituted = 0
    not_run = []
    for block in blocks:
        where = f"{page}:{block.line}"
        if not block.commands:
            failures.append(f"{where}: console block without a $ command")
            continue
        commands = block.commands
        kind = block.directive[0] if block.directive else None
        if kind == "not-run":
            not_run.append(f"{where}: {len(commands)} command(s) not run: {block.directive[1]}")
            continue
        if kind == "needs-capture" and not args.shim_program:
            not_run.append(f"{where}: not run: it reads a capture, and the capture stand-in is not built")
            continue
        if kind == "instead":
            if len(commands) != 1:
                failures.append(f"{where}: an 'instead' block must hold exactly one command")
                continue
            if not args.shim_program:
                not_run.append(f"{where}: not run: the capture stand-in (tests/capture/shim) is not built")
                continue
            stand_in = Command(commands[0].line, block.directive[1])
            stand_in.expected_exit = commands[0].expected_exit
            stand_in.expected_lines = commands[0].expected_lines
            commands = [stand_in]
            substituted += 1
        if not args.viewer and any(re.search(r"racetrack(-viewer)? view\b|racetrack-viewer", c.text) for c in commands):
            not_run.append(f"{where}: not run: racetrack-viewer is not built in this build")
            continue
        for cmd in commands:
            ran += 1
            try:
                run = subprocess.run(["bash", "-c", cmd.text], cwd=scratch, env=env, capture_output=True,
                                     text=True, timeout=300)
                code, out, err = run.returncode, run.stdout, run.stderr
            except subprocess.TimeoutExpired:
                code, out, err = "timeout", "", ""
            actual = [l.strip() for l in (out + "\n" + err).split("\n")]
            problems = []
            if code != cmd.expected_exit:
                problems.append(f"exit status {code}, the page says {cmd.expected_exit}")
            for expected in cmd.expected_lines:
                if expected != "..." and not line_matches(expected, actual):
                    problems.append(f"no output line matches: {expected}")
            if problems:
                failures.append(f"{page}:{cmd.line}: $ {cmd.text}\n  " + "\n  ".join(problems) +
                                f"\n  --- stdout:\n{out}  --- stderr:\n{err}")
    shutil.rmtree(scratch, ignore_errors=True)
    return failures, ran, substituted, not_run


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--page", action="append", required=True, help="a page whose commands to run (repeatable)")
    ap.add_argument("--min-commands", type=int, default=5, help="fewer commands on a page is an error")
    ap.add_argument("--source", required=True, help="the repository root")
    ap.add_argument("--racetrack", required=True)
    ap.add_argument("--viewer", default="", help="racetrack-viewer, when built")
    ap.add_argument("--shim-program", default="", help="tests/capture's stand-in CUDA program, when built")
    ap.add_argument("--shim-fakes", default="")
    args = ap.parse_args()
    for name in ("source", "racetrack", "viewer", "shim_program", "shim_fakes"):
        if getattr(args, name):
            setattr(args, name, os.path.abspath(getattr(args, name)))

    flags, subcommands = known_flags(args.racetrack, args.viewer)
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(os.path.abspath(args.racetrack)) + os.pathsep + env.get("PATH", "")
    env["RACETRACK_PROGRESS"] = "never"
    env["QT_QPA_PLATFORM"] = "offscreen"
    env["SHIM_PROGRAM"] = args.shim_program
    env["SHIM_FAKES"] = args.shim_fakes
    env["RACETRACK_CAPTURE_FLUSH_MS"] = "20"  # the stand-in program's runs are short

    all_failures = []
    for page in args.page:
        failures, ran, substituted, not_run = run_page(page, args, flags, subcommands, env)
        print(f"{page}: {ran} command(s) run ({substituted} through the capture stand-in), "
              f"{len(not_run)} block(s) not run")
        for n in not_run:
            print("  NOT RUN " + n)
        all_failures += failures
    for f in all_failures:
        print("FAIL " + f)
    return 1 if all_failures else 0


if __name__ == "__main__":
    sys.exit(main())
