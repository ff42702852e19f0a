#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's first command: install what is needed, build, and start the workbench.
# With no LLM key in the environment it opens the bundled demo (a recorded run, and a replay that
# runs on this machine). Without a display it starts under Xvfb only if KWB_HEADLESS_SCREENSHOT is
# set (used to check the GUI on servers); otherwise it says how to get a display.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/packaging/install-deps.sh"
"$here/packaging/build.sh"
build=${KWB_BUILD_DIR:-$here/build}
export KWB_PYTHON=${KWB_PYTHON:-/usr/bin/python3}

args=("$@")
if [ ${#args[@]} -eq 0 ]; then
    if [ -z "${OPENAI_API_KEY:-}${ANTHROPIC_API_KEY:-}${DEEPSEEK_API_KEY:-}${OPENROUTER_API_KEY:-}" ]; then
        echo "run: no LLM key set: opening the bundled demo"
        args=(--demo)
    fi
fi

gui="$build/app/gui/kernel-workbench"
if [ ! -x "$gui" ]; then
    echo "run: the GUI was not built; here is the headless CLI instead" >&2
    exec "$build/app/cli/kwb" --help
fi
if [ -n "${KWB_HEADLESS_SCREENSHOT:-}" ]; then
    exec xvfb-run -a -s "-screen 0 1600x1000x24" "$gui" "${args[@]}" --screenshot "$KWB_HEADLESS_SCREENSHOT" --quit-after-ms 4000
fi
if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    echo "run: no display. Start it from a desktop session, or try it headless:" >&2
    echo "     KWB_HEADLESS_SCREENSHOT=/tmp/kwb.png packaging/run.sh   (saves a screenshot)" >&2
    echo "     $build/app/cli/kwb run tasks/level3/39_GRU.py            (the pipeline in a terminal)" >&2
    exit 1
fi
exec "$gui" "${args[@]}"
