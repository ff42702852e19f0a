#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CI stage: build and test the optional KF6 SyntaxHighlighting path inside a Debian 13 (trixie)
# chroot, since Debian 12 has no KF6. Needs root (debootstrap, chroot, mount). The chroot is kept in
# $KWB_TRIXIE_ROOT (default build-trixie/root) and reused when present.
# Runs the tests that need no PyTorch (torch is not installed in the chroot to keep the stage short).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
root=${KWB_TRIXIE_ROOT:-$here/build-trixie/root}
mirror=${KWB_DEBIAN_MIRROR:-http://deb.debian.org/debian}
packages="build-essential cmake ninja-build qt6-base-dev qt6-charts-dev qt6-svg-dev libqscintilla2-qt6-dev
          libkf6syntaxhighlighting-dev xvfb xauth python3 ca-certificates"

if [ "$(id -u)" -ne 0 ]; then echo "ci-trixie: needs root" >&2; exit 1; fi
command -v debootstrap >/dev/null || { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap; }

start=$(date +%s)
if [ ! -x "$root/usr/bin/cmake" ]; then
    rm -rf "$root"; mkdir -p "$root"
    echo "ci-trixie: debootstrap into $root"
    debootstrap --variant=minbase trixie "$root" "$mirror" >/dev/null
    echo "ci-trixie: installing packages"
    chroot "$root" /usr/bin/env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $packages >/dev/null
fi
echo "ci-trixie: chroot ready after $(( $(date +%s) - start )) s"

mkdir -p "$root/proc" "$root/src"
cleanup() { umount "$root/src" 2>/dev/null || true; umount "$root/proc" 2>/dev/null || true; }
trap cleanup EXIT
mount -t proc proc "$root/proc"
mount --bind "$here" "$root/src"

# A separate build folder inside the tree, so the host's build/ is untouched.
chroot "$root" /bin/bash -c '
    set -euo pipefail
    cd /src
    cmake -S . -B build-trixie/build -G Ninja -DCMAKE_BUILD_TYPE=Debug -DKWB_BUILD_PYTHON=OFF -DKWB_WERROR=ON \
          -DKWB_REQUIRE_KF6=ON > build-trixie/configure.log
    grep -E "KF6SyntaxHighlighting" build-trixie/configure.log || true
    cmake --build build-trixie/build -j "$(nproc)"
    cd build-trixie/build
    # Worker, evaluator and pipeline tests need PyTorch, which this stage does not install.
    ctest --output-on-failure -j 2 -E "pytest_|eval|pipeline|kwb_module"
'
echo "ci-trixie: done after $(( $(date +%s) - start )) s"
