#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""symbol_prefixes.py - whether every global symbol of the core library
carries its module's prefix (issue 29: "global symbols of the core library get
module prefixes").

A module is a folder of src/. A global (non-static) function or variable
defined in src/MODULE/FILE.c is named MODULE_..., FILE_... (a file of a
module may be its own sub-module, as util/strbuf.c's strbuf_ or
page/journal.c's journal_, with a public header named after it), or with one
of the aliases ALIASES lists for the module, each with its reason.

It reads the objects a CMake build made of the library (nm on
BUILD/CMakeFiles/diskproof_core.dir/src/MODULE/FILE.c.o, and the generated
builtin_profiles.c.o as profile's) and prints every symbol outside its
prefixes, one per line as "MODULE/FILE.c SYMBOL". Exit 0 when there is none,
1 when there are, 2 when the build has no objects or nm fails.

Run by ctest in tests/integration/test_tree_shape.sh, which also plants a
symbol without its prefix and checks that this script names it.

  python3 tests/symbol_prefixes.py --build build [--all]

--all lists the symbols outside the strict module prefix (MODULE_ only) too,
as the strict reading of the issue would rename them.
"""
import argparse
import os
import subprocess
import sys

# module -> {prefix: why}, beyond MODULE_ and FILE_
ALIASES = {
    "workload": {"wl_": "the generator contract's prefix (docs/architecture.md)"},
    "report": {"html_": "the html*.c files share html.h, the HTML pages' own header"},
    "util": {
        "unit_": "units.c: one unit (unit_parse_size, unit_format_duration)",
        "file_": "fileopen.c: include/diskproof/fileopen.h's file_open_checked",
    },
}

LIB_DIR = os.path.join("CMakeFiles", "diskproof_core.dir")


def objects(build):
    """(module, file.c, path of its object) of every object of the library."""
    src = os.path.join(build, LIB_DIR, "src")
    if not os.path.isdir(src):
        return []
    out = []
    for module in sorted(os.listdir(src)):
        mdir = os.path.join(src, module)
        for name in sorted(os.listdir(mdir)):
            if name.endswith(".c.o"):
                out.append((module, name[:-2], os.path.join(mdir, name)))
    gen = os.path.join(build, LIB_DIR, "builtin_profiles.c.o")
    if os.path.exists(gen):
        out.append(("profile", "builtin_profiles.c", gen))
    return out


def globals_of(path):
    """The global symbols an object defines (functions, data, bss, rodata)."""
    res = subprocess.run(["nm", "-g", "--defined-only", path], capture_output=True,
                         text=True, check=True)
    syms = []
    for line in res.stdout.splitlines():
        parts = line.split()
        # names that begin with "__" are the compiler's or a sanitizer's
        # (ASan's __odr_asan.NAME), not ours
        if len(parts) == 3 and parts[1] in "TDBRCGSV" and not parts[2].startswith("__"):
            syms.append(parts[2])
    return syms


def allowed(module, cfile, sym, strict):
    prefixes = [module + "_"]
    if not strict:
        prefixes.append(cfile[:-2] + "_")
        prefixes.extend(ALIASES.get(module, {}))
    return any(sym.startswith(p) for p in prefixes)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--all", action="store_true",
                    help="the strict reading: MODULE_ only")
    a = ap.parse_args()
    objs = objects(a.build)
    if not objs:
        print("no objects of diskproof_core under %s" % a.build, file=sys.stderr)
        return 2
    bad = 0
    for module, cfile, path in objs:
        try:
            syms = globals_of(path)
        except (OSError, subprocess.CalledProcessError) as e:
            print("nm %s: %s" % (path, e), file=sys.stderr)
            return 2
        for sym in syms:
            if not allowed(module, cfile, sym, a.all):
                print("%s/%s %s" % (module, cfile, sym))
                bad += 1
    print("%d symbol(s) without their prefix" % bad, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
