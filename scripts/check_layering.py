#!/usr/bin/env python3
"""Fails when a file of a library's folder includes a header of a library it does not link.

A library is a folder under src/ whose CMakeLists.txt declares it: vedette_add_library(name deps...) or
target_link_libraries(vedette_name ... deps...), the name being the folder's path with '/' as '_'
(src/engine/checks/ declares engine_checks). Folders nest: src/engine/ is the library engine, and its
sub-folders with their own CMakeLists.txt (the engine's rooms) are libraries of their own; a folder
without one (src/livestatus/tables/) belongs to the library above it. A file belongs to the deepest
library folder holding it, and so does a header it includes ("engine/checks/x.hpp" is engine_checks',
"engine/core.hpp" engine's). A library may include its own headers and those of every library it reaches
through its declarations. The build runs this (the `layering` target), so a wrong include fails the build
with the file, line and the library that is not declared.

    scripts/check_layering.py src
"""
import os
import re
import sys

DECLARATION = re.compile(r"(?:vedette_add_library\(\s*(\w+)|target_link_libraries\(\s*vedette_(\w+))([^)]*)\)",
                         re.S)
INCLUDE = re.compile(r'^\s*#\s*include\s+"([A-Za-z_][A-Za-z0-9_/]*)/[^"/]+"', re.M)


def declared(src):
    """Library folder (relative to src, '/'-separated) -> (library name, the library names it declares)."""
    libs = {}
    for root, dirs, files in os.walk(src):
        dirs.sort()
        rel = os.path.relpath(root, src).replace(os.sep, "/")
        if rel == "." or "CMakeLists.txt" not in files:
            continue
        name = rel.replace("/", "_")
        text = re.sub(r"#.*", "", open(os.path.join(root, "CMakeLists.txt")).read())
        deps = set()
        for m in DECLARATION.finditer(text):
            if (m.group(1) or m.group(2)) == name:
                deps.update(re.findall(r"\bvedette_(\w+)", m.group(3)))
        libs[rel] = (name, deps)
    return libs


def owner(libs, folder):
    """The library folder a folder (relative to src) belongs to: the deepest library folder holding it."""
    parts = folder.split("/")
    for n in range(len(parts), 0, -1):
        candidate = "/".join(parts[:n])
        if candidate in libs:
            return candidate
    return None


def reachable(deps, name):
    seen, todo = set(), [name]
    while todo:
        for d in deps.get(todo.pop(), ()):
            if d not in seen:
                seen.add(d)
                todo.append(d)
    return seen


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "src"
    libs = declared(src)
    deps = {name: d for name, d in libs.values()}
    errors = []
    for folder in sorted(libs):
        name = libs[folder][0]
        allowed = reachable(deps, name) | {name}
        for root, dirs, files in os.walk(os.path.join(src, folder)):
            dirs.sort()
            rel = os.path.relpath(root, src).replace(os.sep, "/")
            if owner(libs, rel) != folder:
                continue  # a nested library's own files: checked as that library
            for file in sorted(files):
                if not file.endswith((".cpp", ".hpp")):
                    continue
                path = os.path.join(root, file)
                text = open(path, errors="replace").read()
                for m in INCLUDE.finditer(text):
                    target_folder = owner(libs, m.group(1))
                    if target_folder is None:
                        continue  # not one of ours (<fmt/format.h> style paths in quotes)
                    target = libs[target_folder][0]
                    if target not in allowed:
                        line = text.count("\n", 0, m.start()) + 1
                        errors.append("%s:%d: includes %s/, but vedette_%s does not link vedette_%s "
                                      "(declare it in %s)" % (path, line, target_folder, name, target,
                                                              os.path.join(src, folder, "CMakeLists.txt")))
    for e in errors:
        print("error: " + e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
