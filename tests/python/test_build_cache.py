# SPDX-License-Identifier: MIT
"""The build folder kept per candidate source (runnerclient.build_dir_for): one evaluation at a time has it. Two
evaluations of the same source at once (two GPU lanes, two judges on a host) used to share it, and the second's
hand-over to its own user took it from the first while that one built or loaded there ("Permission denied" on both
runs of the same GRU kernel on two H200s at once). Real processes, a real lock, real ownership (as root only: the
folder is handed to the candidate's user id)."""
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import PYTHON, WORKER_DIR

sys.path.insert(0, WORKER_DIR)
pytest.importorskip("torch")

from kwb_worker import runnerclient  # noqa: E402

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the folder is handed to another user id: needs root")

UID_A, UID_B = 61011, 61012
SOURCE = b"class ModelNew: pass  # load_inline(...)"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    root = tmp_path / "builds"
    monkeypatch.setenv("KWB_BUILD_CACHE", str(root))
    monkeypatch.delenv("KWB_NO_BUILD_CACHE", raising=False)
    monkeypatch.delenv("KWB_SHARED_EXTENSIONS_DIR", raising=False)
    yield root
    runnerclient.release_build_dirs()


def _holder(root, uid):
    """Another judge's process: takes the folder for SOURCE, says where, and holds it until its stdin closes."""
    code = textwrap.dedent("""
        import sys
        sys.path.insert(0, %r)
        from kwb_worker import runnerclient
        print(runnerclient.build_dir_for(%r, %d), flush=True)
        sys.stdin.read()
    """ % (WORKER_DIR, SOURCE, uid))
    p = subprocess.Popen([PYTHON, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                         env=dict(os.environ, KWB_BUILD_CACHE=str(root)))
    return p, p.stdout.readline().strip()


def test_a_second_evaluation_of_the_same_source_builds_apart_while_the_first_holds_it(cache):
    p, held = _holder(cache, UID_A)
    try:
        assert held != "None" and os.stat(held).st_uid == UID_A
        assert runnerclient.build_dir_for(SOURCE, UID_B) is None  # its own fresh folder instead
        assert os.stat(held).st_uid == UID_A, "the folder was taken from the evaluation using it"
        other = runnerclient.build_dir_for(SOURCE + b" ", UID_B)  # another source: a folder of its own
        assert other is not None and other != held and os.stat(other).st_uid == UID_B
    finally:
        p.stdin.close()
        p.wait()
    # The first evaluation is over: the next one of the same source reuses its folder (the build is kept).
    runnerclient.release_build_dirs()
    again = runnerclient.build_dir_for(SOURCE, UID_B)
    assert again == held and os.stat(again).st_uid == UID_B


def test_released_with_the_evaluation_in_one_process(cache):
    first = runnerclient.build_dir_for(SOURCE, UID_A)
    assert first is not None
    assert runnerclient.build_dir_for(SOURCE, UID_B) is None  # still held by this process's evaluation
    runnerclient.release_build_dirs()
    assert runnerclient.build_dir_for(SOURCE, UID_B) == first
    lock = first + ".lock"
    assert os.stat(lock).st_uid == os.geteuid() and os.stat(lock).st_mode & 0o077 == 0  # the judge's, private
