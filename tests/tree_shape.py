#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tree_shape.py - the source tree's layering and size rules, read from
docs/architecture.md and checked against src/ and include/ (called by
tests/integration/test_tree_shape.sh):

  layers     every #include crossing folders follows the "Layers" table of
             docs/architecture.md (a folder includes only the folders its
             row names, each in a row above it), and no two folders form a
             circle;
  functions  no function in src/ is over 120 lines, counted from its first
             line to its closing brace as universal-ctags reports them,
             except those in tests/long_functions.txt, a list that may only
             shrink (a listed function now at most 120 lines fails too);
  named      every file in src/ is named in its folder's row of the
             "Modules and files" table, and every folder has a row;
  headers    every header (include/ and src/) compiles alone, twice in a
             row, with the project's flags (compile_commands.json of the
             build: the command of a file of the same folder) and
             -fsyntax-only;
  names      each public header (include/diskproof/) is named after the
             folder that defines its functions or after a .c file there.

Usage: tree_shape.py --source DIR [--build DIR] [--only CHECK,...]
Exit 0: every rule holds; 1: one is broken (each on stderr as "FAIL: ...");
77: universal-ctags is missing (the function and header-owner checks need it).
"""
import argparse
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

LIMIT = 120
CHECKS = ("layers", "functions", "named", "headers", "names")
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg, file=sys.stderr)


def ctags(files, kinds):
    """(name, line, end, file) of each tag of the given C kinds."""
    if not files:
        return []
    out = subprocess.run(
        ["ctags", "-x", "--_xformat=%N %n %{end} %F", "--kinds-C=" + kinds, "--languages=C",
         "--langmap=C:.c.h"] + files, check=True, capture_output=True, text=True).stdout
    tags = []
    for line in out.splitlines():
        name, start, end, path = line.split(" ", 3)
        tags.append((name, int(start), int(end) if end.isdigit() else None, path))
    return tags


def md_table(text, heading):
    """The rows (lists of cells) of the first table after a heading."""
    m = re.search(r"^#+ " + re.escape(heading) + r".*$", text, re.M)
    if not m:
        return None
    rows, started = [], False
    for line in text[m.end():].splitlines():
        if line.startswith("|"):
            started = True
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(re.fullmatch(r":?-+:?", c) for c in cells):
                rows.append(cells)
        elif started:
            break
    return rows[1:]  # the header row is not a rule


def ticked(cell):
    return re.findall(r"`([^`]+)`", cell)


class Tree:
    def __init__(self, src):
        self.root = src
        os.chdir(src)
        self.folders = sorted(d for d in os.listdir("src") if os.path.isdir("src/" + d))
        self.cfiles = sorted(glob.glob("src/*/*.c"))
        self.headers = sorted(glob.glob("include/diskproof/*.h") + glob.glob("src/*/*.h"))
        self.doc = open("docs/architecture.md", encoding="utf-8").read()
        self._owners = None

    def owners(self):
        """Public header -> (folder that defines most of its functions, or
        the folder or .c file it is named after when it declares none; the
        .c files defining them)."""
        if self._owners is not None:
            return self._owners
        defined = {}
        for name, _, _, path in ctags(self.cfiles, "f"):
            defined.setdefault(name, set()).add(path)
        self._owners = {}
        for h in glob.glob("include/diskproof/*.h"):
            base = os.path.basename(h)[:-2]
            votes, files = {}, set()
            for name, _, _, _ in ctags([h], "p"):
                for path in defined.get(name, ()):
                    folder = path.split("/")[1]
                    votes[folder] = votes.get(folder, 0) + 1
                    files.add(path)
            if votes:
                best = max(votes.values())
                tops = sorted(f for f, v in votes.items() if v == best)
                owner = base if base in tops else tops[0]
            elif base in self.folders:
                owner = base
            else:
                named = [c.split("/")[1] for c in self.cfiles if os.path.basename(c) == base + ".c"]
                owner = named[0] if len(named) == 1 else None
            self._owners[h] = (owner, files)
        return self._owners

    def folder_of(self, path):
        if path.startswith("src/"):
            return path.split("/")[1]
        return self.owners().get(path, (None, None))[0]


def include_edges(t):
    """(from folder, to folder) -> the includes that make it."""
    edges = {}
    for f in t.cfiles + t.headers:
        src = t.folder_of(f)
        for m in re.finditer(r'^\s*#\s*include\s+"([^"]+)"', open(f).read(), re.M):
            inc = m.group(1)
            if inc.startswith("diskproof/"):
                target = "include/" + inc
            else:
                target = os.path.normpath(os.path.join(os.path.dirname(f), inc))
            dst = t.folder_of(target) if os.path.exists(target) else None
            if src is None or dst is None:
                fail("%s: #include \"%s\": cannot tell which folder it belongs to" % (f, inc))
            elif src != dst:
                edges.setdefault((src, dst), []).append('%s: #include "%s"' % (f, inc))
    return edges


def circles(edges):
    """Each circle of folders, as a path a -> ... -> a (Tarjan's components)."""
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
    index, low, stack, on, comps = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return comps


def check_layers(t):
    rows = md_table(t.doc, "Layers")
    if rows is None:
        fail('docs/architecture.md: no "Layers" table (who may include whom)')
        return
    allowed, order = {}, []
    for cells in rows:
        names = ticked(cells[0])
        if len(cells) < 2 or len(names) != 1:
            fail("docs/architecture.md: Layers: a row is not | `folder` | `folder`, ... |")
            continue
        folder, may = names[0], ticked(cells[1])
        for m in may:
            if m not in order:
                fail("docs/architecture.md: Layers: %s may include %s, which is not in a row above it"
                     % (folder, m))
        allowed[folder] = set(may)
        order.append(folder)
    for f in t.folders:
        if f not in allowed:
            fail("docs/architecture.md: Layers: src/%s/ has no row" % f)
    edges = include_edges(t)
    for (a, b), where in sorted(edges.items()):
        if a in allowed and b not in allowed[a]:
            above = a in order and b in order and order.index(b) > order.index(a)
            fail("%s includes %s (%s), which its row in docs/architecture.md's Layers table "
                 "does not allow%s" % (a, b, where[0], ": %s is above it" % b if above else ""))
    for comp in circles(edges):
        links = ["%s (%s)" % ("%s -> %s" % (a, b), edges[(a, b)][0])
                 for a in comp for b in comp if (a, b) in edges]
        fail("a circle of folders: %s: %s" % (", ".join(comp), "; ".join(links)))
    for a in sorted(allowed):
        for b in sorted(allowed[a]):
            if (a, b) not in edges:
                print("note: %s may include %s but does not" % (a, b))


def check_functions(t, listfile):
    listed = {}
    for n, line in enumerate(open(listfile), 1):
        line = line.split("#", 1)[0].strip()
        if line:
            path, name = line.split()
            listed[(path, name)] = n
    seen = set()
    for name, start, end, path in ctags(t.cfiles + t.headers, "f"):
        if end is None:
            fail("%s:%d: %s: ctags reports no end" % (path, start, name))
            continue
        lines = end - start + 1
        seen.add((path, name))
        if lines > LIMIT and (path, name) not in listed:
            fail("%s:%d: %s is %d lines (at most %d; split it, do not list it in %s)"
                 % (path, start, name, lines, LIMIT, os.path.relpath(listfile)))
        elif lines <= LIMIT and (path, name) in listed:
            fail("%s:%d: %s is %d lines now: take it off %s (the list only shrinks)"
                 % (path, start, name, lines, os.path.relpath(listfile)))
    for (path, name), n in sorted(listed.items()):
        if (path, name) not in seen:
            fail("%s:%d: %s %s: no such function any more: take it off the list"
                 % (os.path.relpath(listfile), n, path, name))


def check_named(t):
    rows = md_table(t.doc, "Modules and files")
    if rows is None:
        fail('docs/architecture.md: no "Modules and files" table')
        return
    cells = {}
    for r in rows:
        names = ticked(r[0])
        if names:
            cells[names[0]] = set(ticked(r[-1]))
    for folder in t.folders:
        if folder not in cells:
            fail("docs/architecture.md: Modules and files: src/%s/ has no row" % folder)
            continue
        for f in sorted(os.listdir("src/" + folder)):
            if f not in cells[folder]:
                fail("src/%s/%s is not named in its row of docs/architecture.md's "
                     "Modules and files table" % (folder, f))


def project_flags(build):
    """The compiler and flags of each folder's first file (and of any
    file), from compile_commands.json, without -o, -c and the source."""
    path = os.path.join(build or "", "compile_commands.json")
    if not build or not os.path.exists(path):
        fail("%s: missing (configure the build with CMake: CMAKE_EXPORT_COMPILE_COMMANDS)" % path)
        return None
    flags = {}
    for e in json.load(open(path)):
        m = re.search(r"(?:^|/)src/([^/]+)/[^/]+\.c$", e["file"])
        if not m:
            continue
        args = e.get("arguments") or shlex.split(e["command"])
        out, skip = [], False
        for a in args:
            if skip:
                skip = False
            elif a in ("-o", "-c"):
                skip = a == "-o"
            elif a == e["file"] or a.endswith(".c") or a.startswith("-fsanitize") or a == "-flto":
                continue
            else:
                out.append(a)
        if os.path.basename(out[0]) == "ccache":
            out = out[1:]
        flags.setdefault(m.group(1), (out, e["directory"]))
        flags.setdefault(None, (out, e["directory"]))
    return flags


def check_headers(t, build):
    flags = project_flags(build)
    if flags is None:
        return
    if not flags:
        fail("%s/compile_commands.json: no command compiles a file of src/" % build)
        return
    with tempfile.TemporaryDirectory() as tmp:
        tu = os.path.join(tmp, "alone.c")
        for h in t.headers:
            folder = h.split("/")[1] if h.startswith("src/") else t.folder_of(h)
            cmd, cwd = flags.get(folder) or flags[None]
            with open(tu, "w") as f:
                f.write('#include "%s"\n#include "%s"\n' % ((os.path.abspath(h),) * 2))
            r = subprocess.run(cmd + ["-fsyntax-only", tu], capture_output=True, text=True,
                               cwd=cwd)
            if r.returncode:
                lines = r.stderr.strip().splitlines()
                first = ([ln for ln in lines if "error" in ln] or lines or ["?"])[0]
                fail("%s does not compile alone: %s" % (h, first))


def check_names(t):
    for h, (owner, files) in sorted(t.owners().items()):
        base = os.path.basename(h)[:-2]
        if owner is None:
            fail("%s: declares no function of src/ and names no folder or .c file" % h)
            continue
        named = {os.path.basename(c)[:-2] for c in t.cfiles if c.split("/")[1] == owner}
        if base != owner and base not in named:
            fail("%s: named neither after its folder (src/%s/, which defines its functions: %s) "
                 "nor after a .c file there" % (h, owner, ", ".join(sorted(files))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    ap.add_argument("--build")
    ap.add_argument("--only", default=",".join(CHECKS))
    a = ap.parse_args()
    only = a.only.split(",")
    build = os.path.abspath(a.build) if a.build else None
    ver = subprocess.run(["ctags", "--version"], capture_output=True, text=True).stdout \
        if shutil.which("ctags") else ""
    if "Universal Ctags" not in ver:
        print("skip: universal-ctags is not installed", file=sys.stderr)
        return 77
    t = Tree(os.path.abspath(a.source))
    if "layers" in only:
        check_layers(t)
    if "functions" in only:
        check_functions(t, os.path.join(t.root, "tests", "long_functions.txt"))
    if "named" in only:
        check_named(t)
    if "headers" in only:
        check_headers(t, build)
    if "names" in only:
        check_names(t)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
