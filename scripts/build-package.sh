#!/usr/bin/env bash
# Builds the Debian package with Debian's own tools (dpkg-buildpackage, debhelper) from a copy of the
# source tree, and checks it with lintian:
#   scripts/build-package.sh [OUT_DIR]     (default build/package; the .deb and lintian.txt land there)
# Needs `scripts/install-deps.sh package`. A ccache on the PATH is used when there is one.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-build/package}")
work="$out/tree"
rm -rf "$work"
mkdir -p "$work/vedette"
# Tracked and untracked-but-not-ignored files: what a clone would have, plus local changes.
git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$work/vedette"
if command -v ccache >/dev/null; then export CMAKE_CXX_COMPILER_LAUNCHER=ccache; fi
(cd "$work/vedette" && DEB_BUILD_OPTIONS="parallel=$(nproc) nocheck" dpkg-buildpackage -b -us -uc >"$out/build.log" 2>&1) || {
  tail -n 40 "$out/build.log" >&2
  exit 1
}
deb=$(ls "$work"/vedette_*.deb)
cp "$deb" "$out/"
# Errors fail the build; warnings are listed (each is fixed or argued in debian/vedette.lintian-overrides).
lintian --fail-on error --info "$out/$(basename "$deb")" | tee "$out/lintian.txt"
echo "package: $out/$(basename "$deb")"
