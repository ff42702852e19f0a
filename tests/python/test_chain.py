# SPDX-License-Identifier: MIT
"""The chain between a batch's calls (kwb_worker/chain.py, on with KWB_CHAIN=1): call k's chained input is
scaled from call k-1's output, so a candidate that computes the whole batch at its first call, from the
input sets it finds in the arena, hands later calls answers to inputs they never got."""
import math
import os

import pytest
import torch

from conftest import DATA, cli, task

from kwb_worker import chain


def test_the_factor_stays_within_the_amplitude_and_keeps_signs_and_zeros():
    x = torch.tensor([[-3.0, 0.0, 2.5], [1e-6, -1e-6, 7.0]])
    for o in (-1e30, -5.0, -1e-4, 0.0, 3e-5, 1.0, 40.0, 1e30):
        y = chain.scaled(x, torch.tensor(o), torch.tensor(1e-3))
        ratio = y[x != 0] / x[x != 0]
        assert float(ratio.min()) > 1 - chain.AMP - 1e-6 and float(ratio.max()) < 1 + chain.AMP + 1e-6, o
        assert torch.equal(y == 0, x == 0) and torch.equal(torch.sign(y), torch.sign(x))
    # The magnitude c makes a small output move the factor as much as a large one does.
    small = chain.scaled(torch.ones(1), torch.tensor(2e-4), torch.tensor(1e-4))
    large = chain.scaled(torch.ones(1), torch.tensor(60.0), torch.tensor(30.0))
    assert float(small) == pytest.approx(float(large)) and float(small) > 1 + chain.AMP / 2


def test_the_plan_takes_a_floating_input_and_the_largest_of_the_drawn_output_elements():
    ints, x = torch.arange(4), torch.randn(3, 5)
    out = torch.zeros(2, 3)
    out[1, 2] = -9.0
    draws = iter([0, 5, 3] * 30)
    got = chain.plan([ints, x], [7, out], lambda n: next(draws))
    assert got["arg"] == 1 and got["out"] == 1 and got["at"] == [1, 2] and got["c"] == 9.0
    assert chain.plan([ints], [out], lambda n: 0) is None  # no floating-point input: nothing to chain
    assert chain.plan([x], [ints], lambda n: 0) is None


def test_a_call_gets_its_scratch_written_from_the_call_before():
    xs = [torch.randn(4, 4) for _ in range(3)]
    scratch = [torch.empty(4, 4) for _ in range(3)]
    c = chain.Chain(0, scratch, 0, [2, 1], 1.0)
    first = c.args([xs[0]], 0, None)
    assert first[0] is scratch[0] and torch.equal(scratch[0], xs[0])  # call 0: a copy
    prev_out = torch.relu(first[0])
    o = c.source([prev_out])
    assert o.dim() == 0 and float(o) == float(prev_out[2, 1])
    second = c.args([xs[1]], 1, o)
    assert torch.equal(second[0], chain.scaled(xs[1], o, torch.tensor(1.0)))
    assert c.source([torch.zeros(2)]) is None and c.source([]) is None  # outputs without that element


def _eval(tsk, cand):
    return cli("eval", task(tsk), cand, "--device", "cpu", "--trials", "3", "--warmup", "1", "--repeat", "4", "-v")


def test_with_the_chain_a_batch_computed_at_its_first_call_comes_out_wrong_and_an_honest_one_does_not(monkeypatch):
    monkeypatch.setenv("KWB_CHAIN", "1")
    rc, res, err = _eval("level1/2_Softmax.py", os.path.join(DATA, "cheats", "gpu", "batch_softmax_one_pass.py"))
    assert "calls chained" in err, err[-2000:]
    assert res["status"] == "wrong_result", res["reason"]
    assert "behaves differently once it is timed" in res["reason"]
    rc, res, err = _eval("level1/2_Softmax.py", os.path.join(DATA, "candidates", "softmax_written_out.py"))
    assert "calls chained" in err
    assert res["status"] == "ok", res["reason"]
    assert math.isfinite(res["candidate"]["median_ms"]) and res["candidate"]["median_ms"] > 0
