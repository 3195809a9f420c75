"""Parity checks for what lesson 7 (07_turning_gradients_off) shows and the engine had to learn."""
import pytest

import engine

torch = pytest.importorskip("torch")


def test_set_grad_enabled_prints_like_torch():
    try:
        reprs = [[repr(m.set_grad_enabled(mode)) for mode in (False, True)]
                 for m in (engine, torch)]
    finally:
        engine.set_grad_enabled(True)
        torch.set_grad_enabled(True)
    assert reprs[0] == reprs[1]
