"""engine.load's refusals and options against torch 2.15: the weights-only default (a file
made to run a command runs nothing and fails with torch's error), safe globals, broken
files, map_location, mmap, the legacy (pre-1.6) format and save's own errors."""
import io
import os
import pickle
import pickletools
import warnings
import zipfile

import pytest

import engine

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch


class Point:
    """A class of the user's: not allowed by weights_only unless made safe."""

    def __init__(self, x=0):
        self.x = x

    def __eq__(self, other):
        return type(other) is Point and other.x == self.x


class RunsCommand:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"touch {self.marker}",)


class CallsExec:
    def __reduce__(self):
        return exec, ("open('should_not_exist', 'w')",)


def _outcome(m, fn):
    try:
        return "ok", fn(m)
    except Exception as error:  # noqa: BLE001 - the exception is what is compared
        return type(error), str(error)


def _same_outcome(fn):
    """fn(engine) and fn(torch) raise the same type with the same message, or both return."""
    mine, theirs = _outcome(engine, fn), _outcome(torch, fn)
    assert mine[0] is theirs[0], (mine, theirs)
    if mine[0] != "ok":
        assert mine[1] == theirs[1]
    return mine[1], theirs[1]


def _torch_file(obj, **kwargs):
    buffer = io.BytesIO()
    torch.save(obj, buffer, **kwargs)
    return buffer.getvalue()


GOOD = None


def _good():
    global GOOD
    GOOD = GOOD or _torch_file({"x": torch.arange(3.0), "n": 1})
    return GOOD


def _zip_without_data_pkl():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("archive/version", "3\n")
    return buffer.getvalue()


def _corrupt(record, position, byte):
    """A torch file with one byte of one record changed."""
    data = bytearray(_good())
    info = zipfile.ZipFile(io.BytesIO(bytes(data))).getinfo(f"archive/{record}")
    start = info.header_offset + 30 + len(info.filename) + \
        int.from_bytes(data[info.header_offset + 28:info.header_offset + 30], "little")
    data[start + position] = byte
    return bytes(data)


def _without_record(record):
    source, buffer = zipfile.ZipFile(io.BytesIO(_good())), io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in source.namelist():
            if name != f"archive/{record}":
                archive.writestr(name, source.read(name))
    return buffer.getvalue()


BROKEN = {
    "empty": lambda: b"",
    "truncated_half": lambda: _good()[:len(_good()) // 2],
    "truncated_end": lambda: _good()[:-10],
    "not_a_zip_text": lambda: b"hello world, not a checkpoint",
    "other_pickle": lambda: pickle.dumps(123, protocol=2),
    "zip_without_data_pkl": _zip_without_data_pkl,
    "zip_without_a_storage": lambda: _without_record("data/0"),
    "text_no_opcode": lambda: b"not a checkpoint",
    "pickle_byte_no_opcode": lambda: _corrupt("data.pkl", 3, ord("$")),
    "storage_byte_changed": lambda: _corrupt("data/0", 5, 0xFF),  # (no CRC check: loads)
}


@pytest.mark.parametrize("name", list(BROKEN))
@pytest.mark.parametrize("weights_only", [True, False])
def test_broken_files_fail_as_torchs(name, weights_only, tmp_path):
    data = BROKEN[name]()
    _same_outcome(lambda m: m.load(io.BytesIO(data), weights_only=weights_only))
    path = tmp_path / "broken.pt"
    path.write_bytes(data)
    _same_outcome(lambda m: m.load(path, weights_only=weights_only))


def test_a_directory_and_a_missing_file(tmp_path):
    _same_outcome(lambda m: m.load(str(tmp_path)))
    _same_outcome(lambda m: m.load(str(tmp_path / "missing.pt")))


@pytest.mark.parametrize("maker", ["torch", "engine"])
def test_a_file_that_would_run_a_command_runs_nothing(maker, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    marker = tmp_path / "marker"
    buffer = io.BytesIO()
    (torch if maker == "torch" else engine).save({"w": RunsCommand(marker)}, buffer)
    mine, theirs = _same_outcome(lambda m: m.load(io.BytesIO(buffer.getvalue())))
    assert "Trying to load unsupported GLOBAL posix.system whose module posix is blocked" in mine
    assert not marker.exists()
    # even allowlisting os.system does not let it through (its module is blocked)
    with engine.serialization.safe_globals([os.system]):
        with pytest.raises(pickle.UnpicklingError, match="is blocked"):
            engine.load(io.BytesIO(buffer.getvalue()))
    assert not marker.exists()
    exec_file = io.BytesIO()
    torch.save([CallsExec()], exec_file)
    mine, _ = _same_outcome(lambda m: m.load(io.BytesIO(exec_file.getvalue())))
    assert "Unsupported global: GLOBAL exec was not an allowed global" in mine
    assert not (tmp_path / "should_not_exist").exists()


def test_safe_globals_as_torchs():
    torchs_own = torch.serialization.get_safe_globals()  # (put back at the end)
    data = _torch_file({"p": Point(3), "t": torch.ones(2)})
    _same_outcome(lambda m: m.load(io.BytesIO(data)))  # refused: Point is not allowed
    for m in (engine, torch):
        with m.serialization.safe_globals([Point]):
            assert Point in m.serialization.get_safe_globals()
            assert m.load(io.BytesIO(data))["p"] == Point(3)
        assert Point not in m.serialization.get_safe_globals()
        m.serialization.add_safe_globals([(Point, f"{Point.__module__}.Point")])
        assert m.load(io.BytesIO(data))["p"] == Point(3)
        m.serialization.clear_safe_globals()
        assert m.serialization.get_safe_globals() == []  # (torch's own entries go too)
    _same_outcome(lambda m: m.load(io.BytesIO(data)))
    loaded = engine.load(io.BytesIO(data), weights_only=False)
    assert loaded["p"] == Point(3) and loaded["t"].tolist() == [1.0, 1.0]
    engine_file = io.BytesIO()
    engine.save({"p": Point(4)}, engine_file)
    assert torch.load(io.BytesIO(engine_file.getvalue()), weights_only=False)["p"] == Point(4)
    torch.serialization.add_safe_globals(torchs_own)


def test_bad_safe_global_entries_as_torchs():
    for entry in [(Point,), (Point, 3)]:
        def load(m, entry=entry):
            with m.serialization.safe_globals([entry]):
                return m.load(io.BytesIO(_torch_file({"p": Point(1)})))
        _same_outcome(load)


MAP_LOCATIONS = {
    "cpu": "cpu", "device": lambda m: m.device("cpu"), "dict": {"cpu": "cpu"},
    "callable_none": lambda storage, location: None,
    "callable_same": lambda storage, location: storage,
    "cuda": "cuda", "cuda_device": lambda m: m.device("cuda"), "dict_cuda": {"cpu": "cuda:0"},
    "unknown": "xyz", "int": 3,
}


@pytest.mark.parametrize("name", list(MAP_LOCATIONS))
def test_map_location_as_torchs(name):
    where = MAP_LOCATIONS[name]

    def load(m):
        location = where(m) if name.endswith("device") else where
        loaded = m.load(io.BytesIO(_good()), map_location=location)
        return loaded["x"].tolist(), loaded["n"]
    mine, theirs = _same_outcome(load)
    assert mine == theirs


def test_mmap_as_torchs(tmp_path):
    path = tmp_path / "model.pt"
    torch.save({"w": torch.arange(6.0).reshape(2, 3), "b": torch.ones(2)}, path)
    _same_outcome(lambda m: m.load(io.BytesIO(path.read_bytes()), mmap=True))
    before = path.read_bytes()
    mine = engine.load(path, mmap=True)
    assert mine["w"].tolist() == torch.load(path, mmap=True)["w"].tolist()
    mine["w"].add_(1)  # a private map: the file does not change (torch's MAP_PRIVATE)
    assert path.read_bytes() == before
    assert engine.load(path, mmap=False)["b"].tolist() == [1.0, 1.0]


def test_pickle_module_and_load_args_as_torchs():
    _same_outcome(lambda m: m.load(io.BytesIO(_good()), pickle_module=pickle,
                                   weights_only=True))
    mine, theirs = _same_outcome(lambda m: m.load(io.BytesIO(_good()), pickle_module=pickle))
    assert mine["x"].tolist() == theirs["x"].tolist()
    for m in (engine, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            m.load(io.BytesIO(_good()), encoding="latin1")
        assert [str(w.message) for w in caught] == \
            ["pickle_load_args only works if `weights_only=False`."]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same_outcome(lambda m: m.load(io.BytesIO(_good()), foo=1))
    _same_outcome(lambda m: m.load(io.BytesIO(_good()), weights_only=False, foo=1))


@pytest.mark.parametrize("weights_only", [True, False])
def test_legacy_format_loads(weights_only):
    base = torch.arange(6.0).reshape(2, 3)
    data = _torch_file({"base": base, "t": base.t(), "row": base[1],
                        "i": torch.tensor([1, 2], dtype=torch.int16), "n": 5},
                       _use_new_zipfile_serialization=False)
    mine = engine.load(io.BytesIO(data), weights_only=weights_only)
    theirs = torch.load(io.BytesIO(data), weights_only=weights_only)
    for key in ("base", "t", "row", "i"):
        parity.assert_same(mine[key], theirs[key])
    assert mine["n"] == 5
    mine["base"].zero_()  # still one storage
    assert mine["t"].tolist() == [[0.0, 0.0]] * 3 and mine["row"].tolist() == [0.0] * 3


def _legacy_file():
    return _torch_file({"w": torch.arange(4.0), "i": torch.arange(3, dtype=torch.int16)},
                       _use_new_zipfile_serialization=False)


def _storage_part_start(data):
    """Where a legacy file's storages begin: after its five pickles."""
    stream = io.BytesIO(data)
    for _ in range(5):
        for _ in pickletools.genops(stream):  # (reads up to and including the pickle's STOP)
            pass
    return stream.tell()


@pytest.mark.parametrize("weights_only", [True, False])
def test_a_legacy_file_cut_in_its_storages_fails_as_torchs(weights_only, tmp_path):
    """Cut anywhere in the element counts or the storages' bytes: torch's count of the bytes
    still missing (a file ends sooner), never a partly filled tensor."""
    data = _legacy_file()
    start = _storage_part_start(data)
    assert 0 < start < len(data) - 8
    for cut in range(start, len(data)):
        _same_outcome(lambda m, cut=cut: m.load(io.BytesIO(data[:cut]),
                                                 weights_only=weights_only))
    path = tmp_path / "cut.pt"
    path.write_bytes(data[:-3])
    mine, _ = _same_outcome(lambda m: m.load(path, weights_only=weights_only))
    assert mine == "unexpected EOF, expected 3 more bytes. The file might be corrupted."


@pytest.mark.parametrize("count", [0, 1, 7, 2 ** 40])
def test_a_legacy_storage_of_the_wrong_size_fails_as_torchs(count):
    data = bytearray(_legacy_file())
    start = _storage_part_start(bytes(data))
    data[start:start + 8] = count.to_bytes(8, "little")
    mine, _ = _same_outcome(lambda m: m.load(io.BytesIO(bytes(data))))
    assert mine.startswith("storage has wrong byte size: expected ")


def test_mmap_of_a_legacy_file_fails_as_torchs(tmp_path):
    path = tmp_path / "legacy.pt"
    path.write_bytes(_legacy_file())
    for where in (str(path), path, io.BytesIO(path.read_bytes())):
        def load(m, where=where):
            if isinstance(where, io.BytesIO):
                where.seek(0)
            return m.load(where, mmap=True)
        mine, _ = _same_outcome(load)
        assert mine.startswith("mmap can only be used with files saved with `torch.save(")
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a checkpoint at all")
    _same_outcome(lambda m: m.load(str(junk), mmap=True))


def test_save_errors_as_torchs(tmp_path):
    _same_outcome(lambda m: m.save(m.ones(1), str(tmp_path / "no" / "such" / "x.pt")))
    _same_outcome(lambda m: m.save(m.ones(1), str(tmp_path)))
    base = engine.arange(4, dtype=engine.int32)
    with pytest.raises(RuntimeError, match="Cannot save multiple tensors or storages that view "
                                           "the same data as different types"):
        engine.save([base, base.view(engine.float32)], io.BytesIO())
    tbase = torch.arange(4, dtype=torch.int32)
    with pytest.raises(RuntimeError, match="Cannot save multiple tensors or storages that view "
                                           "the same data as different types"):
        torch.save([tbase, tbase.view(torch.float32)], io.BytesIO())


def _saved_on_gpu():
    """A torch checkpoint as a GPU machine writes it: storages tagged 'cuda:0' (made from a
    CPU one by renaming the location string in data.pkl; its length is in the opcode)."""
    source, buffer = zipfile.ZipFile(io.BytesIO(_good())), io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in source.namelist():
            data = source.read(name)
            if name.endswith("data.pkl"):
                data = data.replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")
            archive.writestr(name, data)
    return buffer.getvalue()


@pytest.mark.parametrize("where", ["none", "cpu", "device", "dict", "dict_other", "callable"])
def test_a_checkpoint_saved_on_a_gpu(where):
    locations = {"none": None, "cpu": "cpu", "device": "device", "dict": {"cuda:0": "cpu"},
                 "dict_other": {"cuda:1": "cpu"}, "callable": lambda storage, location: storage}

    def load(m):
        location = m.device("cpu") if where == "device" else locations[where]
        loaded = m.load(io.BytesIO(_saved_on_gpu()), map_location=location)
        return loaded["x"].tolist()
    mine, theirs = _same_outcome(load)
    assert mine == theirs


def test_a_whole_model_as_torchs(tmp_path):
    """torch.save(model) pickles the classes: weights_only refuses them, naming the class
    (engine.nn... where torch says torch.nn...); weights_only=False gives the model back."""
    outcomes = {}
    for m in (engine, torch):
        m.manual_seed(0)
        model = m.nn.Sequential(m.nn.Linear(3, 2), m.nn.ReLU())
        path = tmp_path / f"{m.__name__}.pth"
        m.save(model, path)
        with pytest.raises(pickle.UnpicklingError) as refused:
            m.load(path)
        outcomes[m.__name__] = str(refused.value).replace("engine.nn.", "torch.nn.")
        again = m.load(path, weights_only=False)
        assert type(again) is type(model) and repr(again) == repr(model)
        x = m.ones(2, 3)
        assert again(x).tolist() == model(x).tolist()
    assert outcomes["engine"] == outcomes["torch"]


@pytest.mark.parametrize("compression", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
def test_a_checkpoint_re_zipped_by_python(compression):
    """The same records in an archive Python's zipfile wrote (no 64-byte alignment; or
    compressed): both load it alike."""
    source, buffer = zipfile.ZipFile(io.BytesIO(_good())), io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name in source.namelist():
            archive.writestr(name, source.read(name))
    mine, theirs = _same_outcome(lambda m: m.load(io.BytesIO(buffer.getvalue()))["x"].tolist())
    assert mine == theirs


# ---------------------------------------------------------------- torch.return_types
def _return_types(m):
    t = m.tensor([[1.0, 5.0, 2.0], [3.0, 2.0, 9.0]])
    return {"max": m.max(t, 0), "sort": t.sort(), "topk": t.topk(2), "aminmax": m.aminmax(t),
            "frexp": m.frexp(t), "slogdet": m.linalg.slogdet(t[:, :2]), "cummax": t.cummax(1),
            "median": t.median(1), "kthvalue": t.kthvalue(1)}


def _printed(results):
    return {name: repr(value) for name, value in results.items()}


@pytest.mark.parametrize("protocol", [0, 2, 4, pickle.HIGHEST_PROTOCOL])
def test_return_types_pickle_and_copy(protocol):
    """Session 30: ``pickle.dumps(torch.max(t, 0))`` raised PicklingError (the classes' home
    module was not where their names lead); torch's pickle and copy fine."""
    import copy
    results = _return_types(engine)
    for name, value in results.items():
        for again in (pickle.loads(pickle.dumps(value, protocol=protocol)), copy.copy(value),
                      copy.deepcopy(value)):
            assert type(again) is type(value) and repr(again) == repr(value), name
    assert engine.return_types.max is type(results["max"])
    assert type(engine.return_types).__name__ == type(torch.return_types).__name__ == "module"
    missing = {name for name in dir(torch.return_types) if not name.startswith("_")} - set(
        dir(engine.return_types))
    assert {"max", "sort", "topk", "aminmax", "frexp", "slogdet", "linalg_slogdet"}.isdisjoint(
        missing)


@pytest.mark.parametrize("protocol", [2, 3])
def test_return_types_in_checkpoints_cross_both_ways(protocol):
    """A checkpoint holding return types names them as torch does (torch.return_types.max,
    called with the fields' tuple and a dict): torch loads the engine's file and the engine
    torch's (weights_only=False), and weights_only=True refuses both alike."""
    printed = _printed(_return_types(torch))
    assert printed == _printed(_return_types(engine))
    for maker, loader in ((engine, torch), (torch, engine)):
        buffer = io.BytesIO()
        maker.save(_return_types(maker), buffer, pickle_protocol=protocol)
        data = buffer.getvalue()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (protocol 3: the warning has its own test)
            loaded = loader.load(io.BytesIO(data), weights_only=False)
            assert _printed(loaded) == printed
            assert type(loaded["max"]) is loader.return_types.max
            _same_outcome(lambda m, data=data: m.load(io.BytesIO(data)))


@pytest.mark.parametrize("protocol", [0, 1, 2, 3])
def test_a_protocol_other_than_2_warns_as_torchs(protocol):
    """torch's weights-only unpickler warns when the pickle's PROTO opcode is not 2 (protocol
    3 still loads; 0 and 1 have no PROTO opcode)."""
    data = _torch_file(torch.tensor([1.0, 2.0]), pickle_protocol=protocol)
    caught = {}
    for m in (torch, engine):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            _outcome(m, lambda m: m.load(io.BytesIO(data)))
        caught[m] = [(w.category, str(w.message)) for w in seen]
    assert caught[engine] == caught[torch]
    assert bool(caught[torch]) == (protocol == 3)
