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
# Each shot waits 4 s for the window to settle before it is taken, mostly idle: three windows at a
# time share the X server (each its own process and settings): 31 s alone instead of 64-69 s.
cat >"$work/take.sh" <<'SH'
set -u
run_app() {
    # A private settings folder per shot: first-start layout, nothing of a person's or another shot's.
    XDG_CONFIG_HOME=$(mktemp -d -p "$WORK") KWB_RUNS_DIR="$WORK/runs" \
        timeout 60 "$APP" $4 --theme "$3" --size "$2" --screenshot "$OUT/$1.png" --quit-after-ms 4000 \
        >"$WORK/$1.log" 2>&1
}
shot() {
    rm -f "$OUT/$1.png"
    run_app "$@" && return
    rc=$?
    # Once in a fresh-clone run (f20) a window could not reach the X server at all, mid-run, while the shots
    # beside it and after it did: the server's, not the application's. Such a start is tried once more; any
    # other failure, or a second refusal, fails the shot.
    if grep -q "could not connect to display" "$WORK/$1.log"; then
        echo "note: $1 could not connect to the X server (exit $rc); trying once more"
        sleep 1
        run_app "$@" && return
        rc=$?
    fi
    echo "FAIL: $1 exited with $rc"
    cat "$WORK/$1.log"
}
while IFS='|' read -r name size theme args; do
    while [ "$(jobs -rp | wc -l)" -ge 3 ]; do wait -n; done
    shot "$name" "$size" "$theme" "$args" &
done <"$WORK/shots.txt"
wait
SH
OUT=$out WORK=$work APP=$app timeout 600 xvfb-run -a -s "-screen 0 1920x1080x24" bash "$work/take.sh"

/usr/bin/python3 - "$out" "$work/shots.txt" <<'PY'
import os, struct, sys, zlib
out, listing = sys.argv[1], sys.argv[2]

def row_at(raw, width, colour_type, py):
    """Undoes the PNG row filters down to row py (8-bit RGB or RGBA) and returns that row's pixels."""
    bpp = {2: 3, 6: 4}[colour_type]
    stride = width * bpp
    prev = bytearray(stride)
    for y in range(py + 1):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
    return [tuple(prev[x:x + 3]) for x in range(0, stride, bpp)]
failed = 0
for line in open(listing):
    name, size, theme = line.strip().split("|")[:3]
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
    # The theme took: across row 300 (lists, code, text views) the median pixel is dark or light as asked.
    row = sorted(sum(p) / 3 for p in row_at(raw, w, data[25], 300))
    luminance = row[len(row) // 2]
    theme_ok = luminance < 90 if theme == "dark" else luminance > 180
    ok = (w, h) == want and distinct > 40 and theme_ok
    print("%s %s: %dx%d, %d bytes, %d distinct byte values, %s: median luminance %d" %
          ("ok  " if ok else "FAIL", name, w, h, len(data), distinct, theme, luminance))
    failed += not ok
sys.exit(1 if failed else 0)
PY
echo "PASS: screenshots in $out"

# The Suite view on the fixture suite (a real `kwb suite` output), its first task's run open.
suite_shot="$out/gui-smoke-suite.png"
rm -f "$suite_shot"
suite_copy=$(mktemp -d)
cp -r "$(dirname "$0")/../data/suite/fixture" "$suite_copy/"
timeout 120 xvfb-run -a -s "-screen 0 1600x1000x24" "$app" --suite "$suite_copy/fixture" --screenshot "$suite_shot" --quit-after-ms 5000
rm -rf "$suite_copy"
test -s "$suite_shot" || { echo "FAIL: no screenshot at $suite_shot"; exit 1; }
echo "PASS: $suite_shot"
