#!/usr/bin/env bash
# Builds the reference Naemon that Vedette's compatibility fixtures are generated with (objects.cache,
# status.dat under tests/fixtures/) and installs it into /opt/naemon-ref. A developer tool for
# regenerating fixtures; `make test` never runs it and the tests never need it.
#
#   scripts/naemon-reference.sh                  # naemon-core from the mirror's HEAD (git archive)
#   scripts/naemon-reference.sh ~/src/naemon-core   # from a source tree (copied; the tree is not touched)
#
# Environment: NAEMON_MIRROR (git dir, default /work/.mirror/naemon+naemon-core/repo), NAEMON_REF_PREFIX
# (default /opt/naemon-ref), NAEMON_REF_USER (default nagios: Naemon refuses to run as root, so the
# fixture scripts run it as this user), JOBS (default nproc).
# Writes $NAEMON_REF_PREFIX/SOURCE naming what was built (the mirror commit, or the source path).
set -euo pipefail

mirror=${NAEMON_MIRROR:-/work/.mirror/naemon+naemon-core/repo}
prefix=${NAEMON_REF_PREFIX:-/opt/naemon-ref}
user=${NAEMON_REF_USER:-nagios}
jobs=${JOBS:-$(nproc)}

# Debian packages Naemon's autotools build needs.
packages=(autoconf automake libtool gperf libglib2.0-dev pkg-config help2man make gcc git)
missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = "installed" ] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "naemon-reference: missing packages: ${missing[*]} (run as root, or install them)" >&2
    exit 1
  fi
  echo "naemon-reference: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The user the installed files belong to and the fixture scripts run Naemon as.
if ! id "$user" >/dev/null 2>&1; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "naemon-reference: user '$user' does not exist (run as root to create it)" >&2
    exit 1
  fi
  useradd --system --no-create-home --shell /usr/sbin/nologin "$user"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ $# -ge 1 ]; then
  src=$(cd "$1" && pwd)
  [ -x "$src/autogen.sh" ] || { echo "naemon-reference: $src has no autogen.sh" >&2; exit 1; }
  cp -a "$src/." "$work/"
  # A tree that was built before carries its configure results; start from the sources.
  [ -f "$work/Makefile" ] && make -C "$work" distclean >/dev/null 2>&1 || true
  source_note="source tree $src"
else
  commit=$(git --git-dir="$mirror" rev-parse HEAD)
  git --git-dir="$mirror" archive --format=tar HEAD | tar -x -C "$work"
  source_note="naemon-core $(git --git-dir="$mirror" describe --tags "$commit" 2>/dev/null || true) ($commit) from $mirror"
fi

echo "naemon-reference: building $source_note into $prefix"
cd "$work"
./autogen.sh --enable-silent-rules --prefix="$prefix" \
  --with-naemon-user="$user" --with-naemon-group="$(id -gn "$user")" >"$work/configure.log" 2>&1 ||
  { tail -30 "$work/configure.log" >&2; exit 1; }
make -j"$jobs" >"$work/make.log" 2>&1 || { tail -30 "$work/make.log" >&2; exit 1; }
make install >"$work/install.log" 2>&1 || { tail -30 "$work/install.log" >&2; exit 1; }
printf '%s\nbuilt %s\n' "$source_note" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" > "$prefix/SOURCE"
"$prefix/bin/naemon" --version | head -1
echo "naemon-reference: done; run it as '$user', e.g. runuser -u $user -- $prefix/bin/naemon -v <cfg>"
