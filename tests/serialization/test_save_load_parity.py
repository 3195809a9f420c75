"""engine.save / engine.load against torch 2.15, in both directions.

Files written by the engine are torch's byte for byte (every record, header and offset;
only the 40-digit serialization id differs, a hash torch computes with its C++ string
hash), and torch.load reads them with the same values, dtypes, shapes, strides, storage
offsets, shared storages, requires_grad and Parameter types. Files written by torch load in
the engine the same way. The default load is weights-only: a file that would run a command
is refused with torch's error and runs nothing.
"""
import collections
import io
import zipfile

import pytest

import engine

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch


LAYOUTS = {
    "contiguous": lambda x: x,
    "transposed": lambda x: x.t() if x.dim() == 2 else x,
    "offset": lambda x: x[1:] if x.dim() and x.shape[0] > 1 else x,
    "strided": lambda x: x[..., ::2] if x.dim() else x,
    "expanded": lambda x: x.unsqueeze(0).expand(2, *x.shape),
}
TENSOR_SHAPES = [(), (3,), (2, 3), (3, 4), (0,), (2, 0), (2, 3, 4)]


def _trained_optimizer(m, name):
    """An optimizer's state_dict after two steps, from the same start under both modules."""
    m.manual_seed(0)
    model = m.nn.Linear(3, 2)
    kwargs = {"lr": 0.1, "momentum": 0.9} if name == "SGD" else {"lr": 0.01}
    opt = getattr(m.optim, name)(model.parameters(), **kwargs)
    for _ in range(2):
        opt.zero_grad()
        model(m.ones(4, 3)).pow(2).sum().backward()
        opt.step()
    return opt.state_dict()


def _with_grad(m):
    leaf = m.ones(2, requires_grad=True)
    (leaf * 3).sum().backward()
    return leaf


def _with_attributes(m):
    """Tensors with attributes set in Python: torch saves them too."""
    t, p = m.arange(3.0), m.nn.Parameter(m.ones(2))
    t.note, t.step = "scaled", 3
    p.tag = "weight"
    return [t, p, t]


def _objects(m):
    """Checkpoints a learner writes, built the same way with engine or torch as ``m``."""
    m.manual_seed(0)
    base = m.arange(12.0).reshape(3, 4)
    model = m.nn.Sequential(m.nn.Linear(4, 3), m.nn.BatchNorm1d(3), m.nn.ReLU(),
                            m.nn.Sequential(m.nn.Linear(3, 2), m.nn.LayerNorm(2)))
    return {
        "views": {"base": base, "t": base.t(), "row": base[1], "col": base[:, 2],
                  "flat": base.view(12)},
        "dtypes": [m.tensor([1, 2, 3], dtype=getattr(m, d)) for d in parity.DTYPES],
        "zero_d_and_empty": (m.tensor(3.5), m.tensor(7, dtype=m.int8), m.empty(0, 3),
                             m.zeros(2, 0, dtype=m.int64)),
        "parameter": m.nn.Parameter(m.ones(2, 2)),
        "requires_grad": {"leaf": m.ones(3, requires_grad=True),
                          "frozen": m.nn.Parameter(m.zeros(2), requires_grad=False),
                          "non_leaf": m.ones(2, requires_grad=True) * 2,
                          "with_grad": _with_grad(m)},  # (.grad is not saved, in torch too)
        "state_dict": model.state_dict(),
        "nested": {"epoch": 3, "loss": 0.25, "name": "run-1", "none": None, "flag": True,
                   "list": [1, 2.5, "x", (m.ones(2),)], "tuple": (m.zeros(1), [m.ones(1)]),
                   "od": collections.OrderedDict(a=1, b=m.full((2,), 2.0)),
                   "size": m.Size([2, 3]), "dtype": m.float16, "device": m.device("cpu"),
                   "layout": m.strided,
                   "set": {1, 2}},
        "many_storages": [m.full((2,), float(i)) for i in range(12)],
        "optimizer": _trained_optimizer(m, "Adam"),
        "attributes": _with_attributes(m),
        # the engine pickles with its own global names, then renames them to torch's: data
        # that holds those very bytes must come through unchanged (the slower pickler's way)
        "engine_names_as_data": {"t": m.ones(1), "dt": m.float32, "size": m.Size([1]),
                                 "b": b"cengine.serialization.names\nrebuild_tensor_v2\n",
                                 "s": "cengine\nfloat32\n", "u": "cengine\nSize\n"},
        "engine_name_as_data_only": [b"cengine.serialization.names\nrebuild_tensor_v2\n"],
        "sgd_momentum": _trained_optimizer(m, "SGD"),
        "python_values": {"complex": 1 + 2j, "bytes": b"\x00\xffab", "ba": bytearray(b"xy"),
                          "counter": collections.Counter("aab"), "big": 2 ** 70, "neg": -3,
                          "float": -0.0, "inf": float("inf"), "unicode": "\u00e9\u4e2d"},
        "same_tensor_twice": (lambda t: [t, t, t[1:]])(m.arange(4)),
    }


def _torch_bytes(obj):
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getvalue()


def _engine_bytes(obj):
    buffer = io.BytesIO()
    engine.save(obj, buffer)
    return buffer.getvalue()


def _records(data):
    archive = zipfile.ZipFile(io.BytesIO(data))
    return [(i.filename, i.header_offset, i.file_size, i.flag_bits, i.compress_type,
             archive.read(i) if not i.filename.endswith("serialization_id") else None)
            for i in archive.infolist()]


@pytest.mark.parametrize("name", list(_objects(torch)))
def test_engine_writes_torchs_bytes(name):
    mine, theirs = _engine_bytes(_objects(engine)[name]), _torch_bytes(_objects(torch)[name])
    assert _records(mine) == _records(theirs)
    # everything before the serialization id's record is the very same bytes
    start = zipfile.ZipFile(io.BytesIO(theirs)).getinfo("archive/.data/serialization_id")
    assert mine[:start.header_offset] == theirs[:start.header_offset]
    assert len(mine) == len(theirs)


def _attributes(tensor):
    return {k: v for k, v in vars(tensor).items() if not k.startswith("_")}


@pytest.mark.parametrize("protocol", [1, 3, 4, 5])
@pytest.mark.parametrize("name", ["views", "state_dict", "nested", "attributes",
                                  "python_values", "optimizer"])
def test_engine_writes_torchs_bytes_in_other_protocols(name, protocol):
    """``pickle_protocol=``: data.pkl as torch's in each (from 4 on, globals are strings
    the memo refers back to)."""
    mine, theirs = io.BytesIO(), io.BytesIO()
    engine.save(_objects(engine)[name], mine, pickle_protocol=protocol)
    torch.save(_objects(torch)[name], theirs, pickle_protocol=protocol)
    assert _records(mine.getvalue()) == _records(theirs.getvalue())


def _same(engine_obj, torch_obj, versions=True):
    """Recursively equal: tensors by parity.assert_same (dtype, shape, strides, offset,
    values), plus their type (Parameter) and requires_grad."""
    if isinstance(torch_obj, torch.Tensor):
        assert isinstance(engine_obj, engine.Tensor)
        assert isinstance(engine_obj, engine.nn.Parameter) == \
            isinstance(torch_obj, torch.nn.Parameter)
        assert engine_obj.requires_grad == torch_obj.requires_grad
        assert engine_obj.untyped_storage().nbytes() == torch_obj.untyped_storage().nbytes()
        assert not versions or engine_obj._version == torch_obj._version  # (set_: 1)
        parity.assert_same(engine_obj.detach(), torch_obj.detach())
        assert _attributes(engine_obj) == _attributes(torch_obj)
    elif isinstance(torch_obj, dict):
        assert type(engine_obj) is type(torch_obj)
        assert list(engine_obj) == list(torch_obj)
        for key in torch_obj:
            _same(engine_obj[key], torch_obj[key], versions)
    elif isinstance(torch_obj, (list, tuple)) and not isinstance(torch_obj, torch.Size):
        assert type(engine_obj) is type(torch_obj) and len(engine_obj) == len(torch_obj)
        for a, b in zip(engine_obj, torch_obj):
            _same(a, b, versions)
    elif isinstance(torch_obj, (torch.Size, torch.dtype, torch.device, torch.layout)):
        assert repr(engine_obj) == repr(torch_obj)
    else:
        assert type(engine_obj) is type(torch_obj) and engine_obj == torch_obj


def _sharing(obj, is_tensor):
    """Which tensors (by position in a flat walk) share a storage: the pattern, not the
    addresses."""
    found = []

    def walk(o):
        if is_tensor(o):
            found.append(o)
        elif isinstance(o, dict):
            for v in o.values():
                walk(v)
        elif isinstance(o, (list, tuple)):
            for v in o:
                walk(v)
    walk(obj)
    ptrs = [t.untyped_storage().data_ptr() for t in found]
    return [[j for j, q in enumerate(ptrs) if q == p and p] for p in ptrs]


@pytest.mark.parametrize("name", list(_objects(torch)))
@pytest.mark.parametrize("target", ["bytesio", "path"])
def test_engine_file_loads_in_torch(name, target, tmp_path):
    obj = _objects(engine)[name]
    f = tmp_path / "checkpoint.pt" if target == "path" else io.BytesIO()
    engine.save(obj, f)
    if target == "bytesio":
        f.seek(0)
    loaded = torch.load(f)
    _same(obj, loaded, versions=False)
    assert _sharing(obj, lambda o: isinstance(o, engine.Tensor)) == \
        _sharing(loaded, lambda o: isinstance(o, torch.Tensor))


@pytest.mark.parametrize("name", list(_objects(torch)))
@pytest.mark.parametrize("target", ["bytesio", "path"])
def test_torch_file_loads_in_engine(name, target, tmp_path):
    obj = _objects(torch)[name]
    f = tmp_path / "checkpoint.pt" if target == "path" else io.BytesIO()
    torch.save(obj, f)
    if target == "bytesio":
        f.seek(0)
    loaded = engine.load(f)
    _same(loaded, torch.load(io.BytesIO(f.getvalue()) if target == "bytesio" else f))
    assert _sharing(loaded, lambda o: isinstance(o, engine.Tensor)) == \
        _sharing(obj, lambda o: isinstance(o, torch.Tensor))


@pytest.mark.parametrize("dtype", parity.DTYPES)
@pytest.mark.parametrize("shape", TENSOR_SHAPES, ids=str)
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_tensor_layouts_both_ways(dtype, shape, layout):
    x = LAYOUTS[layout](parity.make_tensor(shape, dtype))
    t = LAYOUTS[layout](parity.to_torch(parity.make_tensor(shape, dtype)))
    from_engine = torch.load(io.BytesIO(_engine_bytes(x)))
    _same(x, from_engine, versions=False)
    assert from_engine.storage_offset() == x.storage_offset()
    from_torch = engine.load(io.BytesIO(_torch_bytes(t)))
    _same(from_torch, t, versions=False)
    assert from_torch.storage_offset() == t.storage_offset()
    assert _engine_bytes(x)[:200] == _torch_bytes(t)[:200]


def test_views_stay_views_of_one_storage_after_loading():
    base = engine.arange(6.0).reshape(2, 3)
    loaded = engine.load(io.BytesIO(_engine_bytes([base, base.t(), base[1]])))
    loaded[1][0, 1] = 100.0  # the transposed view's [0, 1] is base[1, 0]
    assert loaded[0][1, 0].item() == 100.0 and loaded[2][0].item() == 100.0
    from_torch = engine.load(io.BytesIO(_torch_bytes((lambda b: [b, b[1]])(
        torch.arange(6.0).reshape(2, 3)))))
    from_torch[0].zero_()
    assert from_torch[1].tolist() == [0.0, 0.0, 0.0]


def test_torch_model_state_dict_into_engine_model(tmp_path):
    torch.manual_seed(0)
    theirs = torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3), torch.nn.BatchNorm2d(2),
                                 torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.Linear(8, 3))
    theirs.train()
    theirs(torch.randn(4, 1, 4, 4))  # running stats move
    theirs.eval()
    path = tmp_path / "model.pth"
    torch.save(theirs.state_dict(), path)
    mine = engine.nn.Sequential(engine.nn.Conv2d(1, 2, 3), engine.nn.BatchNorm2d(2),
                                engine.nn.ReLU(), engine.nn.Flatten(), engine.nn.Linear(8, 3))
    mine.load_state_dict(engine.load(path))
    mine.eval()
    x = parity.make_tensor((2, 1, 4, 4), "float32")
    parity.assert_same(mine(x).detach(), theirs(parity.to_torch(x)).detach(), exact=False)


def test_engine_model_state_dict_into_torch_model():
    engine.manual_seed(0)
    mine = engine.nn.Sequential(engine.nn.Linear(4, 5), engine.nn.Tanh(), engine.nn.Linear(5, 2))
    theirs = torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.Tanh(), torch.nn.Linear(5, 2))
    theirs.load_state_dict(torch.load(io.BytesIO(_engine_bytes(mine.state_dict()))))
    x = parity.make_tensor((3, 4), "float32")
    parity.assert_same(mine(x).detach(), theirs(parity.to_torch(x)).detach(), exact=False)


@pytest.mark.parametrize("optimizer", ["SGD", "Adam"])
def test_optimizer_state_dict_both_ways(optimizer):
    mine, theirs = _trained_optimizer(engine, optimizer), _trained_optimizer(torch, optimizer)
    from_engine = torch.load(io.BytesIO(_engine_bytes(mine)))
    for key in ("param_groups",):
        assert from_engine[key] == theirs[key]
    for index, state in theirs["state"].items():
        for name, value in state.items():
            torch.testing.assert_close(from_engine["state"][index][name], value)
    _same(engine.load(io.BytesIO(_torch_bytes(theirs))), theirs, versions=False)


def test_state_dict_metadata_as_torchs():
    for m in (engine, torch):
        m.manual_seed(0)
    mine, theirs = (_objects(m)["state_dict"] for m in (engine, torch))
    assert mine._metadata == theirs._metadata
    assert list(mine._metadata) == ["", "0", "1", "2", "3", "3.0", "3.1"]


def test_without_the_byteorder_record_as_torchs():
    mine, theirs = io.BytesIO(), io.BytesIO()
    engine.save(_objects(engine)["views"], mine, _disable_byteorder_record=True)
    torch.save(_objects(torch)["views"], theirs, _disable_byteorder_record=True)
    assert _records(mine.getvalue()) == _records(theirs.getvalue())
    _same(engine.load(io.BytesIO(theirs.getvalue())), torch.load(io.BytesIO(mine.getvalue())))


def test_a_memory_format_does_not_save_as_in_torch():
    for m in (engine, torch):
        with pytest.raises(TypeError, match="cannot pickle 'module' object"):
            m.save({"format": m.contiguous_format}, io.BytesIO())


def test_archive_folder_named_as_torch_names_it(tmp_path):
    for name in ("model.pt", "my.model.pt", "weights", "a.b.c.pth"):
        torch.save(torch.ones(1), tmp_path / ("t_" + name))
        engine.save(engine.ones(1), tmp_path / ("e_" + name))
        assert [n.replace("e_", "t_", 1) for n in
                zipfile.ZipFile(tmp_path / ("e_" + name)).namelist()] == \
            zipfile.ZipFile(tmp_path / ("t_" + name)).namelist()
