#!/bin/sh
# SPDX-License-Identifier: MIT
# Makes DIR/bin/kwb + DIR/lib/ (every shared library `ldd` lists but libc, libm, libstdc++, libgcc_s,
# the loader) from a kwb built here, so that it runs on the GPU machine, which has no Qt:
#   tests/gpu/bundle_kwb.sh build/app/cli/kwb DIR
#   (there) LD_LIBRARY_PATH=DIR/lib KWB_DATA_DIR=<a checkout> DIR/bin/kwb ...
set -eu
KWB=${1:?usage: bundle_kwb.sh KWB_BINARY DIR}
DIR=${2:?usage: bundle_kwb.sh KWB_BINARY DIR}
mkdir -p "$DIR/bin" "$DIR/lib"
cp "$KWB" "$DIR/bin/kwb"
ldd "$KWB" | awk '/=> \// {print $3}' | grep -Ev '/(libc|libm|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so' |
    while read -r lib; do cp -L "$lib" "$DIR/lib/"; done
du -sh "$DIR"
