"""What the GPU check scripts share: commands run under one time budget, each
with its output kept in WORK_DIR/NNN-label.log, and the table printed last."""

import os
import subprocess
import time


class BudgetedRunner:
    """args needs budget_s, run_timeout_s and work_dir."""

    def __init__(self, args):
        self.args = args
        self.start = time.monotonic()
        self.runs = 0
        os.makedirs(args.work_dir, exist_ok=True)

    def elapsed(self):
        return time.monotonic() - self.start

    def remaining(self):
        return self.args.budget_s - self.elapsed()

    def log(self, text):
        print(f"[{self.elapsed():5.0f}s] {text}", flush=True)

    def execute(self, command, label, env=None, timeout=None, merge_stderr=False):
        """Runs a command within the budget; returns (rc, stdout, stderr), with
        stderr folded into stdout when merge_stderr. 125: not run, 124: timed out."""
        self.runs += 1
        path = os.path.join(self.args.work_dir, f"{self.runs:03d}-{label}.log")
        if self.remaining() < 5:
            return 125, "", "[not run: the time budget is spent]\n"
        limit = min(timeout or self.args.run_timeout_s, self.remaining())
        stderr = subprocess.STDOUT if merge_stderr else subprocess.PIPE
        try:
            done = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=stderr, timeout=limit,
                                  check=False)
            rc, out = done.returncode, done.stdout.decode(errors="replace")
            err = (done.stderr or b"").decode(errors="replace")
        except subprocess.TimeoutExpired as stopped:
            rc, out = 124, (stopped.stdout or b"").decode(errors="replace")
            err = f"\n[timed out after {limit:.0f} s]\n"
        except OSError as error:
            rc, out, err = 127, "", f"{error}\n"
        with open(path, "w") as log:
            log.write(" ".join(command) + "\n" + out + ("" if merge_stderr else "\n--- stderr\n") + err)
        return rc, out, err


def last_line(output):
    """The last non-empty line, cut to 120 characters; "" when there is none."""
    lines = [line for line in output.strip().splitlines() if line.strip()]
    return lines[-1][:120] if lines else ""


def table(rows):
    """Rows of cells as aligned text lines, a rule under the first (the header)."""
    widths = [max(len(str(row[i])) for row in rows) for i in range(len(rows[0]))]
    out = []
    for index, row in enumerate(rows):
        out.append(" | ".join(str(cell).ljust(width) for cell, width in zip(row, widths)).rstrip())
        if index == 0:
            out.append("-+-".join("-" * width for width in widths))
    return out
