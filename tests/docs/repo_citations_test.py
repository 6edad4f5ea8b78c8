#!/usr/bin/env python3
"""The repository cites only what it contains.

1. No tracked file points at the design notes that live outside the
   repository (the `shared` folder beside a checkout, or the notes' own
   names): users do not have them. Their content is in docs/.
2. Every relative link of README.md and docs/*.md names an existing file
   (and, with #anchor, one of its headings).
3. Every "docs/NAME.md §N" (or §N.M) citation anywhere names an existing
   page with a heading numbered N (or N.M).
"""
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
SELF = os.path.relpath(os.path.abspath(__file__), ROOT)

# Spelled in pieces so that this file does not cite them itself.
OUT_OF_REPO = ["../" + "shared/", "/work/" + "shared"] + [
    name + ".md" for name in ("DESIGN", "OFFLOAD" + "_HAZARDS", "CUPTI" + "_NOTES", "VIEWER" + "_NOTES",
                              "SASS" + "_NOTES", "HAZARD" + "_CATALOGUE")
] + ["CUPTI" + "_NOTES §", "OFFLOAD" + "_HAZARDS", "HAZARD" + "_CATALOGUE"]

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
SECTION_CITE = re.compile(r"docs/([\w.-]+\.md),? §(\d+(?:\.\d+)?)")


def tracked_files():
    try:
        out = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], capture_output=True, check=True).stdout
        return [f for f in out.decode().split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for dirpath, dirnames, filenames in os.walk(ROOT):
            dirnames[:] = [d for d in dirnames if d != ".git" and not d.startswith("build")]
            files += [os.path.relpath(os.path.join(dirpath, f), ROOT) for f in filenames]
        return files


def read_text(path):
    try:
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            return f.read()
    except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
        return None


def headings(page):
    text = read_text(os.path.join("docs", page)) or ""
    return {m.group(1) for m in re.finditer(r"^#+\s+(\d+(?:\.\d+)?)\.?\s", text, re.M)}


def slugs(page):
    """The anchors GitHub gives a page's headings."""
    text = read_text(page) or ""
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
            for h in re.findall(r"^#+\s+(.*)$", text, re.M)}


def main():
    failures = []
    files = tracked_files()
    section_cache = {}
    for path in files:
        text = read_text(path)
        if text is None or path == SELF:
            continue
        for number, line in enumerate(text.split("\n"), 1):
            for name in OUT_OF_REPO:
                if name in line:
                    failures.append(f"{path}:{number}: cites {name!r}, which is not in the repository: {line.strip()}")
            for m in SECTION_CITE.finditer(line):
                page, section = m.group(1), m.group(2)
                if not os.path.isfile(os.path.join(ROOT, "docs", page)):
                    failures.append(f"{path}:{number}: cites docs/{page}, which does not exist")
                    continue
                found = section_cache.setdefault(page, headings(page))
                if section not in found:
                    failures.append(f"{path}:{number}: cites docs/{page} §{section}, which has no such section")

    pages = ["README.md"] + [f for f in files if re.fullmatch(r"docs/[^/]+\.md", f)]
    for page in pages:
        text = read_text(page) or ""
        for number, line in enumerate(text.split("\n"), 1):
            for m in LINK.finditer(line):
                target, _, anchor = m.group(1).partition("#")
                if re.match(r"[a-z]+:", target):
                    continue  # a URL
                resolved = os.path.normpath(os.path.join(os.path.dirname(page), target)) if target else page
                if not os.path.exists(os.path.join(ROOT, resolved)):
                    failures.append(f"{page}:{number}: link to {target}: no such file ({resolved})")
                elif anchor and resolved.endswith(".md") and anchor not in slugs(resolved):
                    failures.append(f"{page}:{number}: link to {m.group(1)}: no such heading in {resolved}")

    print(f"{len(files)} tracked files scanned for out-of-repository citations; "
          f"{len(pages)} pages' links checked")
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
