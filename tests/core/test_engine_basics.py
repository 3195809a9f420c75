"""Key behaviours of the engine with hard-coded expectations: these run WITHOUT torch.

The expected values were taken from torch 2.15 (the parity tests check the same
things against torch itself when it is installed). They cover memory and views,
indexing, in-place changes, creation and conversion.
"""
import copy
import pickle
import warnings

import numpy as np
import pytest

import engine as torch  # the engine must behave exactly as torch here


def raises(error, phrase):
    """pytest.raises that also checks torch's key phrase is in the message."""
    return pytest.raises(error, match=phrase.replace("(", r"\(").replace(")", r"\)")
                         .replace("[", r"\[").replace("]", r"\]").replace(".", r"\."))


# ====================================================================== memory and views
def test_strides_and_offsets_of_views():
    x = torch.arange(12.).reshape(3, 4)
    assert x.stride() == (4, 1) and x.storage_offset() == 0 and x.is_contiguous()
    t = x.t()
    assert t.shape == torch.Size([4, 3]) and t.stride() == (1, 4) and not t.is_contiguous()
    assert x[1].stride() == (1,) and x[1].storage_offset() == 4
    assert x[:, 2].stride() == (4,) and x[:, 2].storage_offset() == 2
    assert x[::2, 1::2].stride() == (8, 2) and x[::2, 1::2].storage_offset() == 1
    assert x[None].stride() == (12, 4, 1)
    assert x[:, None].stride() == (4, 4, 1)
    assert x.unsqueeze(-1).stride() == (4, 1, 1)
    assert x.expand(2, 3, 4).stride() == (0, 4, 1)
    assert torch.arange(3.).expand(1, 3).stride() == (3, 1)
    assert torch.tensor(5.).expand(2, 1).stride() == (0, 0)
    assert x.narrow(1, 1, 2).storage_offset() == 1
    assert x[5:].shape == (0, 4) and x[5:].storage_offset() == 12  # start clamped to the size
    assert [p.storage_offset() for p in x.split(2, dim=1)] == [0, 2]


def test_views_share_memory_and_version():
    x = torch.arange(6.).reshape(2, 3)
    v = x.view(3, 2)
    assert v.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    assert x[1].data_ptr() == x.data_ptr() + 3 * x.element_size()
    v[0, 0] = 100.
    assert x[0, 0].item() == 100.
    assert x._version == 1 and v._version == 1
    x.t()[2].mul_(2)
    assert x.tolist() == [[100., 1., 4.], [3., 4., 10.]]
    assert x._version == 2


def test_view_needs_compatible_strides():
    x = torch.arange(6.).reshape(2, 3)
    with raises(RuntimeError, "view size is not compatible with input tensor's size and stride"):
        x.t().view(6)
    assert x.t().reshape(6).tolist() == [0., 3., 1., 4., 2., 5.]  # reshape copies instead
    assert x.t().reshape(6).untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
    assert x.reshape(6).untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    assert x.t().view(3, 1, 2).stride() == (1, 6, 3)
    with raises(RuntimeError, "shape '[4, 4]' is invalid for input of size 6"):
        x.view(4, 4)
    with raises(RuntimeError, "only one dimension can be inferred"):
        x.view(-1, -1)
    with raises(RuntimeError, "invalid shape dimension -2"):
        x.view(-2, 3)
    assert x.view(-1, 2).shape == (3, 2)


def test_contiguous_clone_and_layouts():
    x = torch.arange(6.).reshape(2, 3)
    assert x.contiguous() is x
    assert x.t().contiguous().stride() == (2, 1)
    assert x.t().clone().stride() == (1, 3)          # a dense layout is kept
    assert torch.zeros_like(x.t()).stride() == (1, 3)
    assert x.t().double().stride() == (1, 3)
    assert x[:, ::2].clone().stride() == (2, 1)      # not dense: becomes contiguous
    assert torch.arange(3.).expand(2, 3).clone().stride() == (3, 1)
    assert x[:, 1:2].clone().stride() == (1, 1)
    big = torch.arange(24.).reshape(2, 3, 4)
    assert big.permute(2, 0, 1)[::2].clone().stride() == (1, 6, 2)


def test_detach_and_data():
    x = torch.ones(3, requires_grad=True)
    d = x.detach()
    assert not d.requires_grad and d.data_ptr() == x.data_ptr()
    d.zero_()
    assert x._version == 1 and d._version == 1   # detach shares the version counter
    data = x.data
    data.add_(1)
    assert data._version == 1 and x._version == 1  # .data has its own
    assert x.tolist() == [1., 1., 1.]


def test_split_chunk_unbind():
    x = torch.arange(5.)
    assert [p.tolist() for p in x.split(2)] == [[0., 1.], [2., 3.], [4.]]
    assert [p.tolist() for p in x.split([1, 4])] == [[0.], [1., 2., 3., 4.]]
    assert [len(p) for p in torch.arange(6.).chunk(4)] == [2, 2, 2]
    assert len(torch.zeros(0).chunk(3)) == 3
    assert len(torch.zeros(0).split(1)) == 1
    assert [t.item() for t in x.unbind()] == [0., 1., 2., 3., 4.]
    with raises(RuntimeError, "split_with_sizes expects split_sizes to sum exactly to 5"):
        x.split([1, 2])
    with raises(RuntimeError, "chunk expects at least a 1-dimensional tensor"):
        torch.tensor(1.).chunk(2)


# ====================================================================== indexing
def test_basic_indexing_makes_views():
    x = torch.arange(24.).reshape(2, 3, 4)
    for view in (x[1], x[:, 1:], x[..., ::2], x[None, 0], x[0, ..., 1], x[torch.tensor(1)]):
        assert view.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    assert x[0, ..., 1].tolist() == [1., 5., 9.]
    assert x[1, -1, -1].item() == 23.
    assert x[...].data_ptr() == x.data_ptr() and x[...] is not x


def test_advanced_indexing_copies():
    x = torch.arange(24.).reshape(2, 3, 4)
    assert x[[1, 0]].shape == (2, 3, 4)
    assert x[[1, 0], [0, 2]].tolist() == [[12., 13., 14., 15.], [8., 9., 10., 11.]]
    assert x[0, :, [3, 1]].shape == (3, 2)             # the int is applied first (a view)
    assert x[[1], :, [3]].shape == (1, 3)              # indices apart: their dims go first
    assert x[x > 20].tolist() == [21., 22., 23.]
    assert x[:, torch.tensor([True, False, True])].shape == (2, 2, 4)
    assert x[True].shape == (1, 2, 3, 4) and x[False].shape == (0, 2, 3, 4)
    assert x[[0., 1.7]].shape == (2, 3, 4)              # float lists become int64 indices
    r = x[[1, 0]]
    assert r.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
    t = torch.arange(6.).reshape(2, 3).t()
    assert t[:, [1, 0]].stride() == (2, 1)


def test_indexing_errors():
    x = torch.arange(24.).reshape(2, 3, 4)
    with raises(IndexError, "index 2 is out of bounds for dimension 0 with size 2"):
        x[2]
    with raises(IndexError, "index -5 is out of bounds for dimension 1 with size 3"):
        x[0, -5]
    with raises(IndexError, "too many indices for tensor of dimension 3"):
        x[0, 0, 0, 0]
    with raises(ValueError, "step must be greater than zero"):
        x[::-1]
    with raises(IndexError, "index 3 is out of bounds for dimension 0 with size 3"):
        x[:, [0, 3]]
    with raises(IndexError, "The shape of the mask [3] at index 0 does not match the shape of "
                            "the indexed tensor [2, 3, 4] at index 0"):
        x[torch.tensor([True, False, True])]
    with raises(IndexError, "tensors used as indices must be long, int, byte or bool tensors"):
        x[torch.tensor([0., 1.])]
    s = torch.tensor(5.)
    with raises(IndexError, "invalid index of a 0-dim tensor. Use `tensor.item()`"):
        s[0]
    with raises(IndexError, "slice() cannot be applied to a 0-dim tensor."):
        s[:]


def test_setitem():
    x = torch.zeros(2, 3)
    x[0] = 1
    x[1, ::2] = torch.tensor([5., 6.])
    x[:, 1] = torch.tensor(7)          # a 0-d tensor fills
    assert x.tolist() == [[1., 7., 1.], [5., 7., 6.]]
    assert x._version == 3
    x[x > 5] = -1.
    assert x.tolist() == [[1., -1., 1.], [5., -1., -1.]]
    y = torch.arange(6).reshape(2, 3)
    y[0] = 2.7                          # Python numbers take the tensor's dtype
    assert y.tolist() == [[2, 2, 2], [3, 4, 5]]
    with raises(RuntimeError, "The expanded size of the tensor (3) must match the existing size "
                              "(2) at non-singleton dimension 0"):
        x[0] = torch.ones(2)
    with raises(RuntimeError, "shape mismatch: value tensor of shape [3] cannot be broadcast to "
                              "indexing result of shape [2, 2]"):
        x[:, [0, 2]] = torch.ones(3)
    with raises(RuntimeError, "Index put requires the source and destination dtypes match, got "
                              "Float for the destination and Long for the source."):
        x[[0]] = torch.ones(3, dtype=torch.int64)
    with raises(TypeError, "can't assign a list to a torch.FloatTensor"):
        x[0] = [1, 2, 3]
    with raises(RuntimeError, "value cannot be converted to type int8_t without overflow"):
        torch.zeros(2, dtype=torch.int8)[0] = 300


# ====================================================================== in-place
def test_inplace_ops_return_self_and_check():
    x = torch.arange(6.).reshape(2, 3)
    assert x.add_(1) is x and x.mul_(2) is x and x.clamp_(0, 8) is x
    assert x.tolist() == [[2., 4., 6.], [8., 8., 8.]] and x._version == 3
    assert x.t_() is x and x.shape == (3, 2) and x._version == 4
    i = torch.arange(3)
    with raises(RuntimeError, "result type Float can't be cast to the desired output type Long"):
        i.add_(1.5)
    with raises(RuntimeError, "output with shape [3] doesn't match the broadcast shape [2, 3]"):
        i.add_(torch.ones(2, 3, dtype=torch.int64))
    with raises(RuntimeError, "more than one element of the written-to tensor refers to a "
                              "single memory location"):
        torch.zeros(1).expand(3).add_(1)
    y = torch.arange(5.)
    with raises(RuntimeError, "some elements of the input tensor and the written-to tensor "
                              "refer to a single memory location"):
        y[1:].add_(y[:-1])
    assert torch.zeros(3).fill_(2).tolist() == [2., 2., 2.]
    with raises(RuntimeError, "value cannot be converted to type uint8_t without overflow"):
        torch.zeros(2, dtype=torch.uint8).fill_(256)


# ====================================================================== creation
def test_tensor_dtype_inference():
    assert torch.tensor([1, 2]).dtype is torch.int64
    assert torch.tensor([1, 2.]).dtype is torch.float32
    assert torch.tensor([True, False]).dtype is torch.bool
    assert torch.tensor([True, 2]).dtype is torch.int64
    assert torch.tensor([]).dtype is torch.float32
    assert torch.tensor(np.float64(1.5)).dtype is torch.float64
    assert torch.tensor([np.float32(1), 2]).dtype is torch.float32
    assert torch.tensor(np.arange(3, dtype=np.int32)).dtype is torch.int32
    assert torch.tensor([torch.tensor(1.), torch.tensor(2)]).dtype is torch.float32
    assert torch.full((2,), 3).dtype is torch.int64
    assert torch.full((2,), np.float64(3)).dtype is torch.float32
    assert torch.arange(5).dtype is torch.int64 and torch.arange(5.).dtype is torch.float32
    assert torch.linspace(0, 10, 5).dtype is torch.float32


def test_tensor_errors_and_warning():
    with raises(ValueError, "expected sequence of length 2 at dim 1 (got 1)"):
        torch.tensor([[1, 2], [3]])
    with raises(TypeError, "new(): invalid data type 'str'"):
        torch.tensor("abc")
    with raises(RuntimeError, "Could not infer dtype of NoneType"):
        torch.tensor(None)
    with raises(RuntimeError, "value cannot be converted to type uint8 without overflow"):
        torch.tensor([300], dtype=torch.uint8)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        copied = torch.tensor(torch.tensor([1, 2]))
    assert copied.tolist() == [1, 2]
    assert "To copy construct from a tensor, it is recommended to use " \
           "sourceTensor.detach().clone()" in str(caught[0].message)


def test_numpy_sharing():
    a = np.arange(3.)
    t = torch.from_numpy(a)
    a[0] = 10.
    t[1] = 20.
    assert t.tolist() == [10., 20., 2.] and a.tolist() == [10., 20., 2.]
    assert torch.as_tensor(a).data_ptr() == t.data_ptr()
    assert torch.tensor(a).data_ptr() != t.data_ptr()
    assert np.shares_memory(t.numpy(), a)
    with raises(ValueError, "At least one stride in the given numpy array is negative"):
        torch.from_numpy(a[::-1])
    with raises(TypeError, "can't convert np.ndarray of type numpy.object_"):
        torch.from_numpy(np.array([1, None]))
    with raises(RuntimeError, "Can't call numpy() on Tensor that requires grad"):
        torch.ones(2, requires_grad=True).numpy()


def test_factories():
    assert torch.zeros(2, 3).shape == torch.zeros((2, 3)).shape == torch.zeros([2, 3]).shape
    assert torch.zeros(torch.Size([2, 3])).shape == (2, 3)
    assert torch.ones(2, dtype=int).dtype is torch.int64
    assert torch.eye(2, 3).tolist() == [[1., 0., 0.], [0., 1., 0.]]
    assert torch.full((2,), 3.7, dtype=torch.int64).tolist() == [3, 3]
    assert torch.zeros(2).new_ones(3).dtype is torch.float32
    assert torch.zeros(2, dtype=torch.int32).new_tensor([1.5]).dtype is torch.int32
    with raises(RuntimeError, "Trying to create tensor with negative dimension -1: [-1]"):
        torch.ones(-1)
    with raises(RuntimeError, "Only Tensors of floating point and complex dtype can require "
                              "gradients"):
        torch.zeros(2, dtype=torch.int64, requires_grad=True)
    out = torch.zeros(2)
    assert torch.ones(2, 2, out=out) is out and out.shape == (2, 2)
    with raises(RuntimeError, "Found no NVIDIA driver on your system."):
        torch.zeros(2, device="cuda")


def test_ranges_bit_for_bit():
    # torch rounds start + step * i with a fused multiply-add, in float64 for float32 results
    assert torch.arange(-1.0, 1.0, 1 / 3).tolist() == [
        -1.0, -0.6666666865348816, -0.3333333432674408, -5.551115123125783e-17,
        0.3333333432674408, 0.6666666865348816]
    assert torch.arange(0, 1, 0.1, dtype=torch.float64).tolist()[-3:] == [
        0.7000000000000001, 0.8, 0.9]
    assert torch.arange(-2.7, 3, 1, dtype=torch.int64).tolist() == [-2, -1, 0, 1, 2, 3]
    assert torch.arange(1.5, 9.9, 1.7, dtype=torch.int32).tolist() == [1, 2, 3, 4, 5]
    assert torch.arange(0, 300, 100, dtype=torch.int8).tolist() == [0, 100, -56]
    assert torch.linspace(0, 3.7, 5, dtype=torch.int8).tolist() == [0, 0, 1, 2, 3]
    assert torch.linspace(-1, 1, 5).tolist() == [-1.0, -0.5, 0.0, 0.5, 1.0]
    assert torch.logspace(0, 2, 3, base=2).tolist() == [1., 2., 4.]
    assert torch.logspace(0, 2, 3, dtype=torch.int64).tolist() == [1, 10, 100]
    with raises(RuntimeError, "step must be nonzero"):
        torch.arange(0, 5, 0)
    # an integer range truncates start and step, but counts its elements from the floats
    assert torch.arange(1.5, 9.9, 0.7, dtype=torch.int64).tolist() == [1] * 13
    with raises(RuntimeError, "upper bound and lower bound inconsistent with step sign"):
        torch.arange(0, 5, -1)
    with raises(RuntimeError, "number of steps must be non-negative"):
        torch.linspace(0, 1, -1)


# ====================================================================== attributes and conversion
def test_attributes():
    x = torch.arange(6.).reshape(2, 3)
    assert repr(x.shape) == "torch.Size([2, 3])" and x.size(-1) == 3 and x.dim() == 2
    assert x.ndim == 2 and x.numel() == 6 and len(x) == 2
    assert repr(x.device) == "device(type='cpu')" and str(x.device) == "cpu"
    assert repr(x.dtype) == "torch.float32" and repr(x.layout) == "torch.strided"
    assert x.T.shape == (3, 2) and x.mT.stride() == (1, 3)
    assert repr(torch.Size([2, 3, 4])[1:]) == "torch.Size([3, 4])"
    assert repr((1,) + torch.Size([2])) == "torch.Size([1, 2])"
    with raises(IndexError, "Dimension out of range (expected to be in range of [-2, 1], but "
                            "got 2)"):
        x.size(2)
    with raises(IndexError, "Dimension specified as 0 but tensor has no dimensions"):
        torch.tensor(1.).size(0)
    with raises(TypeError, "len() of a 0-d tensor"):
        len(torch.tensor(1.))
    with raises(RuntimeError, "a Tensor with 6 elements cannot be converted to Scalar"):
        x.item()
    with raises(RuntimeError, "Boolean value of Tensor with more than one value is ambiguous"):
        bool(x)
    with raises(ValueError, "only one element tensors can be converted to Python scalars"):
        float(x)
    assert x.tolist() == [[0., 1., 2.], [3., 4., 5.]] and x[1, 1].item() == 4.0
    assert hash(x) != hash(x.view(2, 3))
    assert x.device == torch.device("cpu") and x.device != "cpu"


def test_conversions():
    x = torch.arange(6.).reshape(2, 3)
    assert x.float() is x and x.to(torch.float32) is x and x.to("cpu") is x and x.cpu() is x
    assert x.to(torch.float32, copy=True) is not x
    assert x.double().dtype is torch.float64 and x.long().dtype is torch.int64
    assert (x - 2.5).long().tolist() == [[-2, -1, 0], [0, 1, 2]]
    assert (x - 1).bool().tolist() == [[True, False, True], [True, True, True]]
    assert x.int().dtype is torch.int32 and x.half().dtype is torch.float16
    assert x.type() == "torch.FloatTensor" and x.type("torch.DoubleTensor").dtype is torch.float64
    assert x.to(torch.zeros(1, dtype=torch.int64)).dtype is torch.int64
    with raises(RuntimeError, "Found no NVIDIA driver on your system."):
        x.cuda()
    with raises(RuntimeError, "Found no NVIDIA driver on your system."):
        x.to("cuda")
    with raises(RuntimeError, "Invalid device string: 'float64'"):
        x.to("float64")


def test_pickle_and_deepcopy_keep_the_layout():
    x = torch.arange(6.).reshape(2, 3)
    view = x[1:, ::2]
    back = pickle.loads(pickle.dumps(view))
    assert back.tolist() == [[3., 5.]] and back.stride() == (3, 2)
    assert back.storage_offset() == 3 and back.untyped_storage().nbytes() == 24
    a, b = copy.deepcopy((x, x[1]))
    assert a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
    assert a.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
    assert copy.deepcopy(torch.ones(2, requires_grad=True)).requires_grad
