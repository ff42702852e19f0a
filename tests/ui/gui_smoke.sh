#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# GUI smoke test in a real X window: starts kernel-workbench on the bundled demo under Xvfb, lets it
# render, saves a screenshot (a CI artifact, in $KWB_SCREENSHOT_DIR) and checks the picture is a real
# window of the asked size that is not blank.
# Usage: gui_smoke.sh KERNEL_WORKBENCH_BINARY
set -euo pipefail
app=$1
out=${KWB_SCREENSHOT_DIR:-$(mktemp -d)}
mkdir -p "$out"
shot="$out/gui-smoke-demo.png"
rm -f "$shot"
command -v xvfb-run >/dev/null || { echo "SKIP: xvfb-run not installed"; exit 0; }
export QT_QPA_PLATFORM=xcb
# A private settings folder: the smoke test must not depend on (or change) a person's layout.
export XDG_CONFIG_HOME=$(mktemp -d)
timeout 120 xvfb-run -a -s "-screen 0 1600x1000x24" "$app" --demo --screenshot "$shot" --quit-after-ms 5000
test -s "$shot" || { echo "FAIL: no screenshot at $shot"; exit 1; }
/usr/bin/python3 - "$shot" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
w, h = struct.unpack(">II", data[16:24])
# Gather the image data and count distinct byte values: a blank or single-colour window has very few.
idat, pos = b"", 8
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    if kind == b"IDAT":
        idat += data[pos + 8:pos + 8 + n]
    pos += 12 + n
raw = zlib.decompress(idat)
distinct = len(set(raw[:: max(1, len(raw) // 200000)]))
print("screenshot %dx%d, %d bytes, %d distinct byte values" % (w, h, len(data), distinct))
assert w >= 1000 and h >= 700, "window too small"
assert distinct > 40, "the window looks blank"
PY
echo "PASS: $shot"

# The Suite view on the fixture suite (a real `kwb suite` output), its first task's run open.
suite_shot="$out/gui-smoke-suite.png"
rm -f "$suite_shot"
suite_copy=$(mktemp -d)
cp -r "$(dirname "$0")/../data/suite/fixture" "$suite_copy/"
timeout 120 xvfb-run -a -s "-screen 0 1600x1000x24" "$app" --suite "$suite_copy/fixture" --screenshot "$suite_shot" --quit-after-ms 5000
rm -rf "$suite_copy"
test -s "$suite_shot" || { echo "FAIL: no screenshot at $suite_shot"; exit 1; }
echo "PASS: $suite_shot"
