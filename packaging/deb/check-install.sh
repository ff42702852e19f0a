#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Proves the .deb installs on a clean Debian 12: debootstraps a minimal bookworm once (kept in
# build-package/bookworm-base), copies it to a fresh build-package/bookworm for every check, lets apt
# install ./kernel-workbench_*.deb there (dependencies from Debian's archive), then runs the installed
# programs inside the chroot. Needs root (debootstrap, chroot, mount) and the network to Debian.
# usage: check-install.sh [PACKAGE.deb]   (default: the one package.sh left in build-package/)
# KWB_WITH_RECOMMENDS=1 installs the Recommends too (python3-torch: ~1 GB, minutes); by default they
# are only resolved (apt-get --simulate) to show that Debian has them.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
pkgdir=${KWB_PACKAGE_DIR:-$here/build-package}
base=${KWB_BOOKWORM_BASE:-$pkgdir/bookworm-base}
root=$pkgdir/bookworm
mirror=${KWB_DEBIAN_MIRROR:-http://deb.debian.org/debian}
deb=${1:-$(ls "$pkgdir"/kernel-workbench_*.deb 2>/dev/null | head -1)}

if [ "$(id -u)" -ne 0 ]; then echo "check-install: needs root" >&2; exit 1; fi
[ -f "$deb" ] || { echo "check-install: no package; run packaging/package.sh first" >&2; exit 1; }
command -v debootstrap >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null

t0=$(date +%s)
step() { echo "check-install: [$(( $(date +%s) - t0 )) s] $*"; }
fail() { echo "check-install: FAIL: $*" >&2; exit 1; }

if [ ! -x "$base/usr/bin/apt-get" ]; then
    rm -rf "$base"
    step "debootstrap bookworm into $base"
    debootstrap --variant=minbase bookworm "$base" "$mirror" >/dev/null
fi
step "fresh chroot $root"
cleanup() { umount "$root/proc" 2>/dev/null || true; }
trap cleanup EXIT
cleanup
rm -rf "$root"
cp -a "$base" "$root"
mount -t proc proc "$root/proc"
cp "$deb" "$root/tmp/"
mkdir -m 700 "$root/tmp/xdg" # Qt wants a private runtime directory
cp "$here/tests/data/detect/candidates/relu_clean.py" "$here/tests/data/detect/candidates/cheat_fallback.py" \
   "$here/tests/data/candidates/relu_correct.py" "$root/tmp/"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }

step "apt-get update"
in_root apt-get update -qq
name=$(basename "$deb")
step "resolve with Recommends (simulated)"
in_root apt-get install --simulate -y "/tmp/$name" > "$pkgdir/check-install-recommends.txt" \
    || fail "apt cannot resolve the package with its Recommends"
grep -E "^Inst (python3-torch|bubblewrap) " "$pkgdir/check-install-recommends.txt" | sed 's/^/    /' \
    || echo "    warning: apt would install neither python3-torch nor bubblewrap"
recommends=--no-install-recommends
if [ -n "${KWB_WITH_RECOMMENDS:-}" ]; then recommends=; fi
step "apt-get install $recommends /tmp/$name"
before=$(in_root dpkg-query -W | wc -l)
# apt's complaints about the missing /dev/pts and init system are harmless in a chroot: keep them in the log.
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $recommends "/tmp/$name" > "$pkgdir/check-install-apt.txt" 2>&1 \
    || { tail -20 "$pkgdir/check-install-apt.txt"; fail "apt-get install failed"; }
step "installed: $(in_root dpkg-query -W -f='${Package} ${Version}, ${Installed-Size} KiB' kernel-workbench)" \
     "with $(( $(in_root dpkg-query -W | wc -l) - before )) packages from Debian;" \
     "chroot now $(du -smx "$root" | cut -f1) MB"

step "kwb --version"
version=$(in_root kwb --version) || fail "kwb --version"
echo "    $version"
[[ $version == "kwb "[0-9]* ]] || fail "kwb --version printed '$version'"
step "kwb tasks"
in_root kwb tasks > "$pkgdir/check-install-tasks.txt" || fail "kwb tasks"
sed 's/^/    /' "$pkgdir/check-install-tasks.txt" | head -8
grep -q 1_ReLU "$pkgdir/check-install-tasks.txt" || fail "kwb tasks does not list the shipped tasks"
step "kwb detect 1_ReLU relu_clean.py (python3 only)"
in_root kwb detect /usr/share/kernel-workbench/tasks/level1/1_ReLU.py /tmp/relu_clean.py | grep -E "Next step|Integrity" \
    || fail "kwb detect on a clean candidate"
rc=0
in_root kwb detect /usr/share/kernel-workbench/tasks/level3/39_GRU.py /tmp/cheat_fallback.py > /dev/null || rc=$?
[ "$rc" -eq 1 ] || fail "kwb detect should flag the fallback cheat (exit 1), got $rc"
echo "    cheat_fallback.py flagged (exit 1)"
step "QT_QPA_PLATFORM=offscreen kernel-workbench --help"
in_root env QT_QPA_PLATFORM=offscreen XDG_RUNTIME_DIR=/tmp/xdg kernel-workbench --help > "$pkgdir/check-install-gui-help.txt" \
    || fail "kernel-workbench --help"
grep -q -- "--demo" "$pkgdir/check-install-gui-help.txt" || fail "kernel-workbench --help does not list --demo"
head -3 "$pkgdir/check-install-gui-help.txt" | sed 's/^/    /'
step "kernel-workbench --demo offscreen, screenshot"
in_root env QT_QPA_PLATFORM=offscreen XDG_RUNTIME_DIR=/tmp/xdg kernel-workbench --demo --screenshot /tmp/demo.png \
    --quit-after-ms 3000 > "$pkgdir/check-install-gui-demo.txt" 2>&1 || fail "kernel-workbench --demo"
[ -s "$root/tmp/demo.png" ] || fail "no screenshot"
cp "$root/tmp/demo.png" "$pkgdir/check-install-demo.png"
if in_root python3 -c "import torch" 2>/dev/null; then
    # With the Recommends the installed worker evaluates for real (CPU, PyTorch from Debian).
    step "kwb eval 1_ReLU relu_correct.py --device cpu"
    in_root kwb eval /usr/share/kernel-workbench/tasks/level1/1_ReLU.py /tmp/relu_correct.py --device cpu \
        --trials 2 --repeat 3 > "$pkgdir/check-install-eval.txt" 2>&1 || { cat "$pkgdir/check-install-eval.txt"; fail "kwb eval"; }
    grep -E "^(OK|[A-Z_]+:) | \| " "$pkgdir/check-install-eval.txt" | head -2 | sed 's/^/    /'
    grep -q "^OK: correct" "$pkgdir/check-install-eval.txt" || fail "kwb eval did not find the candidate correct"
fi
for f in /usr/share/applications/kernel-workbench.desktop /usr/share/icons/hicolor/scalable/apps/kernel-workbench.svg \
         /usr/share/metainfo/io.github.kernel_workbench.KernelWorkbench.metainfo.xml /usr/share/doc/kernel-workbench/copyright; do
    [ -e "$root$f" ] || fail "missing $f"
done
step "OK: $name ($(du -h "$deb" | cut -f1)) installs and runs on Debian 12; screenshot $pkgdir/check-install-demo.png"
