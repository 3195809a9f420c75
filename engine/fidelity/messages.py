"""torch's long error and warning texts, word for word, each under a name.

Learners compare what the engine prints with what PyTorch prints, so the texts
must match; they are kept here so that the code raising them stays short to read:
``raise RuntimeError(messages.SECOND_BACKWARD)``.
"""
import contextlib
import os
import re
import sys
import warnings

from . import dtypes

# torch's warnings from C++ end with the source line that raised them, which changes with
# every torch build (TensorBody.h:493 in 2.13, :488 in 2.15). The engine prints what torch
# 2.15.0's Linux wheel prints; nbval and compare-torch mask the location.
TRIGGERED_IN_TENSOR_BODY = (" (Triggered internally at /__w/pytorch/pytorch/build/aten/src/"
                            "ATen/core/TensorBody.h:488.)")
TRIGGERED_IN_PYTHON_TENSOR = (" (Triggered internally at /__w/pytorch/pytorch/torch/csrc/tensor/"
                              "python_tensor.cpp:74.)")


def shape_numpy_cannot_hold(shape):
    """The engine's own error (PyTorch has none): a tensor without elements whose other
    dimensions multiply past what numpy can index (notebooks/DIFFERENCES.md)."""
    return (f"the engine cannot make a tensor of sizes=[{', '.join(str(n) for n in shape)}]: "
            "its data are a numpy array, and numpy refuses a shape whose nonzero sizes "
            "multiply past 2**63 bytes, even with no elements (PyTorch makes it)")


def triggered_in(source):
    """The ending of a warning torch gives from C++ (``source``: its file and line in torch's
    source tree)."""
    return f" (Triggered internally at /__w/pytorch/pytorch/{source}.)"


INDEXING_WITH_UINT8 = ("indexing with dtype torch.uint8 is now deprecated, please use a dtype "
                       "torch.bool instead. (Triggered internally at /__w/pytorch/pytorch/aten/"
                       "src/ATen/native/IndexingUtils.h:37.)")
INDEX_PUT_EXPANDED = ("Use of index_put_ on expanded tensors is deprecated. Please clone() the "
                      "tensor before performing this operation. This also applies to advanced "
                      "indexing e.g. tensor[indices] = tensor (Triggered internally at "
                      "/__w/pytorch/pytorch/aten/src/ATen/native/TensorAdvancedIndexing.cpp:975.)")
INDEX_FILL_EXPANDED = ("Use of index_fill_ on expanded tensors is deprecated. Please clone() the "
                       "tensor before performing this operation. This also applies to advanced "
                       "indexing e.g. tensor[mask] = scalar (Triggered internally at "
                       "/__w/pytorch/pytorch/aten/src/ATen/native/TensorAdvancedIndexing.cpp:"
                       "1929.)")
MASKED_FILL_EXPANDED = ("Use of masked_fill_ on expanded tensors is deprecated. Please clone() "
                        "the tensor before performing this operation. This also applies to "
                        "advanced indexing e.g. tensor[mask] = scalar (Triggered internally at "
                        "/__w/pytorch/pytorch/aten/src/ATen/native/TensorAdvancedIndexing.cpp:"
                        "2469.)")

_DEPRECATED_OVERLOADS = {  # name: (the scale-first overload, the one to use), as a method
    "add": ("Number alpha, Tensor other", "Tensor other, *, Number alpha = 1"),
    "sub": ("Number alpha, Tensor other", "Tensor other, *, Number alpha = 1"),
    "addcmul": ("Number value, Tensor tensor1, Tensor tensor2",
                "Tensor tensor1, Tensor tensor2, *, Number value = 1"),
    "addcdiv": ("Number value, Tensor tensor1, Tensor tensor2",
                "Tensor tensor1, Tensor tensor2, *, Number value = 1"),
}


DEPRECATED_OVERLOAD_START = "This overload of "


def deprecated_overload(name, method):
    """torch's warning for an overload that takes the scale first (x.add_(-0.1, g)), as a
    method (``name`` ending in _ when in place) or as the torch. function."""
    old, new = _DEPRECATED_OVERLOADS[name.rstrip("_")]
    if not method:
        old = f"Tensor input, {old}, *, Tensor out = None"
        new = f"Tensor input, {new}, Tensor out = None"
    return (f"{DEPRECATED_OVERLOAD_START}{name} is deprecated:\n\t{name}({old})\nConsider "
            f"using one of the following signatures instead:\n\t{name}({new}) (Triggered "
            "internally at "
            "/__w/pytorch/pytorch/torch/csrc/utils/python_arg_parser.cpp:1833.)")


def no_degrees_of_freedom(name):
    return (f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "reduction factor (input numel divided by output numel). (Triggered internally at "
            "/__w/pytorch/pytorch/aten/src/ATen/native/ReduceOps.cpp:1927.)")


_ENGINE_FOLDER = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def warn_from_learner(message, category=UserWarning):
    """``warnings.warn`` naming the first line outside the engine, however deep in the engine
    the warning starts: torch's warnings from C++ name the Python line that called torch."""
    frame, level = sys._getframe(1), 2
    while frame is not None and frame.f_code.co_filename.startswith(_ENGINE_FOLDER):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


def layout_contract_broken(grad_shape, grad_stride, param_shape, param_stride):
    """torch's warning (once per process) when a second gradient added into a leaf's .grad
    leaves it laid out otherwise than the leaf."""
    def listed(values):
        return "[" + ", ".join(str(v) for v in values) + "]"
    return ("grad and param do not obey the gradient layout contract. This is not an error, "
            f"but may impair performance.\ngrad.sizes() = {listed(grad_shape)}, strides() = "
            f"{listed(grad_stride)}\nparam.sizes() = {listed(param_shape)}, strides() = "
            f"{listed(param_stride)}"
            + triggered_in("torch/csrc/autograd/functions/accumulate_grad.h:252"))


SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.")

NOT_A_LEAF_FLAG_TRUE = "you can only change requires_grad flags of leaf variables."
"""``t.requires_grad = True`` on a computed tensor; False adds NOT_A_LEAF_FLAG's advice."""

NOT_A_LEAF_FLAG = (
    "you can only change requires_grad flags of leaf variables. If you want to use a computed "
    "variable in a subgraph that doesn't require differentiation use var_no_grad = "
    "var.detach().")

PACK_HOOK_INPLACE = (
    "A saved tensor pack hook is modifying its input in place. Tensors provided as input to "
    "pack hook cannot be modified by in-place operations as this can lead to unexpected "
    "side-effects. Please open an issue if you need to perform in-place operations on the "
    "input to a pack hook.")

REGISTER_HOOKS_FREED = (
    "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate "
    "values of the graph are freed when you call .backward() or autograd.grad(). Specify "
    "retain_graph=True if you need to backward through the graph a second time or if you need "
    "to access saved variables after calling backward.")

REGISTER_HOOKS_NUMBER = (
    "Calling register_hooks on a saved number: the engine keeps the numbers an operation saves "
    "as numbers, not as tensors (notebooks/DIFFERENCES.md)")


def register_hooks_arguments(saved, pack_hook, unpack_hook):
    """pybind11's refusal of ``saved._raw_saved_x.register_hooks`` arguments that are not
    callables."""
    return ("register_hooks(): incompatible function arguments. The following argument types "
            "are supported:\n    1. (self: torch._C._autograd.SavedTensor, arg0: "
            "collections.abc.Callable, arg1: collections.abc.Callable) -> None\n\nInvoked with: "
            f"<torch._C._autograd.SavedTensor object at {hex(id(saved))}>, {pack_hook!r}, "
            f"{unpack_hook!r}")


INFERENCE_REQUIRES_GRAD = ("Setting requires_grad=True on inference tensor outside "
                           "InferenceMode is not allowed.")

INFERENCE_SAVED = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead "
    "of `torch.inference_mode()`.")

INFERENCE_INPLACE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details.")

LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."

VIEW_OF_LEAF_INPLACE = ("a view of a leaf Variable that requires grad is being used in an "
                        "in-place operation.")

LEAF_DIRTY = "a leaf Variable that requires grad has been used in an in-place operation."

DIRTY_NOT_RETURNED = ("Some elements marked as dirty during the forward method were not returned "
                      "as output. The inputs that are modified inplace must all be outputs of the "
                      "Function.")

DIRTY_VIEW_OF_SEVERAL_OUTPUTS = (
    "If your Function modifies inplace an input that is a view of another Tensor, your Function "
    "cannot return more than one Tensor. This is not supported by the current autograd engine. "
    "You should either make sure the input is not a view (using .clone() for example) or make "
    "your Function only return one Tensor (potentially splitting it into two Functions: one "
    "doing the inplace that returns a single Tensor and a second one that does the other "
    "operations). You can ask on the forum https://discuss.pytorch.org/ if you need help to do "
    "this change.")

# why torch forbids changing a view in place, by how the view was made (its "creation meta")
_VIEW_CHANGE_REASONS = {
    "multi_output": (
        " This view is the output of a function that returns multiple views. Such functions do "
        "not allow the output views to be modified inplace. You should replace the inplace "
        "operation by an out-of-place one."),
    "no_grad": (
        " Given that this use case is ambiguous and error-prone, it is forbidden. You can "
        "clarify your code by moving both the view and the inplace either both inside the "
        "no_grad block (if you don't want the inplace to be tracked) or both outside (if you "
        "want the inplace to be tracked)."),
    "inference": (
        " Given that this use case is ambiguous and error-prone, it is forbidden. You can "
        "clarify your code by moving both the view and the inplace either both inside the "
        "inference_mode block (if you don't want the inplace to be tracked) or both outside "
        "(if you want the inplace to be tracked)."),
    "custom_function": (
        " This view was created inside a custom Function (or because an input was returned "
        "as-is) and the autograd logic to handle view+inplace would override the custom "
        "backward associated with the custom Function, leading to incorrect gradients. This "
        "behavior is forbidden. You can fix this by cloning the output of the custom "
        "Function."),
}


def _view_op(node_name):
    """torch's name of a view's operation: its node's name without the "Backward0" ending,
    and without "Backward" alone before another overload's number (SqueezeBackward1 is
    "Squeeze1": fuzz 4905670; a custom Function's MyFnBackward is "MyFn")."""
    return re.sub(r"Backward0?$", "", re.sub(r"Backward(?=[1-9][0-9]*$)", "", node_name))


def view_changed_inplace(creation_meta, node_name, output_nr, indirect):
    """torch's refusal to change a view in place (``indirect``: through its base or another
    view), by how the view was made; ``node_name`` is the view's grad_fn's, if it has one."""
    changed = "its base or another view of its base has been" if indirect else "is being"
    output = None if node_name is None else f"Output {output_nr} of {_view_op(node_name)}"
    if creation_meta in ("no_grad", "inference") or output is None:
        prefix = "A view was created in" if output is None else \
            f"{output} is a view of a view which was created in"
        if creation_meta == "inference":
            message = f"{prefix} inference mode and {changed} modified inplace in normal mode."
        else:
            message = (f"{prefix} no_grad mode and {changed} modified inplace with grad mode "
                       "enabled.")
    else:
        message = f"{output} is a view and {changed} modified inplace."
    return message + _VIEW_CHANGE_REASONS[creation_meta]


DETACH_VIEW_INPLACE = (
    "Can't detach views in-place. Use detach() instead. If you are using "
    "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as True, "
    "gradients are views of DDP buckets, and hence detach_() cannot be called on these "
    "gradients. To fix this error, please refer to the Optimizer.zero_grad() function in "
    "torch/optim/optimizer.py as the solution.")

# torch 2.15's Linux wheel (built with CUDA) on a machine without an NVIDIA GPU; a CPU-only
# build says instead: AssertionError("Torch not compiled with CUDA enabled").
NO_NVIDIA_DRIVER = ("Found no NVIDIA driver on your system. Please check that you have an "
                    "NVIDIA GPU and installed a driver from "
                    "http://www.nvidia.com/Download/index.aspx")

# torch 2.15's Linux wheel (built with CUDA) asked for a tensor on a Mac GPU; torch goes on
# with one line per backend naming where its kernel was registered, which the engine leaves out
MPS_FACTORY = (
    "Could not run 'aten::empty.memory_format' with arguments from the 'MPS' backend. This "
    "could be because the operator doesn't exist for this backend, or was omitted during the "
    "selective/custom build process (if using custom build). If you are a Facebook employee "
    "using PyTorch on mobile, please visit https://fburl.com/ptmfixes for possible resolutions. "
    "'aten::empty.memory_format' is only available for these backends: [CPU, CUDA, Meta, "
    "QuantizedCPU, QuantizedCUDA, QuantizedMeta, MkldnnCPU, SparseCPU, SparseCUDA, SparseMeta, "
    "SparseCsrCPU, SparseCsrCUDA, SparseCsrMeta, BackendSelect, Python, "
    "FuncTorchDynamicLayerBackMode, Functionalize, Conjugate, Negative, ZeroTensor, "
    "ADInplaceOrView, AutogradOther, AutogradCPU, AutogradCUDA, AutogradHIP, AutogradXLA, "
    "AutogradMPS, AutogradIPU, AutogradXPU, AutogradHPU, AutogradVE, AutogradLazy, AutogradMTIA, "
    "AutogradMAIA, AutogradPrivateUse1, AutogradPrivateUse2, AutogradPrivateUse3, AutogradMeta, "
    "AutogradNestedTensor, Tracer, AutocastCPU, AutocastMTIA, AutocastMAIA, AutocastXPU, "
    "AutocastMPS, AutocastCUDA, FuncTorchBatched, BatchedNestedTensor, FuncTorchVmapMode, "
    "Batched, VmapMode, FuncTorchGradWrapper, PythonTLSSnapshot, FuncTorchDynamicLayerFrontMode, "
    "PreDispatch, PythonDispatcher].")

NUMPY_LIST_IS_SLOW = ("Creating a tensor from a list of numpy.ndarrays is extremely slow. Please "
                      "consider converting the list to a single numpy.ndarray with numpy.array() "
                      "before converting to a tensor. (Triggered internally at /__w/pytorch/"
                      "pytorch/torch/csrc/utils/tensor_new.cpp:249.)")

SUB_TWO_BOOLS = ("Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
                 "`^` or `logical_xor()` operator instead.")
SUB_A_BOOL = ("Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
              "trying to invert a mask, use the `~` or `logical_not()` operator instead.")
NEG_A_BOOL = ("Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
              "to invert a mask, use the `~` or `logical_not()` operator instead.")

DEEPCOPY_NON_LEAF = (
    "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol "
    "at the moment.  If you were attempting to deepcopy a module, this may be because of a "
    "torch.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001")

TO_INVALID_ARGUMENTS = (
    "to() received an invalid combination of arguments - got ({}), but expected one of:\n"
    " * (torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, "
    "bool copy = False, *, torch.memory_format memory_format = None)\n"
    " * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)\n"
    " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)\n")

# The names torch's errors give dtypes: its C++ element type (by the dtype's name).
CPP_TYPE_NAMES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char",
                  "int16": "short int", "int32": "int", "int64": "long int",
                  "float16": "c10::Half", "float32": "float", "float64": "double",
                  "bfloat16": "c10::BFloat16", "complex64": "c10::complex<float>",
                  "complex128": "c10::complex<double>"}


def check_assigned_grad(value, tensor):
    """``tensor.grad = value``: torch wants a tensor of the same dtype and shape."""
    if not hasattr(value, "_data"):
        raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                        f"{type_name(value)}")
    if value._data.dtype != tensor._data.dtype:
        expected = dtypes.scalar_type_name[dtypes.from_numpy_dtype[tensor._data.dtype]]
        raise RuntimeError(
            f"attempting to assign a gradient with dtype '{CPP_TYPE_NAMES[value._data.dtype.name]}'"
            f" to a tensor with grad_dtype '{expected}'. The gradient must match the tensor's "
            "grad_dtype (defaults to the tensor's dtype). You can set the tensor's grad_dtype "
            "attribute with a specific dtype, or None to allow any dtype. Set grad_dtype with "
            "caution. Diverging the dtypes of a tensor and its gradient may break downstream "
            "systems that assume they match.")
    if value._data.shape != tensor._data.shape:
        raise RuntimeError(f"attempting to assign a gradient of size '{list(value._data.shape)}' "
                           f"to a tensor of size '{list(tensor._data.shape)}'. Please ensure that "
                           "the gradient and the tensor are the same size")


def tensor_type_name(np_dtype):
    """How torch's autograd messages name a tensor's type: 'torch.FloatTensor' ..."""
    return dtypes.cpp_type_name(dtypes.from_numpy_dtype[np_dtype])


def modified_by_inplace(tensor, expected, producer_name=None, anomaly=False, output_nr=0):
    """"one of the variables needed for gradient computation has been modified ..." """
    shape = ", ".join(str(n) for n in tensor._data.shape)
    described = f"[{tensor_type_name(tensor._data.dtype)} [{shape}]]"
    version = tensor._version
    if producer_name is not None:
        # torch names the operation here without "Backward0" ("Exp"), or without "Backward"
        # before another number ("Min1" for MinBackward1)
        operation = re.sub(r"Backward(\d*)$", lambda m: m.group(1).lstrip("0"), producer_name)
        described += f", which is output {output_nr} of {operation},"
    hint = ("the backtrace further above shows the operation that failed to compute its "
            "gradient. The variable in question was changed in there or anywhere later. Good "
            "luck!") if anomaly else (
        "enable anomaly detection to find the operation that failed to compute its gradient, "
        "with torch.autograd.set_detect_anomaly(True, check_nan=False).")
    return ("one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: {described} is at version {version}; expected version "
            f"{expected} instead. Hint: {hint}")


def warn_non_leaf_grad():
    warnings.warn(
        "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
        "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
        "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf "
        "Tensor. If you access the non-leaf Tensor by mistake, make sure you access the leaf "
        "Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more information."
        + TRIGGERED_IN_TENSOR_BODY, UserWarning, stacklevel=3)


_warned_about_create_graph = []


@contextlib.contextmanager
def create_graph_warning_kept():
    """Around the engine's own backward(create_graph=True) (forward mode derives a tangent so,
    core/tangents.py): torch computes that without backward() and warns nothing, so the
    learner's first backward(create_graph=True) must still warn (fuzz 900063)."""
    warned = bool(_warned_about_create_graph)
    _warned_about_create_graph[:] = [True]
    try:
        yield
    finally:
        if not warned:
            _warned_about_create_graph.clear()


def warn_create_graph_cycle_once():
    """torch warns once per process: .grad now holds a graph that leads back to the leaf."""
    if _warned_about_create_graph:
        return
    _warned_about_create_graph.append(True)
    warnings.warn(
        "Using backward() with create_graph=True will create a reference cycle between the "
        "parameter and its gradient which can cause a memory leak. We recommend using "
        "autograd.grad when creating the graph to avoid this. If you have to use this "
        "function, make sure to reset the .grad fields of your parameters to None after use "
        "to break the cycle and avoid the leak. (Triggered internally at "
        "/__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp:1445.)", UserWarning, stacklevel=3)


_warned_once = set()


def warn_once(message):
    """torch's TORCH_WARN_ONCE: a warning its process gives the first time only."""
    if message not in _warned_once:
        _warned_once.add(message)
        warn_from_learner(message)


ASARRAY_REQUIRES_GRAD = (
    "torch.asarray: unspecified requires_grad now defaults to obj.requires_grad instead of "
    "False. Pass requires_grad=False explicitly to get the old behavior and silence this "
    "warning. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/utils/tensor_new.cpp:"
    "1908.)")


def warn_copy_construct(where):
    warnings.warn("To copy construct from a tensor, it is recommended to use "
                  "sourceTensor.detach().clone() or "
                  "sourceTensor.detach().clone().requires_grad_(True), rather than "
                  f"{where}(sourceTensor).", UserWarning, stacklevel=3)


ADDCDIV_OF_INTEGERS = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv "
    "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be "
    "implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
    "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
    "addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), "
    "for all dtypes.")


# ---------------------------------------------------------------- backward() and autograd.grad()
GRAD_VARIABLES_DEPRECATED = "`grad_variables` is deprecated. Use `grad_tensors` instead."

GRAD_TENSORS_AND_VARIABLES = ("`grad_tensors` and `grad_variables` (deprecated) arguments both "
                              "passed to `backward()`. Please only use `grad_tensors`.")

ONLY_INPUTS_DEPRECATED = ("only_inputs argument is deprecated and is ignored now (defaults to "
                          "True). To accumulate gradient for other parts of the graph, please "
                          "use torch.autograd.backward.")


def not_an_input(kind):
    return f"all inputs have to be Tensors or GradientEdges, but got {kind}"


def inputs_empty(caller):
    return f"`inputs` argument to `{caller}()` cannot be empty."


def inputs_not_a_dict(caller, kind):
    return (f"`inputs` argument to `{caller}()` must be a dict, not {kind}. Other Mapping types "
            "are not supported.")


MATERIALIZE_GRADS_NOT_ALLOW_UNUSED = ("Expected allow_unused to be True or not passed when "
                                      "materialize_grads=True, but got: allow_unused=False.")


DIFFERENTIATED_TWICE = ("trying to differentiate twice a function that was marked with "
                        "@once_differentiable")


def not_differentiable(function, argument):
    """torch's refusal of an argument that requires grad but that ``function`` has no
    derivative for (a loss's weight)."""
    return (f"The function '{function}' is not differentiable with respect to argument "
            f"'{argument}'. This input cannot have requires_grad True.")


def wrong_number_of_gradients(node, returned):
    return (f"function {node.name()} returned an incorrect number of gradients (expected "
            f"{len(node.next_functions)}, got {returned})")


def invalid_gradient_shape(node, index, grad, shape):
    return (f"Function {node.name()} returned an invalid gradient at index {index} - got "
            f"{list(grad._data.shape)} but expected shape compatible with {list(shape)}")


def unused_input(position):
    return (f"The differentiated Tensor at index {position} appears to not have been used in "
            "the graph. Set allow_unused=True if this is the desired behavior.")


def no_grad_fn(index):
    return f"element {index} of tensors does not require grad and does not have a grad_fn"


def grad_output_shape(index, grad_shape, output_shape):
    return (f"Mismatch in shape: grad_output[{index}] has a shape of {grad_shape} and "
            f"output[{index}] has a shape of {output_shape}.")


def batched_grad_output_shape(index, grad_shape, output_shape):
    return ("If `is_grads_batched=True`, we interpret the first dimension of each grad_output "
            "as the batch dimension. The sizes of the remaining dimensions are expected to match "
            "the shape of corresponding output, but a mismatch was detected: grad_output"
            f"[{index}] has a shape of {grad_shape} and output[{index}] has a shape of "
            f"{output_shape}. If you only want some tensors in `grad_output` to be considered "
            "batched, consider using vmap.")


def implicit_grad_dtype(dtype):
    return f"grad can be implicitly created only for real scalar outputs but got {dtype!r}"


def out_resized(old_shape, new_shape):
    return (f"An output with one or more elements was resized since it had shape "
            f"{list(old_shape)}, which does not match the required output shape "
            f"{list(new_shape)}. This behavior is deprecated, and in a future PyTorch release "
            "outputs will not be resized unless they have zero elements. You can explicitly "
            "reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0). "
            "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/Resize.cpp:30.)")


def arange_out_resized(shape, size, new_size):
    return (f"The number of elements in the out tensor of shape [{', '.join(map(str, shape))}] "
            f"is {size} which does not match the computed number of elements {new_size}. Note "
            "that this may occur as a result of rounding error. The out tensor will be resized "
            f"to a tensor of shape ({new_size},). (Triggered internally at /__w/pytorch/pytorch/"
            "aten/src/ATen/native/RangeFactories.cpp:200.)")


CROSS_WITHOUT_DIM = (
    "Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
    "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
    "with that of linalg.cross in a future release. (Triggered internally at /__w/pytorch/"
    "pytorch/aten/src/ATen/native/Cross.cpp:61.)")

# The overloads torch lists when no overload takes the arguments given.
NORMAL = (
    " * (Tensor mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (Tensor mean, float std = 1, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (float mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (float mean, float std, tuple of ints size, *, torch.Generator generator = None, "
    "Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
    "torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n")

BERNOULLI = (
    " * (Tensor input, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (Tensor input, float p, *, torch.Generator generator = None)\n")


# The engine's classes that torch defines in C++, where a type's name carries its module.
_TORCH_C_TYPES = {"dtype": "torch.dtype", "device": "torch.device", "layout": "torch.layout",
                  "Size": "torch.Size", "finfo": "torch.finfo", "iinfo": "torch.iinfo",
                  "memory_format": "torch.memory_format", "Generator": "torch._C.Generator"}
_HEAP_TYPE = 1 << 9  # CPython's Py_TPFLAGS_HEAPTYPE: a class written in Python


def type_name(value):
    """A value's type as torch's C++ argument checks name it (CPython's ``tp_name``): a
    class written in Python by its name ('Tensor', 'Fraction'), a built-in by its name
    ('list', 'NoneType'), any other C type with its module ('numpy.ndarray', 'torch.dtype')."""
    kind = type(value)
    named = getattr(kind, "torch_type_name", None)  # (torch.return_types.sort & co)
    if named is not None:
        return named
    if kind.__module__.startswith("engine") and kind.__name__ in _TORCH_C_TYPES:
        return _TORCH_C_TYPES[kind.__name__]
    if kind.__flags__ & _HEAP_TYPE or kind.__module__ == "builtins":
        return kind.__name__
    return f"{kind.__module__}.{kind.__name__}"


class CTypeAttributeErrors:
    """A mixin for the engine's stand-ins for torch's C types (torch.return_types.sort,
    torch.Size):
    Python's AttributeError for a name they lack names the C type by its full name, as
    CPython's tp_name does (``torch_type_name``, a class attribute)."""

    __slots__ = ()

    def __getattr__(self, name):  # (only called for a name the object lacks)
        raise AttributeError(f"'{type(self).torch_type_name}' object has no attribute "
                             f"'{name}'", name=name, obj=self)

    def __setitem__(self, index, value):  # (r[0] = t: a tuple's TypeError, with the name)
        raise TypeError(f"'{type(self).torch_type_name}' object does not support item "
                        "assignment")

    def __delitem__(self, index):
        raise TypeError(f"'{type(self).torch_type_name}' object doesn't support item deletion")

    def __setattr__(self, name, value):  # (a field: C's read-only member; a method: its
        if name in getattr(type(self), "_fields", ()):  # type's; else no such name)
            raise AttributeError("readonly attribute")
        if hasattr(type(self), name):
            raise AttributeError(f"'{type(self).torch_type_name}' object attribute '{name}' is "
                                 "read-only")
        raise AttributeError(f"'{type(self).torch_type_name}' object has no attribute "
                             f"'{name}'", name=name, obj=self)

    def __delattr__(self, name):
        self.__setattr__(name, None)


# ---------------------------------------------------------------- keywords in torch's order
# torch's "invalid combination of arguments - got (...)" lists the keywords as it copied them
# into a C++ std::unordered_map<std::string, ...> (python_arg_parser.cpp, format_invalid_args):
# in libstdc++'s iteration order, which follows std::hash<std::string> (_Hash_bytes, a
# MurmurHash64A variant) modulo the 13 buckets such a map starts with. Emulated here so that
# x.std(unbiased=False, keepdim=True) lists keepdim first, as torch's does.
_MASK = (1 << 64) - 1
_MUL = 0xc6a4a7935bd1e995


def _shift_mix(value):
    return value ^ (value >> 47)


def _hash_bytes(data, seed=0xc70f6907):
    """libstdc++'s std::_Hash_bytes for a 64-bit size_t (libsupc++/hash_bytes.cc)."""
    length, aligned = len(data), len(data) & ~7
    result = (seed ^ (length * _MUL)) & _MASK
    for start in range(0, aligned, 8):
        word = int.from_bytes(data[start:start + 8], "little")
        result = ((result ^ (_shift_mix(word * _MUL & _MASK) * _MUL & _MASK)) * _MUL) & _MASK
    if length & 7:
        result = ((result ^ int.from_bytes(data[aligned:], "little")) * _MUL) & _MASK
    return _shift_mix(_shift_mix(result) * _MUL & _MASK)


def keyword_order(keys, buckets=13):
    """``keys`` (in the call's order) in the order torch's message lists them: each key goes
    first among those of its bucket, and a key whose bucket was empty first of all."""
    listed = []
    for key in keys:
        bucket = _hash_bytes(key.encode()) % buckets
        same = [i for i, other in enumerate(listed)
                if _hash_bytes(other.encode()) % buckets == bucket]
        listed.insert(same[0] if same else 0, key)
    return listed


def no_positional_arguments(name, given):
    """torch's TypeError for a method that takes its arguments by keyword only."""
    return TypeError(f"{name}() takes 0 positional arguments but {len(given)} "
                     f"{'was' if len(given) == 1 else 'were'} given")


def invalid_arguments(name, args, kwargs, overloads):
    """torch's TypeError when no overload of ``name`` takes these arguments (None = not given)."""
    got = [type_name(a) for a in args if a is not None]
    got += [f"{key}={type_name(kwargs[key])}" for key in keyword_order(kwargs)]
    return TypeError(f"{name}() received an invalid combination of arguments - got "
                     f"({', '.join(got)}), but expected one of:\n{overloads}")

# ---------------------------------------------------------------- what hooks return
def _hook_name(hook):
    return getattr(hook, "__name__", "<unknown>")


def hook_result(hook, grad, replaced):
    """A tensor hook's return value checked as torch checks it: None keeps ``grad``; another
    tensor must have its dtype and shape."""
    if replaced is None:
        return grad
    if grad is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    if not hasattr(replaced, "_data"):
        raise TypeError(f"expected Variable, but hook returned '{type_name(replaced)}'")
    if replaced._data.dtype != grad._data.dtype:
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the type of value (was "
                           f"{tensor_type_name(grad._data.dtype)} got "
                           f"{tensor_type_name(replaced._data.dtype)})")
    if replaced._data.shape != grad._data.shape:
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the size of value")
    return replaced


def hook_results(hook, grads, replaced):
    """A node hook's return value: None keeps ``grads``, else a tuple of as many that
    replaces them (as a list), each checked as ``hook_result`` checks one (None drops it)."""
    if replaced is None:
        return grads
    if not isinstance(replaced, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type_name(replaced)}'")
    if len(replaced) != len(grads):
        raise RuntimeError(f"hook '{_hook_name(hook)}' has returned an incorrect number of "
                           f"values (got {len(replaced)}, but expected {len(grads)})")
    return [None if new is None else hook_result(hook, grad, new)
            for grad, new in zip(grads, replaced)]


# ---------------------------------------------------------------- writes into overlapping memory
# (an expanded tensor written to: ops/inplace.py, and a dual tensor's tangent copied into
# its primal's layout: core/forward.py)
INTERNAL_OVERLAP = ("unsupported operation: more than one element of the written-to tensor "
                    "refers to a single memory location. Please clone() the tensor before "
                    "performing the operation.")


# ---------------------------------------------------------------- forward-mode AD
FORWARD_EXIT_NOT_LAST = ("Trying to exit a forward AD level that was not the last one that was "
                         "created. This is not supported.")
FORWARD_NO_LEVEL = ("Trying to create a dual Tensor for forward AD but no level exists, make sure "
                    "to enter_dual_level() first.")


def no_forward_ad(node_class, aten_op=None):
    """torch's NotImplementedError for an op without a forward formula, named as torch's
    function (the node class's ``forward_name``, else its name without ``Backward0``); for
    an op torch has no derivative at all for (``aten_op``, a NotImplemented node), its short one."""
    if aten_op is not None:
        return f"Trying to use forward AD with aten::{aten_op} that does not support it."
    name = getattr(node_class, "forward_name", None)
    if name is None:
        stem = re.sub(r"Backward\d*$", "", node_class.__name__)
        name = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", stem).lower()
    return (f"Trying to use forward AD with {name} that does not support it because it has not "
            "been implemented yet.\nPlease file an issue to PyTorch at "
            "https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml so that "
            "we can prioritize its implementation or submit a PR adding the implementation to "
            "derivatives.yaml")


def no_sparse_gradient(name):
    """The engine's refusal of a sparse gradient (embedding's, embedding_bag's sparse=True)."""
    return (f"{name}(sparse=True): the engine has no sparse tensors, so it cannot make the "
            "sparse gradient torch gives; use sparse=False (notebooks/DIFFERENCES.md)")

# a custom autograd.Function inside a torch.func transform (engine/autograd/function.py)
EXTENDING_FUNC_NOTES = "https://pytorch.org/docs/main/notes/extending.func.html"
FUNCTION_NEEDS_SETUP_CONTEXT = (
    "In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, jacrev, "
    "...), it must override the setup_context staticmethod. For more details, please see "
    f"{EXTENDING_FUNC_NOTES}")


# a custom autograd.Function under vmap: its vmap rule (engine/func/function_vmap.py)
def no_vmap_support(name):
    return (f"You tried to vmap over {name}, but it does not have vmap support. Please override "
            "and implement the vmap staticmethod or set generate_vmap_rule=True. For more "
            f"details, please see {EXTENDING_FUNC_NOTES}")


def two_vmap_rules(name):
    return (f"You tried to vmap over {name}, but it has both generate_vmap_rule=True and an "
            "overridden vmap staticmethod. Please set generate_vmap_rule=False or delete the "
            "overridden vmap staticmethod to avoid ambiguity. For more details, please see "
            f"{EXTENDING_FUNC_NOTES}")


def kwarg_tensors_under_vmap(kwargs):
    return ("Run vmap on autograd.Function with kwarg-only Tensor args. Please do not pass "
            f"kwarg-only Tensors to autograd.Function. Got: {kwargs}")


VMAP_RULE_RETURNS = ("Expected the vmap staticmethod to have two returns, an output and "
                     "out_dims with pytree structure compatible with the output. ")


def vmap_rule_out_dims(out_dims, out_dims_structure, output_structure):
    return ("The autograd.Function's vmap staticmethod returned an incompatible (output, "
            f"out_dims) tuple. Expected out_dims={out_dims} to be compatible with the "
            f"structure of `output`. out_dims has structure {out_dims_structure} but output has "
            f"structure {output_structure}. For more details, please see {EXTENDING_FUNC_NOTES}")


def add_batch_dim_arguments(tensor_repr, out_dim, level):
    """pybind11's refusal of an out_dim that is not an integer (torch._C._add_batch_dim)."""
    return ("_add_batch_dim(): incompatible function arguments. The following argument types "
            "are supported:\n    1. (arg0: torch.Tensor, arg1: typing.SupportsInt | "
            "typing.SupportsIndex, arg2: typing.SupportsInt | typing.SupportsIndex) -> "
            f"torch.Tensor\n\nInvoked with: {tensor_repr}, {out_dim!r}, {level}")
