#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CI stage: build and test the optional KF6 SyntaxHighlighting path inside a Debian 13 (trixie)
# chroot, since Debian 12 has no KF6. Needs root (debootstrap, chroot, mount).
#
# The chroot lives in $KWB_TRIXIE_ROOT (default build-trixie/root) and is reused when it is complete;
# a missing or half-made one is rebuilt (measured: debootstrap 40-120 s + apt 75-110 s). The source tree is
# bind-mounted read-write at /src and built in build-trixie/build, so the host's build folders are
# untouched. Only what the stage tests is built, with -DKWB_REQUIRE_KF6=ON so a missing KF6 fails the
# stage instead of silently testing the fallback: the GUI library, the GUI executable and the CLI
# (so every shipped binary, the engine libraries under them included, compiles against Qt 6.8), and
# the tests of the GUI library (ctest label "ui", tests/ui) that need no PyTorch (torch is not
# installed in the chroot, to keep the stage short): the KF6 highlight tests, the views and the main
# window, which show code and Markdown through the KF6 highlighters on this build, and the
# real-window smoke test under Xvfb. The engine's own tests (tests/core) do not touch KF6 or a
# widget; the host stage runs them, and the chroot only compiles the engine.
#
# Environment: KWB_TRIXIE_ROOT, KWB_DEBIAN_MIRROR, KWB_TRIXIE_JOBS (default: nproc), KWB_TRIXIE_WERROR
# (default ON: Qt 6.8 deprecations fail the stage),
# KWB_TRIXIE_CMAKE_ARGS (extra configure arguments), KWB_TRIXIE_LABEL (ctest -L regex of the tests
# that run, default ^ui$; empty: every test not excluded), KWB_TRIXIE_EXCLUDE (ctest -E regex of the
# tests that need PyTorch or the worker; override when tests are renamed).
#
# `ci-trixie.sh --prepare` only makes the chroot (debootstrap, apt: mostly network and disk) and
# exits; packaging/test.sh runs it beside the host build, and the full run then reuses the chroot.
set -euo pipefail
prepare_only=0
if [ "${1:-}" = --prepare ]; then prepare_only=1; fi
here=$(cd "$(dirname "$0")/.." && pwd)
root=${KWB_TRIXIE_ROOT:-$here/build-trixie/root}
mirror=${KWB_DEBIAN_MIRROR:-http://deb.debian.org/debian}
jobs=${KWB_TRIXIE_JOBS:-$(nproc)}
werror=${KWB_TRIXIE_WERROR:-ON}
extra_cmake_args=${KWB_TRIXIE_CMAKE_ARGS:-}
label=${KWB_TRIXIE_LABEL-'^ui$'}
# Tests that start the Python worker (PyTorch) or the pipeline over it; the others of the label run.
exclude=${KWB_TRIXIE_EXCLUDE:-'^(python_|pytest_|packaging_)|^tst_eval(uator|limits|security|cli)$|^tst_gpulock|^tst_gatedrun|^tst_pipeline_(e2e|replay|gates|resume|cli|real)|^tst_lanepool|^tst_suite_(cli|slurm)|^tst_suiteview'}
packages="build-essential cmake ninja-build qt6-base-dev qt6-charts-dev qt6-svg-dev libqscintilla2-qt6-dev
          libkf6syntaxhighlighting-dev libdtl-dev xvfb xauth python3 ca-certificates"
stamp="$root/var/lib/kwb-ci-packages"   # the package list the chroot was completed with

# Exit 77 means "the stage could not be set up here" (no root, the Debian mirror unreachable): the
# caller reports it as skipped. Any failure of the build or the tests is exit 1.
if [ "$(id -u)" -ne 0 ]; then echo "ci-trixie: needs root" >&2; exit 77; fi

t0=$(date +%s); tstep=$t0
step() { # step NAME: prints how long the previous step took
    local now; now=$(date +%s)
    printf 'ci-trixie: %-28s %4d s (total %4d s)\n' "$1" $((now - tstep)) $((now - t0))
    tstep=$now
}

# Unmount whatever this run mounted, in reverse order, on every exit path (error, ^C, success).
mounted=()
cleanup() {
    local rc=$? i
    for (( i=${#mounted[@]}-1; i>=0; i-- )); do
        umount "${mounted[$i]}" 2>/dev/null || umount -l "${mounted[$i]}" 2>/dev/null || true
    done
    [ $rc -eq 0 ] || echo "ci-trixie: FAILED (exit $rc) after $(( $(date +%s) - t0 )) s" >&2
    exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mount_once() { # mount_once TARGET ARGS...: mounts unless something is already mounted there
    local target=$1; shift
    if mountpoint -q "$target"; then return; fi
    mount "$@" "$target"
    mounted+=("$target")
}

# 1. The chroot: reuse it when it was completed with the same package list.
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$(echo $packages)" ]; then
    if [ ! -x "$root/usr/bin/apt-get" ]; then
        command -v debootstrap >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null \
            || { echo "ci-trixie: cannot install debootstrap" >&2; exit 77; }
        # A root left half-made by an interrupted debootstrap is started again from scratch.
        if mountpoint -q "$root/proc" || mountpoint -q "$root/src"; then
            echo "ci-trixie: $root has mounts left, not deleting it" >&2; exit 1
        fi
        rm -rf "$root"; mkdir -p "$root"
        echo "ci-trixie: debootstrap trixie into $root"
        debootstrap --variant=minbase trixie "$root" "$mirror" >"$root.debootstrap.log" 2>&1 \
            || { tail -20 "$root.debootstrap.log" >&2; exit 77; }
        step "debootstrap"
    fi
    mkdir -p "$root/proc"
    mount_once "$root/proc" -t proc proc
    cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
    # --force-unsafe-io: no fsync per unpacked file; a chroot cut short is made again (see the stamp).
    echo "ci-trixie: apt-get install (this chroot has no or other packages)"
    chroot "$root" /usr/bin/env DEBIAN_FRONTEND=noninteractive bash -c \
        "apt-get update -qq && apt-get install -y -qq --no-install-recommends -o Dpkg::Options::=--force-unsafe-io $(echo $packages) && apt-get clean" \
        >"$root.apt.log" 2>&1 || { tail -20 "$root.apt.log" >&2; exit 77; }
    echo $packages >"$stamp"
    step "apt-get install"
else
    step "chroot reused"
fi
if [ $prepare_only -eq 1 ]; then echo "ci-trixie: chroot ready after $(( $(date +%s) - t0 )) s"; exit 0; fi

# 2. Mounts: /proc (Qt, ctest and ninja read it) and the source tree.
mkdir -p "$root/proc" "$root/src" "$root/tmp"
mount_once "$root/proc" -t proc proc
mount_once "$root/src" --bind "$here"

run() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
            QT_QPA_PLATFORM=offscreen bash -euo pipefail -c "cd /src; $1"; }

# 3. Configure. The PyTorch-free configuration: no Python module; KF6 required. A unity build: the
#    Qt headers parsed once per few sources instead of once per source, the most of a Debug build.
mkdir -p "$here/build-trixie"
run "cmake -S . -B build-trixie/build -G Ninja -DCMAKE_BUILD_TYPE=Debug -DKWB_QUICK_BUILD=ON -DKWB_BUILD_PYTHON=OFF -DKWB_WERROR=$werror -DCMAKE_UNITY_BUILD=ON \
         -DKWB_REQUIRE_KF6=ON -DPython_EXECUTABLE=/usr/bin/python3 $extra_cmake_args" >"$here/build-trixie/configure.log" 2>&1 \
    || { tail -40 "$here/build-trixie/configure.log" >&2; exit 1; }
grep -A1 -E "^ \* KF6SyntaxHighlighting" "$here/build-trixie/configure.log" | head -2 || true
step "configure"

# 4. Build only the kept tests' executables (ctest -N lists them before anything is built) plus
#    kwb_ui, so the whole GUI library is compiled against Qt 6.8 + KF6 even where no test links it,
#    the GUI executable and the fixture-run writer, which the real-window smoke test (gui_smoke_xvfb)
#    starts, and the CLI (kwb), the other shipped binary.
select="-E '$exclude'${label:+ -L '$label'}"
tests=$(run "ctest --test-dir build-trixie/build -N $select" | sed -n 's/^ *Test *#[0-9]*: //p')
grep -qx tst_highlight <<<"$tests" || { echo "ci-trixie: tst_highlight is not among the tests ($select)" >&2; exit 1; }
targets=$(run "ninja -C build-trixie/build -t targets all" | sed -n 's/^\([A-Za-z0-9_]*\): phony$/\1/p' | sort -u)
build_list="kwb_ui kernel-workbench kwb_write_fixture_run kwb"
for t in $tests; do
    if grep -qx "$t" <<<"$targets"; then build_list="$build_list $t"; fi
done
echo "ci-trixie: building $build_list"
# -k 0: one broken target must not hide the results of every other test; the stage still fails.
build_rc=0
run "cmake --build build-trixie/build -j $jobs --target $build_list -- -k 0" >"$here/build-trixie/build.log" 2>&1 || build_rc=$?
if [ $build_rc -ne 0 ]; then
    echo "ci-trixie: BUILD FAILED (log: build-trixie/build.log):" >&2
    grep -E "^FAILED:|error:|undefined reference" "$here/build-trixie/build.log" | head -40 >&2
fi
step "build"

# 5. Test, excluding what needs PyTorch. The highlight tests leave screenshots of both themes in
#    build-trixie/screenshots (a CI artifact to look at), and must have run the KF6 path: a KF6 case
#    skipped would mean the definitions are missing at run time.
rm -rf "$here/build-trixie/screenshots"; mkdir -p "$here/build-trixie/screenshots"
test_rc=0
run "KWB_HIGHLIGHT_SCREENSHOTS=/src/build-trixie/screenshots \
     ctest --test-dir build-trixie/build --output-on-failure -j $jobs $select" | tee "$here/build-trixie/ctest.log" \
    || test_rc=$?
step "ctest"
if grep -q "SKIP.*without KF6" "$here/build-trixie/build/Testing/Temporary/LastTest.log" 2>/dev/null; then
    echo "ci-trixie: the KF6 highlight tests were skipped" >&2; test_rc=1
fi
if [ $build_rc -ne 0 ] || [ $test_rc -ne 0 ]; then exit 1; fi
echo "ci-trixie: passed after $(( $(date +%s) - t0 )) s"
