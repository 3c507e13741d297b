#!/usr/bin/env python3
"""ctest of bench/results/: the committed benchmark results stay small and documented.

Checks that
  - bench/results/ holds less than 2 MB (the sum of its files' sizes), and
  - every file under bench/results/ is cited: its path (relative to bench/results/ or to the
    repository root) appears in a README.md under bench/results/ or in a page of docs/, or its
    file name appears, as a whole word, in the README.md of its own folder or of a folder above
    it (up to bench/results/) or in a page of docs/. A README cites itself.

  usage: bench/check_results.py [REPOSITORY_ROOT]      (default: this script's repository)
Prints what is wrong and exits 1; exits 0 when the tree is fine. Standard library only.
"""
import os
import re
import sys

LIMIT_BYTES = 2_000_000


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    results = os.path.join(root, "bench", "results")
    if not os.path.isdir(results):
        print(f"check_results: FAILED: no folder {results}")
        return 1

    files = []
    for dirpath, dirnames, filenames in os.walk(results):
        dirnames.sort()
        for name in sorted(filenames):
            files.append(os.path.join(dirpath, name))

    def read(path):
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()

    readmes = {os.path.dirname(f): read(f) for f in files if os.path.basename(f) == "README.md"}
    docs_text = ""
    docs = os.path.join(root, "docs")
    if os.path.isdir(docs):
        for dirpath, _, filenames in os.walk(docs):
            docs_text += "".join(read(os.path.join(dirpath, n)) + "\n"
                                 for n in sorted(filenames) if n.endswith(".md"))
    everything = docs_text + "\n".join(readmes.values())

    def named(name, text):
        # the name as a whole word: not part of a longer file name (a_b.json is not b.json)
        return re.search(r"(?<![\w.-])" + re.escape(name) + r"(?![\w-]|\.\w)", text) is not None

    def cited(path):
        rel = os.path.relpath(path, results).replace(os.sep, "/")
        if named(rel, everything) or named("bench/results/" + rel, everything):
            return True
        name = os.path.basename(path)
        if named(name, docs_text):
            return True
        folder = os.path.dirname(path)
        while True:  # the README of its folder or of a folder above it, up to bench/results
            if folder in readmes and named(name, readmes[folder]):
                return True
            if folder == results:
                return False
            folder = os.path.dirname(folder)

    problems = []
    total = sum(os.path.getsize(f) for f in files)
    if total >= LIMIT_BYTES:
        problems.append(f"bench/results holds {total / 1e6:.2f} MB in {len(files)} files: "
                        f"the limit is {LIMIT_BYTES / 1e6:.2f} MB (keep what the docs cite; "
                        "summarise long grids by their CSV)")
    for path in files:
        if os.path.basename(path) == "README.md" or cited(path):
            continue
        rel = os.path.relpath(path, results).replace(os.sep, "/")
        problems.append(f"bench/results/{rel} is not named in its campaign's README.md (or one "
                        "above it, or a page of docs/): cite it there, or remove it")

    for p in problems:
        print(f"check_results: FAILED: {p}")
    if problems:
        return 1
    print(f"check_results: {len(files)} files, {total / 1e6:.2f} MB, every one cited")
    return 0


if __name__ == "__main__":
    sys.exit(main())
