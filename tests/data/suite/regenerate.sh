#!/bin/sh
# SPDX-License-Identifier: MIT
# Rebuilds the fixture suite (fixture/: suite.json and its runs) with a real `kwb suite` over the small
# CPU tasks through the loopback suite LLM server (tests/core/suite/suite_llm_server.py): softmax's
# answers are broken (no correct candidate), the level-2 task's copy is flagged by the detectors,
# the others are correct. Wall times are then fixed (60 s per row) so the goldens do not move, and
# the report goldens (expected.md, expected.html) are rewritten.
# Usage: tests/data/suite/regenerate.sh [BUILD_DIR]   (default: build). Review the diff before committing.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
build=${1:-build}
kwb=$(find "$build" -type f -name kwb -perm -u+x | head -n 1)
[ -n "$kwb" ] || { echo "regenerate.sh: no kwb under $build" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'kill $server 2>/dev/null; rm -rf "$tmp"' EXIT
FAKE_SUITE_RULES='{"torch.softmax": "broken"}' /usr/bin/python3 "$src/tests/core/suite/suite_llm_server.py" > "$tmp/port" &
server=$!
while [ ! -s "$tmp/port" ]; do sleep 0.1; done
port=$(head -n 1 "$tmp/port")
mkdir -p "$tmp/config"
cat > "$tmp/config/providers.json" <<JSON
{"providers": [{"name": "fake", "wire": "openai", "base_url": "http://127.0.0.1:$port/v1", "model": "suite",
  "api_key_env": "", "max_retries": 0, "input_usd_per_mtok": 0.27, "output_usd_per_mtok": 1.10}]}
JSON
rm -rf "$here/fixture"
KWB_CONFIG_DIR="$tmp/config" KWB_PYTHON=/usr/bin/python3 "$kwb" suite "$src/tasks/level1/1_ReLU.py" \
    "$src/tasks/level1/2_Softmax.py" "$src/tasks/level2" "$src/tests/data/tasks/relu_small.py" \
    --provider fake --device cpu --seeds 1 --max-repairs 1 --threshold 0 --no-stages --trials 2 --repeat 5 \
    --jobs 2 --suite-dir "$here/fixture" >/dev/null || true
/usr/bin/python3 - "$here/fixture/suite.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for i, e in enumerate(d["entries"]):
    e["wall_seconds"] = 60.0 * (i + 1)
    e["task_file"] = e["task_file"].split("/tasks/", 1)[-1]
d["created_at"] = "2026-11-24T10:00:00.000Z"
json.dump(d, open(sys.argv[1], "w"), indent=2, sort_keys=True)
PY
test_exe=$(find "$build" -type f -name tst_suitereport -perm -u+x | head -n 1)
if [ -n "$test_exe" ]; then
    KWB_UPDATE_GOLDEN=1 QT_QPA_PLATFORM=offscreen "$test_exe" goldenMarkdown goldenHtml
fi
git -C "$here" status --short -- . || true
