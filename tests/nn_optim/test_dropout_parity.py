"""Dropout of whole channels (Dropout1d/2d/3d) and alpha dropout against torch: the same seed
drops the same channels (torch's random stream, bit for bit), with torch's errors, warnings,
graphs and version counters."""
import warnings

import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
import engine  # noqa: E402

pytestmark = pytest.mark.torch


def F(m):
    return m.nn.functional


CASES = {
    "d1": lambda m: F(m).dropout1d(m.arange(24.).reshape(2, 3, 4), 0.4),
    "d1_unb": lambda m: F(m).dropout1d(m.arange(12., requires_grad=True).reshape(3, 4), 0.5),
    "d1_inplace": lambda m: F(m).dropout1d(m.arange(12.).reshape(3, 4), 0.5, inplace=True),
    "d1_1d": lambda m: F(m).dropout1d(m.ones(3), 0.5),
    "d1_p1": lambda m: F(m).dropout1d(m.ones(3, 2, requires_grad=True), 1.),
    "d2": lambda m: F(m).dropout2d(m.arange(48.).reshape(2, 3, 2, 4), 0.3),
    "d2_3d": lambda m: F(m).dropout2d(m.arange(24.).reshape(2, 3, 4), 0.3),
    "d2_2d": lambda m: F(m).dropout2d(m.arange(24.).reshape(6, 4), 0.3),
    "d2_1d": lambda m: F(m).dropout2d(m.ones(3), 0.3),
    "d2_int": lambda m: F(m).dropout2d(m.ones(2, 3, dtype=m.int64), 0.3),
    "d2_f16": lambda m: F(m).dropout2d(m.ones(2, 3, 2, 2, dtype=m.float16), 0.3),
    "d2_f64": lambda m: F(m).dropout2d(m.ones(2, 30, 2, 2, dtype=m.float64), 0.3),
    "d3": lambda m: F(m).dropout3d(m.arange(48.).reshape(2, 3, 2, 2, 2), 0.5),
    "d3_4d": lambda m: F(m).dropout3d(m.arange(24.).reshape(3, 2, 2, 2), 0.5),
    "d3_3d": lambda m: F(m).dropout3d(m.arange(24.).reshape(3, 2, 4), 0.5),
    "d3_eval": lambda m: F(m).dropout3d(m.arange(24.).reshape(3, 2, 4), 0.5, False),
    "a": lambda m: F(m).alpha_dropout(m.arange(24., requires_grad=True).reshape(2, 3, 4), 0.4,
                                      True),
    "a_default": lambda m: F(m).alpha_dropout(m.arange(24.).reshape(2, 3, 4), 0.4),
    "a_inplace": lambda m: F(m).alpha_dropout(m.arange(24.).reshape(2, 3, 4), 0.2, True, True),
    "a_p1": lambda m: F(m).alpha_dropout(m.ones(3), 1., True),
    "a_int": lambda m: F(m).alpha_dropout(m.ones(3, dtype=m.int64), 0.5, True),
    "a_f64": lambda m: F(m).alpha_dropout(m.randn(30, dtype=m.float64), 0.5, True),
    "a_f16": lambda m: F(m).alpha_dropout(m.randn(30).half(), 0.5, True),
    "fa": lambda m: F(m).feature_alpha_dropout(m.randn(4, 5, 3), 0.5, True),
    "fa_1d": lambda m: F(m).feature_alpha_dropout(m.randn(4), 0.5, True),
    "p_bad": lambda m: F(m).dropout2d(m.randn(4), 1.5),
    "mod2": lambda m: (m.nn.Dropout2d(0.25), m.nn.Dropout2d(0.25)(m.ones(2, 4, 3, 3))),
    "mod1": lambda m: (m.nn.Dropout1d(), m.nn.Dropout1d()(m.ones(2, 4, 3))),
    "mod3": lambda m: (m.nn.Dropout3d(inplace=True), m.nn.Dropout3d()(m.ones(2, 4, 3, 1, 1))),
    "modA": lambda m: (m.nn.AlphaDropout(0.3), m.nn.AlphaDropout(0.3)(m.ones(2, 4))),
    "modA_eval": lambda m: m.nn.AlphaDropout(0.3).eval()(m.ones(2, 4)),
    "modFA": lambda m: (m.nn.FeatureAlphaDropout(0.3),
                        m.nn.FeatureAlphaDropout(0.3, True)(m.ones(2, 4, 2))),
    "mod_bad": lambda m: m.nn.Dropout2d(-0.1),
}


@pytest.mark.parametrize("name", list(CASES))
def test_dropout_family(name):
    def seeded(m):
        m.manual_seed(3)
        return CASES[name](m)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (compared in test_dropout_warnings)
        engine_result, torch_result = parity.run_both(seeded, check_inputs=False)
    if isinstance(torch_result, Exception):
        return
    if isinstance(torch_result, tuple):  # (a module, its output)
        assert repr(engine_result[0]) == repr(torch_result[0])
        engine_result, torch_result = engine_result[-1], torch_result[-1]
    assert engine_result._version == torch_result._version


WARNED = {
    "dropout2d of 3-d input": lambda m: F(m).dropout2d(m.ones(2, 3, 4)),
    "dropout2d of 2-d input": lambda m: F(m).dropout2d(m.ones(2, 3)),
    "dropout3d of 3-d input": lambda m: F(m).dropout3d(m.ones(2, 3, 4)),
    "dropout3d of 5-d input": lambda m: F(m).dropout3d(m.ones(2, 3, 4, 1, 1)),
    "Dropout2d of 3-d input": lambda m: m.nn.Dropout2d()(m.ones(2, 3, 4)),
}


@pytest.mark.parametrize("name", list(WARNED))
def test_dropout_warnings(name):
    """torch's words; a module's warning names torch's own file there, the learner's line here."""
    seen = {}
    for m in (torch, engine):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            WARNED[name](m)
        seen[m.__name__] = [(w.category, str(w.message)) for w in caught]
    assert seen["engine"] == seen["torch"]


def test_a_network_with_dropout2d_prints_as_torchs():
    layers = lambda m: m.nn.Sequential(m.nn.Conv2d(1, 2, 3), m.nn.Dropout2d(0.25),  # noqa: E731
                                       m.nn.AlphaDropout(), m.nn.Dropout1d(inplace=True))
    assert repr(layers(engine)) == repr(layers(torch))


def test_torch_functional_offers_what_the_engine_has():
    """``import torch.functional as F`` (introyt's models tutorial): the same functions as
    torch.norm, torch.split ...; the names the engine lacks are listed in its docstring."""
    import engine.functional
    import torch.functional

    for name in engine.functional.__all__:
        assert getattr(engine.functional, name) is getattr(engine, name)
        assert getattr(torch.functional, name) is getattr(torch, name)
    missing = set(torch.functional.__all__) - set(engine.functional.__all__)
    assert all(name in engine.functional.__doc__ for name in missing), missing
    parity.run_both(lambda m: m.functional.split(m.arange(5.), 2))
    parity.run_both(lambda m: m.functional.norm(m.arange(5.), dim=0))
    parity.run_both(lambda m: m.functional.broadcast_shapes((2, 1), (3,)))
