#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Configures and builds Kernel Workbench into build/ (or $KWB_BUILD_DIR). Incremental when run again.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${KWB_BUILD_DIR:-$here/build}
type=${KWB_BUILD_TYPE:-RelWithDebInfo}
jobs=${KWB_JOBS:-$(nproc)}
# The worker and the tests use the system interpreter, which has Debian's python3-torch (a pyenv
# or venv python3 on the PATH usually does not).
python=${KWB_PYTHON:-/usr/bin/python3}

if [ ! -f "$build/build.ninja" ]; then
    cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="$type" \
        -DPython_EXECUTABLE="$python" -DKWB_TEST_PYTHON="$python" ${KWB_CMAKE_ARGS:-}
fi
cmake --build "$build" -j "$jobs"
