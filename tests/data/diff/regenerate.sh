#!/bin/sh
# SPDX-License-Identifier: MIT
# Rewrites every tests/data/diff/<case>/expected.txt from the current kwb_diff. Review the result
# with `git diff tests/data/diff` before committing: the golden files are the specification.
# Usage: tests/data/diff/regenerate.sh [BUILD_DIR]   (default: build)
set -e
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../../build}
cmake --build "$build" --target tst_textdiff
KWB_REGENERATE_GOLDEN=1 QT_QPA_PLATFORM=offscreen "$build/tests/core/diff/tst_textdiff" golden
