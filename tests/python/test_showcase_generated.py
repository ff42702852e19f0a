# SPDX-License-Identifier: MIT
"""The showcase candidates are build outputs of resources/showcase/make_showcase.py: the copy the build
made (and installs) must be what the committed _body.py and cluster_rnn.cu give, byte for byte, the
generator must give the same bytes every time, and no generated copy may live in the source tree. The
replay cassettes, which carry the showcase kernel, must be what make_cassettes.py gives from them.

ctest sets KWB_SHOWCASE_DIR to the build's <build>/resources/showcase."""
import ast
import os
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SHOWCASE = os.path.join(ROOT, "resources", "showcase")
GENERATOR = os.path.join(SHOWCASE, "make_showcase.py")
sys.path.insert(0, SHOWCASE)
sys.path.insert(0, os.path.join(ROOT, "resources", "cassettes"))

import make_cassettes  # noqa: E402
import make_showcase  # noqa: E402


def test_build_copy_is_what_the_sources_give():
    built = os.environ.get("KWB_SHOWCASE_DIR")
    if not built:
        pytest.skip("KWB_SHOWCASE_DIR not set (ctest sets it to the build's resources/showcase)")
    assert make_showcase.check(built) == [], ("the build's showcase candidates are not what the sources give: "
                                              "rebuild (cmake --build), or make_showcase.py --out DIR")


def test_generator_gives_the_same_bytes_every_time(tmp_path):
    """Two processes (other hash seeds, other working directories) write the same files as the module's
    own rendering: nothing in a candidate depends on the run that made it."""
    outs = []
    for seed in ("1", "2"):
        out = tmp_path / ("out" + seed)
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONDONTWRITEBYTECODE="1")
        subprocess.run([sys.executable, GENERATOR, "--out", str(out)], check=True, env=env, cwd=str(tmp_path))
        outs.append({p.name: p.read_bytes() for p in out.iterdir()})
    assert outs[0] == outs[1]
    expected = {t + ".py": text.encode("utf-8") for t, text in make_showcase.render_all().items()}
    assert outs[0] == expected


def test_each_candidate_stands_alone():
    cu = open(os.path.join(SHOWCASE, "cluster_rnn.cu"), encoding="utf-8").read()
    texts = make_showcase.render_all()
    assert sorted(texts) == sorted(make_showcase.TASKS) and len(texts) == 8
    for task, text in texts.items():
        tree = ast.parse(text, filename=task + ".py")
        classes = [n.name for n in tree.body if isinstance(n, ast.ClassDef)]
        assert "ModelNew" in classes, task
        assert "@CLUSTER_RNN_CU@" not in text and cu in text, task
        assert ("task %s." % task) in text.splitlines()[1], task


def test_check_names_missing_stale_and_extra_files(tmp_path):
    out = str(tmp_path)
    make_showcase.write(out)
    assert make_showcase.check(out) == []
    with open(os.path.join(out, "39_GRU.py"), "a") as f:
        f.write("# edited by hand\n")
    os.unlink(os.path.join(out, "35_LSTM.py"))
    with open(os.path.join(out, "99_Old.py"), "w") as f:
        f.write("")
    problems = make_showcase.check(out)
    assert len(problems) == 3
    assert problems[0].startswith("stale: ") and problems[0].split()[1].endswith("39_GRU.py")
    assert any(p.startswith("missing: ") and p.endswith("35_LSTM.py") for p in problems)
    assert any(p.startswith("extra: ") and "99_Old.py" in p for p in problems)
    rc = subprocess.run([sys.executable, GENERATOR, "--check", out], env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"),
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE).returncode
    assert rc == 1


def test_candidate_helper_writes_the_current_sources():
    path = make_showcase.candidate("41_GRUBidirectional")
    with open(path, encoding="utf-8") as f:
        assert f.read() == make_showcase.render_all()["41_GRUBidirectional"]
    assert make_showcase.candidate("41_GRUBidirectional") == path
    with pytest.raises(KeyError):
        make_showcase.candidate("99_Missing")


def test_source_tree_holds_no_generated_candidate():
    committed = [t for t in make_showcase.TASKS if os.path.exists(os.path.join(SHOWCASE, t + ".py"))]
    assert committed == [], "generated candidates in resources/showcase/ (build outputs; delete them): %s" % committed
    tracked = subprocess.run(["git", "-C", ROOT, "ls-files", "resources/showcase"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, universal_newlines=True)
    if tracked.returncode == 0:
        names = {os.path.basename(p) for p in tracked.stdout.split()}
        assert not names & {t + ".py" for t in make_showcase.TASKS}


def test_cassettes_are_what_their_script_gives():
    """The GRU and LSTM cassettes carry the showcase kernel: a change to its sources must reach them."""
    for name, text in make_cassettes.render_all().items():
        with open(os.path.join(ROOT, "resources", "cassettes", name), encoding="utf-8") as f:
            assert f.read() == text, "resources/cassettes/%s is stale: run resources/cassettes/make_cassettes.py" % name
