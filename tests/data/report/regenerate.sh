#!/bin/sh
# SPDX-License-Identifier: MIT
# Rewrites the report goldens (expected.md, expected.html) from the fixture run in run/.
# Usage: tests/data/report/regenerate.sh [BUILD_DIR]   (default: build). Review the diff before committing.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
test_exe=$(find "$build" -type f -name tst_report -perm -u+x | head -n 1)
if [ -z "$test_exe" ]; then
    echo "regenerate.sh: no tst_report under $build; build it first: cmake --build $build --target tst_report" >&2
    exit 2
fi
KWB_UPDATE_GOLDEN=1 QT_QPA_PLATFORM=offscreen "$test_exe" goldenMarkdown goldenHtml
git -C "$here" diff --stat -- . || true
