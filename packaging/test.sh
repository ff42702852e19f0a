#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's second command: install what is needed, build, and run every test (ctest runs the
# Qt tests, the pytest files and the GUI smoke test under Xvfb). GPU tests skip with a message when
# there is no GPU. Screenshots of the GUI smoke test land in $KWB_SCREENSHOT_DIR (default build/screenshots).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/packaging/install-deps.sh"

# The Debian 13 chroot of the second stage is made (debootstrap, apt: mostly network and disk,
# 2-3 min alone) beside the host build, and waited for before ctest, whose timing tests must not
# share the CPUs with it. Not niced: at nice 10 its unpacking waited for the compilers and it took
# 10 min, longer than the build. Its output is shown when it is done; where it fails, the second
# stage tries again and reports why.
prepare_pid=
if [ "${KWB_SKIP_TRIXIE:-0}" != 1 ]; then
    mkdir -p "$here/build-trixie"
    "$here/packaging/ci-trixie.sh" --prepare >"$here/build-trixie/prepare.log" 2>&1 &
    prepare_pid=$!
    trap '[ -z "$prepare_pid" ] || kill "$prepare_pid" 2>/dev/null || true' EXIT
fi
# A unity build (several sources of a library compiled as one unit: the Qt headers parsed once, not per
# file; the libraries' compile time measured about halved) and, where it is installed, lld (one test
# executable linked in 0.7 s instead of 3.0 s with ld.bfd). Neither changes what is compiled or tested.
# -O1 without debug information (KWB_QUICK_BUILD) and no benchmark programs: a build for running the tests.
fast="-DCMAKE_UNITY_BUILD=ON -DKWB_QUICK_BUILD=ON -DKWB_BUILD_BENCH=OFF"
if command -v ld.lld >/dev/null; then
    for kind in EXE SHARED MODULE; do fast="$fast -DCMAKE_${kind}_LINKER_FLAGS=-fuse-ld=lld"; done
fi
KWB_CMAKE_ARGS="$fast ${KWB_CMAKE_ARGS:-} -DKWB_WERROR=ON" "$here/packaging/build.sh"
if [ -n "$prepare_pid" ]; then
    prepare_rc=0
    wait "$prepare_pid" || prepare_rc=$?
    prepare_pid=
    sed 's/^/test: /' "$here/build-trixie/prepare.log"
    echo "test: Debian 13 chroot preparation exit $prepare_rc"
fi
build=${KWB_BUILD_DIR:-$here/build}
export KWB_SCREENSHOT_DIR=${KWB_SCREENSHOT_DIR:-$build/screenshots}
mkdir -p "$KWB_SCREENSHOT_DIR"
# Runs and caches made by tests stay inside the build tree.
export XDG_CACHE_HOME="$build/test-cache"
export KWB_RUNS_DIR="$build/test-runs"
(cd "$build" && ctest --output-on-failure -j "${KWB_TEST_JOBS:-2}" "$@")

# Second stage: the optional KF6 SyntaxHighlighting path, built and tested in a Debian 13 chroot
# (Debian 12 has no KF6). Skipped, with the reason, where it cannot be set up (no root, no mirror)
# or when KWB_SKIP_TRIXIE=1; a build or test failure there fails this command.
if [ "${KWB_SKIP_TRIXIE:-0}" = 1 ]; then
    echo "test: Debian 13 / KF6 stage skipped (KWB_SKIP_TRIXIE=1)"
else
    rc=0
    "$here/packaging/ci-trixie.sh" || rc=$?
    if [ $rc -eq 77 ]; then
        echo "test: Debian 13 / KF6 stage SKIPPED: it could not be set up on this machine (see above)"
    elif [ $rc -ne 0 ]; then
        echo "test: Debian 13 / KF6 stage FAILED" >&2
        exit $rc
    fi
fi
