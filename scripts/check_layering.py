#!/usr/bin/env python3
"""Fails when a file of src/<folder>/ includes a header of a folder its library does not link.

Each folder's library declares what it builds on in src/<folder>/CMakeLists.txt (vedette_add_library(name
deps...) or target_link_libraries(vedette_name ... deps...)); a folder may include its own headers and those
of every folder it reaches through those declarations. The build runs this (the `layering` target), so a
wrong include fails the build with the file, line and the folder that is not declared.

    scripts/check_layering.py src
"""
import os
import re
import sys

DECLARATION = re.compile(r"(?:vedette_add_library\(\s*(\w+)|target_link_libraries\(\s*vedette_(\w+))([^)]*)\)",
                         re.S)
INCLUDE = re.compile(r'^\s*#\s*include\s+"([A-Za-z_]+)/[^"]+"', re.M)


def declared(src):
    deps = {}
    for folder in sorted(os.listdir(src)):
        path = os.path.join(src, folder, "CMakeLists.txt")
        if not os.path.isfile(path):
            continue
        text = re.sub(r"#.*", "", open(path).read())
        for m in DECLARATION.finditer(text):
            name = m.group(1) or m.group(2)
            if name != folder:
                continue
            deps.setdefault(folder, set()).update(re.findall(r"\bvedette_(\w+)", m.group(3)))
        deps.setdefault(folder, set())
    return deps


def reachable(deps, folder):
    seen, todo = set(), [folder]
    while todo:
        f = todo.pop()
        for d in deps.get(f, ()):
            if d not in seen:
                seen.add(d)
                todo.append(d)
    return seen


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "src"
    deps = declared(src)
    errors = []
    for folder in sorted(deps):
        allowed = reachable(deps, folder) | {folder}
        for root, _, files in os.walk(os.path.join(src, folder)):
            for name in sorted(files):
                if not name.endswith((".cpp", ".hpp")):
                    continue
                path = os.path.join(root, name)
                text = open(path, errors="replace").read()
                for m in INCLUDE.finditer(text):
                    target = m.group(1)
                    if target in deps and target not in allowed:
                        line = text.count("\n", 0, m.start()) + 1
                        errors.append("%s:%d: includes %s/, but vedette_%s does not link vedette_%s "
                                      "(declare it in %s)" % (path, line, target, folder, target,
                                                              os.path.join(src, folder, "CMakeLists.txt")))
    for e in errors:
        print("error: " + e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
