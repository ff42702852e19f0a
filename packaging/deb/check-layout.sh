#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ctest packaging_install_layout: installs BUILD_DIR into STAGE_DIR with `cmake --install` and checks
# that the result has the layout core/env expects (<datadir>/kernel-workbench/{worker,prompts,tasks,
# resources}), that nothing from the build or test runs leaks in, and that the installed kwb, pointed
# at the staged data with $KWB_DATA_DIR, lists the tasks and runs the detectors from it.
# usage: check-layout.sh BUILD_DIR STAGE_DIR DATADIR BINDIR   (DATADIR, BINDIR relative, e.g. share bin)
set -euo pipefail
build=$1 stage=$2 datadir=$3 bindir=$4
src=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "check-layout: FAIL: $*" >&2; exit 1; }

rm -rf "$stage"
cmake --install "$build" --prefix "$stage" >/dev/null
data="$stage/$datadir/kernel-workbench"

for f in worker/kwb_worker.py worker/kwb_worker/__init__.py worker/kwb_worker/detect \
         prompts/system.md prompts/seed.md tasks/level1/1_ReLU.py tasks/level3/39_GRU.py \
         resources/cassettes/1_ReLU.json resources/demo resources/showcase/39_GRU.py \
         "$bindir/kwb"; do
    case $f in "$bindir"/*) p="$stage/$f" ;; *) p="$data/$f" ;; esac
    [ -e "$p" ] || fail "missing $p"
done
[ -e "$stage/$datadir/doc/kernel-workbench/copyright" ] || fail "missing the Debian copyright file"
[ -n "$(find "$stage" -path '*/man1/kwb.1.gz')" ] || fail "missing the kwb manual page"
leaks=$(find "$stage" \( -name __pycache__ -o -name '*.pyc' -o -name '*.qrc' \) -print)
[ -z "$leaks" ] || fail "build or test leftovers installed: $leaks"
[ ! -e "$data/resources/kernel-workbench.desktop" ] || fail "the desktop entry belongs in share/applications only"
for f in showcase/_body.py showcase/cluster_rnn.cu showcase/make_showcase.py CMakeLists.txt; do
    [ ! -e "$data/resources/$f" ] || fail "resources/$f installed: the showcase candidates ship, not their sources"
done

# The GUI brings its desktop integration; the metadata must name the desktop entry that exists.
if [ -e "$stage/$bindir/kernel-workbench" ]; then
    desktop="$stage/$datadir/applications/kernel-workbench.desktop"
    [ -e "$desktop" ] || fail "missing $desktop"
    [ -e "$stage/$datadir/icons/hicolor/scalable/apps/kernel-workbench.svg" ] || fail "missing the scalable icon"
    metainfo=$(ls "$stage/$datadir"/metainfo/*.metainfo.xml 2>/dev/null) || fail "missing AppStream metainfo"
    grep -q "<launchable type=\"desktop-id\">kernel-workbench.desktop</launchable>" "$metainfo" \
        || fail "$metainfo does not launch kernel-workbench.desktop"
    icon=$(sed -n 's/^Icon=//p' "$desktop")
    [ -e "$stage/$datadir/icons/hicolor/scalable/apps/$icon.svg" ] || fail "desktop Icon=$icon has no icon file"
fi

# The installed binary with the staged data (the source tree would otherwise win, see core/env).
export KWB_DATA_DIR="$data" KWB_PYTHON=${KWB_PYTHON:-/usr/bin/python3}
# The shipped showcase candidates are what the committed generator and sources give, byte for byte.
"$KWB_PYTHON" "$src/resources/showcase/make_showcase.py" --check "$data/resources/showcase" >/dev/null \
    || fail "the installed showcase candidates are not what resources/showcase/make_showcase.py gives"
"$stage/$bindir/kwb" tasks | grep -q "1_ReLU" || fail "installed kwb does not list the shipped tasks"
"$stage/$bindir/kwb" detect "$data/tasks/level1/1_ReLU.py" "$src/tests/data/detect/candidates/relu_clean.py" >/dev/null \
    || fail "installed kwb detect failed on a clean candidate"
rc=0
"$stage/$bindir/kwb" detect "$data/tasks/level3/39_GRU.py" "$src/tests/data/detect/candidates/cheat_fallback.py" >/dev/null || rc=$?
[ "$rc" -eq 1 ] || fail "installed kwb detect should flag the fallback cheat (exit 1), got $rc"
echo "check-layout: OK ($(find "$stage" -type f | wc -l) files in $stage)"
