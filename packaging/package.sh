#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds a Release tree for installation under /usr in build-package/ (or $KWB_PACKAGE_DIR) and runs
# CPack to produce kernel-workbench_<version>_<arch>.deb there; prints the package's path and size.
# Incremental when run again. Needs dpkg-dev (dpkg-shlibdeps computes the library dependencies).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${KWB_PACKAGE_DIR:-$here/build-package}
jobs=${KWB_JOBS:-2}

command -v dpkg-shlibdeps >/dev/null || { echo "package: dpkg-shlibdeps missing (apt-get install dpkg-dev)" >&2; exit 1; }

start=$(date +%s)
# The prefix is compiled into the binaries (core/env finds the data under <prefix>/share): it must be
# the one the package installs to. Tests and the Python module are not packaged.
if [ ! -f "$build/build.ninja" ]; then
    cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
        -DKWB_BUILD_TESTS=OFF -DKWB_BUILD_PYTHON=OFF ${KWB_CMAKE_ARGS:-} >/dev/null
fi
cmake --build "$build" -j "$jobs"
built=$(date +%s)

# Stale packages of older versions would be confusing next to the new one.
rm -f "$build"/kernel-workbench_*.deb
(cd "$build" && cpack --config CPackConfig.cmake -G DEB >/dev/null)
deb=$(ls "$build"/kernel-workbench_*.deb)
end=$(date +%s)

echo "package: $deb"
echo "package: $(du -h "$deb" | cut -f1) ($(stat -c %s "$deb") bytes); build $((built - start)) s, cpack $((end - built)) s"
dpkg-deb --field "$deb" Package Version Architecture Depends Recommends
