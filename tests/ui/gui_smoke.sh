#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# GUI smoke test in a real X window: starts kernel-workbench under Xvfb on the bundled demo and on a
# failing run (written by the UI tests' fixture writer), at 1280x720 and 1920x1080, in the light and
# the dark theme, plus a few views raised (runs, verdicts, diff). Saves every screenshot (CI
# artifacts, in $KWB_SCREENSHOT_DIR) and checks each is a window of exactly the asked size (the
# window's minimum size fits the smaller screen) that is not blank.
# Usage: gui_smoke.sh KERNEL_WORKBENCH_BINARY FIXTURE_RUN_WRITER
set -euo pipefail
app=$1
writer=$2
out=${KWB_SCREENSHOT_DIR:-$(mktemp -d)}
mkdir -p "$out"
command -v xvfb-run >/dev/null || { echo "SKIP: xvfb-run not installed"; exit 0; }
export QT_QPA_PLATFORM=xcb
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failing=$("$writer" "$work/runs" failing)
test -d "$failing" || { echo "FAIL: the fixture writer made no run"; exit 1; }

# One X server for every shot: name|size|theme|arguments
shots=()
for size in 1280x720 1920x1080; do
    for theme in light dark; do
        shots+=("demo-$size-$theme|$size|$theme|--demo")
        shots+=("failing-$size-$theme|$size|$theme|$failing --select c0004")
    done
    shots+=("demo-runs-verdicts-$size|$size|light|--demo --raise dockRuns,dockVerdicts")
    shots+=("failing-diff-$size|$size|dark|$failing --select c0005 --raise dockDiff")
done
printf '%s\n' "${shots[@]}" >"$work/shots.txt"
cat >"$work/take.sh" <<'SH'
set -u
while IFS='|' read -r name size theme args; do
    rm -f "$OUT/$name.png"
    # A private settings folder per shot: first-start layout, nothing of a person's or another shot's.
    XDG_CONFIG_HOME=$(mktemp -d -p "$WORK") KWB_RUNS_DIR="$WORK/runs" \
        timeout 60 "$APP" $args --theme "$theme" --size "$size" --screenshot "$OUT/$name.png" --quit-after-ms 4000 \
        >"$WORK/$name.log" 2>&1 || { echo "FAIL: $name exited with $?"; cat "$WORK/$name.log"; }
done <"$WORK/shots.txt"
SH
OUT=$out WORK=$work APP=$app timeout 600 xvfb-run -a -s "-screen 0 1920x1080x24" bash "$work/take.sh"

/usr/bin/python3 - "$out" "$work/shots.txt" <<'PY'
import os, struct, sys, zlib
out, listing = sys.argv[1], sys.argv[2]
failed = 0
for line in open(listing):
    name, size = line.strip().split("|")[:2]
    want = tuple(int(v) for v in size.split("x"))
    path = os.path.join(out, name + ".png")
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        print("FAIL: no screenshot %s" % path); failed += 1; continue
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG: " + path
    w, h = struct.unpack(">II", data[16:24])
    idat, pos = b"", 8
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + n]
        pos += 12 + n
    raw = zlib.decompress(idat)
    # A blank or single-colour window has very few distinct byte values.
    distinct = len(set(raw[:: max(1, len(raw) // 200000)]))
    ok = (w, h) == want and distinct > 40
    print("%s %s: %dx%d, %d bytes, %d distinct byte values" % ("ok  " if ok else "FAIL", name, w, h, len(data), distinct))
    failed += not ok
sys.exit(1 if failed else 0)
PY
echo "PASS: screenshots in $out"
