#!/bin/sh
# SPDX-License-Identifier: MIT
# Rewrites the prompt golden files (tests/data/prompts/golden/) from the current templates.
# Usage: tests/data/prompts/regenerate.sh [BUILD_DIR]   (default: build). Review the diff after.
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=${1:-$root/build}
cmake --build "$build" --target tst_promptlibrary -j2
exe=$(find "$build" -type f -name tst_promptlibrary | head -n 1)
KWB_REGENERATE_PROMPTS=1 "$exe" goldenFiles
git -C "$root" status --short "$here/golden" || true
