"""A corpus of mistakes learners really make, each run with the engine and with torch 2.15.

Every case is a small function of the tensor module ``tm`` (engine or torch) that sets
the scene and returns ``(call, tensors)``: ``call()`` must raise, and ``tensors`` are the
tensors involved. For each case the test checks that

* both libraries raise the same exception type,
* the engine's message holds torch's key phrase (given with the case, and checked to be
  in torch's message too, so the phrase cannot go stale),
* the tensors are left as they were: values, ``.grad``, ``_version`` and
  ``requires_grad`` are the same before and after the failed call, in both libraries
  (no half-done change). The one exception is torch's own: ``load_state_dict`` copies
  every entry that fits before it reports the others, so there the engine must leave
  the tensors exactly as torch does.
"""
import numpy as np
import pytest

import engine
from parity import TORCH_SKIP_REASON, assert_same_error

torch = pytest.importorskip("torch", reason=TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch

CASES = {}  # name -> (key phrase, case function, torch changes the tensors before raising)


def case(phrase, partial=False):
    """Register the decorated function as a misuse case whose error contains ``phrase``."""
    def register(function):
        CASES[function.__name__] = (phrase, function, partial)
        return function
    return register


def _leaf(tm, values=(1.0, 2.0, 3.0)):
    return tm.tensor(list(values), requires_grad=True)


# ====================================================================== backward
@case("Trying to backward through the graph a second time")
def backward_twice_through_saved_tensors(tm):
    x = _leaf(tm)
    y = (x * x).sum()
    y.backward()
    return y.backward, [x]


@case("Trying to backward through the graph a second time")
def autograd_grad_twice(tm):
    x = _leaf(tm)
    y = (x.exp()).sum()
    tm.autograd.grad(y, x)
    return lambda: tm.autograd.grad(y, x), [x]


@case("grad can be implicitly created only for scalar outputs")
def non_scalar_backward(tm):
    x = _leaf(tm)
    y = x * 2
    return y.backward, [x, y]


@case("element 0 of tensors does not require grad and does not have a grad_fn")
def backward_without_grad_fn(tm):
    x = tm.tensor([1.0, 2.0])
    loss = (x * 2).sum()
    return loss.backward, [x, loss]


@case("element 0 of tensors does not require grad and does not have a grad_fn")
def backward_of_a_loss_computed_under_no_grad(tm):
    x = _leaf(tm)
    with tm.no_grad():
        loss = (x * x).sum()
    return loss.backward, [x, loss]


@case("element 0 of tensors does not require grad and does not have a grad_fn")
def backward_after_detach(tm):
    x = _leaf(tm)
    loss = (x * x).sum().detach()
    return loss.backward, [x]


@case("Mismatch in shape: grad_output[0] has a shape of torch.Size([2])")
def backward_gradient_of_the_wrong_shape(tm):
    x = _leaf(tm)
    y = x * 2
    return lambda: y.backward(tm.ones(2)), [x, y]


@case("grad can be implicitly created only for scalar outputs")
def autograd_grad_of_a_non_scalar_without_grad_outputs(tm):
    x = _leaf(tm)
    y = x ** 2
    return lambda: tm.autograd.grad(y, x), [x, y]


@case("The differentiated Tensor at index 1 appears to not have been used in the graph")
def autograd_grad_on_an_input_not_in_the_graph(tm):
    x = _leaf(tm)
    w = _leaf(tm, (4.0, 5.0))
    y = (x * 2).sum()
    return lambda: tm.autograd.grad(y, [x, w]), [x, w]


@case("One of the differentiated Tensors does not require grad")
def autograd_grad_on_an_input_without_requires_grad(tm):
    x = _leaf(tm)
    c = tm.ones(3)
    y = (x * c).sum()
    return lambda: tm.autograd.grad(y, [x, c]), [x, c]


@case("can't retain_grad on Tensor that has requires_grad=False")
def retain_grad_without_requires_grad(tm):
    x = tm.ones(2)
    return x.retain_grad, [x]


# ====================================================================== requires_grad
@case("only Tensors of floating point dtype can require gradients")
def requires_grad_on_an_int_tensor(tm):
    x = tm.tensor([1, 2, 3])
    return x.requires_grad_, [x]


@case("only Tensors of floating point and complex dtype can require gradients")
def requires_grad_attribute_on_an_int_tensor(tm):
    x = tm.arange(3)

    def call():
        x.requires_grad = True
    return call, [x]


@case("Only Tensors of floating point and complex dtype can require gradients")
def int_tensor_created_with_requires_grad(tm):
    return lambda: tm.tensor([1, 2, 3], requires_grad=True), []


@case("Only Tensors of floating point and complex dtype can require gradients")
def zeros_long_with_requires_grad(tm):
    return lambda: tm.zeros(3, dtype=tm.long, requires_grad=True), []


@case("you can only change requires_grad flags of leaf variables")
def requires_grad_false_on_a_non_leaf(tm):
    x = _leaf(tm)
    y = x * 2
    return lambda: y.requires_grad_(False), [x, y]


@case("you can only change requires_grad flags of leaf variables")
def requires_grad_attribute_on_a_non_leaf(tm):
    x = _leaf(tm)
    y = x + 1

    def call():
        y.requires_grad = False
    return call, [x, y]


@case("you can only change requires_grad flags of leaf variables.")
def requires_grad_true_attribute_on_a_non_leaf(tm):
    # the "fix" of "element 0 of tensors does not require grad" on a loss that has a graph
    x = _leaf(tm)
    loss = (x * 2).sum()

    def call():
        loss.requires_grad = True
    return call, [x, loss]


def test_requires_grad_true_on_a_non_leaf_has_torchs_short_message():
    # torch adds the advice to use detach() only when the flag is switched off
    messages = []
    for tm in (engine, torch):
        loss = (_leaf(tm) * 2).sum()
        with pytest.raises(RuntimeError) as error:
            loss.requires_grad = True
        messages.append(str(error.value))
    assert messages[0] == messages[1] == "you can only change requires_grad flags of leaf " \
        "variables."


# ====================================================================== in-place
@case("a leaf Variable that requires grad is being used in an in-place operation")
def in_place_add_on_a_leaf(tm):
    x = _leaf(tm)
    return lambda: x.add_(1), [x]


@case("a leaf Variable that requires grad is being used in an in-place operation")
def augmented_assignment_on_a_leaf(tm):
    x = _leaf(tm)

    def call():
        nonlocal x
        x += 1
    return call, [x]


@case("a leaf Variable that requires grad is being used in an in-place operation")
def zero_on_a_leaf(tm):
    x = _leaf(tm)
    return x.zero_, [x]


@case("a leaf Variable that requires grad is being used in an in-place operation")
def setitem_on_a_leaf(tm):
    x = _leaf(tm)

    def call():
        x[0] = 5.0
    return call, [x]


@case("a view of a leaf Variable that requires grad is being used in an in-place operation")
def in_place_on_a_view_of_a_leaf(tm):
    x = _leaf(tm)
    return lambda: x[:2].mul_(2), [x]


@case("one of the variables needed for gradient computation has been modified by an "
      "inplace operation")
def in_place_after_detach_then_backward(tm):
    x = _leaf(tm)
    s = x.sigmoid()
    s.detach().zero_()  # shares memory and version counter with s
    return lambda: s.sum().backward(), [x]


@case("one of the variables needed for gradient computation has been modified by an "
      "inplace operation")
def in_place_on_a_saved_input_then_backward(tm):
    x = _leaf(tm)
    y = x * 1
    z = y.log()
    y.mul_(2)
    return lambda: z.sum().backward(), [x, y]


@case("one of the variables needed for gradient computation has been modified by an "
      "inplace operation")
def relu_in_place_on_a_saved_output(tm):
    x = _leaf(tm, (-1.0, 0.5, 2.0))
    y = x.exp()
    y.relu_()  # exp saved its output
    return lambda: y.sum().backward(), [x, y]


@case("result type Float can't be cast to the desired output type Long")
def in_place_true_division_of_an_int_tensor(tm):
    x = tm.tensor([1, 2, 3])

    def call():
        nonlocal x
        x /= 2
    return call, [x]


@case("result type Float can't be cast to the desired output type Long")
def in_place_float_add_into_an_int_tensor(tm):
    x = tm.tensor([1, 2, 3])
    return lambda: x.add_(tm.tensor([0.5, 0.5, 0.5])), [x]


@case("output with shape [3] doesn't match the broadcast shape [2, 3]")
def in_place_add_that_would_broadcast_self(tm):
    x = tm.zeros(3)
    return lambda: x.add_(tm.ones(2, 3)), [x]


# ====================================================================== numpy and scalars
@case("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
def numpy_on_a_tensor_that_requires_grad(tm):
    x = _leaf(tm)
    return x.numpy, [x]


@case("Can't call numpy() on Tensor that requires grad")
def numpy_on_a_computed_tensor(tm):
    x = _leaf(tm)
    y = x * 2
    return y.numpy, [x, y]


@case("a Tensor with 3 elements cannot be converted to Scalar")
def item_on_many_elements(tm):
    x = tm.tensor([1.0, 2.0, 3.0])
    return x.item, [x]


@case("only one element tensors can be converted to Python scalars")
def float_of_many_elements(tm):
    x = tm.tensor([1.0, 2.0])
    return lambda: float(x), [x]


@case("Boolean value of Tensor with more than one value is ambiguous")
def if_on_a_tensor_of_many_elements(tm):
    x = tm.tensor([1.0, -2.0])
    return lambda: bool(x > 0), [x]


@case("'torch.Size' object is not callable")
def shape_called_like_a_method(tm):
    x = tm.ones(2, 3)
    return lambda: x.shape(), [x]


# ====================================================================== creation
@case("expected sequence of length 2 at dim 1 (got 1)")
def tensor_of_ragged_lists(tm):
    return lambda: tm.tensor([[1, 2], [3]]), []


@case("zeros: Dimension size must be non-negative.")
def zeros_of_a_negative_size(tm):
    return lambda: tm.zeros(2, -1), []


@case("step must be nonzero")
def arange_with_step_zero(tm):
    return lambda: tm.arange(0, 5, 0), []


@case("too many dimensions 'str'")
def tensor_of_strings(tm):
    return lambda: tm.tensor(["1", "2"]), []


# ====================================================================== shapes
@case("mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)")
def matmul_shape_mismatch(tm):
    a, b = tm.ones(2, 3), tm.ones(2, 3)
    return lambda: a @ b, [a, b]


@case("size mismatch, got input (2), mat (2x3), vec (2)")
def matrix_vector_shape_mismatch(tm):
    a, v = tm.ones(2, 3), tm.ones(2)
    return lambda: tm.matmul(a, v), [a, v]


@case("both arguments to matmul need to be at least 1D")
def matmul_of_a_zero_dim_tensor(tm):
    a, b = tm.tensor(2.0), tm.ones(3)
    return lambda: tm.matmul(a, b), [a, b]


@case("inconsistent tensor size, expected tensor [3] and src [2] to have the same number of "
      "elements")
def dot_of_different_lengths(tm):
    a, b = tm.ones(3), tm.ones(2)
    return lambda: tm.dot(a, b), [a, b]


@case("The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
      "dimension 1")
def broadcasting_mismatch(tm):
    a, b = _leaf(tm), tm.ones(2, 4)
    return lambda: (a * 2).reshape(1, 3) + b, [a, b]


@case("view size is not compatible with input tensor's size and stride")
def view_of_a_non_contiguous_tensor(tm):
    x = tm.arange(6.0).reshape(2, 3)
    return lambda: x.t().view(-1), [x]


@case("shape '[4]' is invalid for input of size 6")
def view_to_a_size_that_does_not_fit(tm):
    x = tm.arange(6.0)
    return lambda: x.view(4), [x]


@case("only one dimension can be inferred")
def view_with_two_minus_ones(tm):
    x = tm.arange(6.0)
    return lambda: x.view(-1, -1), [x]


@case("shape '[4, 2]' is invalid for input of size 6")
def reshape_to_a_size_that_does_not_fit(tm):
    x = _leaf(tm, [float(i) for i in range(6)])
    return lambda: x.reshape(4, 2), [x]


@case("Sizes of tensors must match except in dimension 0")
def cat_of_mismatched_shapes(tm):
    a, b = tm.ones(2, 3), tm.ones(2, 4)
    return lambda: tm.cat([a, b]), [a, b]


@case("expected a non-empty list of Tensors")
def cat_of_an_empty_list(tm):
    return lambda: tm.cat([]), []


@case("stack expects each tensor to be equal size")
def stack_of_different_shapes(tm):
    a, b = tm.ones(3), tm.ones(2)
    return lambda: tm.stack([a, b]), [a, b]


@case("Dimension out of range (expected to be in range of [-2, 1], but got 2)")
def sum_over_an_out_of_range_dim(tm):
    x = tm.ones(2, 3)
    return lambda: x.sum(dim=2), [x]


@case("Dimension out of range (expected to be in range of [-2, 1], but got 2)")
def transpose_an_out_of_range_dim(tm):
    x = tm.ones(2, 3)
    return lambda: x.transpose(0, 2), [x]


@case("Dimension out of range (expected to be in range of [-3, 2], but got 3)")
def unsqueeze_an_out_of_range_dim(tm):
    x = tm.ones(2, 3)
    return lambda: x.unsqueeze(3), [x]


@case("number of dimensions in the tensor input does not match the length of the desired "
      "ordering of dimensions")
def permute_with_the_wrong_number_of_dims(tm):
    x = tm.ones(2, 3)
    return lambda: x.permute(1, 0, 2), [x]


@case("The expanded size of the tensor (4) must match the existing size (3) at non-singleton "
      "dimension 1")
def expand_to_a_size_that_does_not_fit(tm):
    x = tm.ones(2, 3)
    return lambda: x.expand(2, 4), [x]


@case("mean(): could not infer output dtype. Input dtype must be either a floating point or "
      "complex dtype. Got: Long")
def mean_of_an_int_tensor(tm):
    x = tm.tensor([1, 2, 3])
    return x.mean, [x]


# ====================================================================== indexing
@case("index 5 is out of bounds for dimension 0 with size 3")
def index_out_of_range(tm):
    x = tm.tensor([1.0, 2.0, 3.0])
    return lambda: x[5], [x]


@case("index -4 is out of bounds for dimension 0 with size 3")
def negative_index_out_of_range(tm):
    x = tm.tensor([1.0, 2.0, 3.0])
    return lambda: x[-4], [x]


@case("index 3 is out of bounds for dimension 1 with size 3")
def index_out_of_range_in_the_second_dim(tm):
    x = tm.ones(2, 3)
    return lambda: x[0, 3], [x]


@case("too many indices for tensor of dimension 1")
def too_many_indices(tm):
    x = tm.tensor([1.0, 2.0, 3.0])
    return lambda: x[0, 0], [x]


@case("index 7 is out of bounds for dimension 0 with size 3")
def setitem_out_of_range(tm):
    x = tm.zeros(3)

    def call():
        x[7] = 1.0
    return call, [x]


@case("tensors used as indices must be long, int, byte or bool tensors")
def index_with_a_float_tensor(tm):
    x = tm.tensor([1.0, 2.0, 3.0])
    return lambda: x[tm.tensor([0.0, 1.0])], [x]


@case("The shape of the mask [2] at index 0 does not match the shape of the indexed tensor "
      "[3] at index 0")
def boolean_mask_of_the_wrong_shape(tm):
    x = tm.tensor([1.0, 2.0, 3.0])
    return lambda: x[tm.tensor([True, False])], [x]


@case("index 3 is out of bounds for dimension 0 with size 3")
def index_tensor_out_of_range(tm):
    x = tm.tensor([1.0, 2.0, 3.0])
    return lambda: x[tm.tensor([0, 3])], [x]


# ====================================================================== losses and layers
@case("Expected floating point type for target with class probabilities, got Long")
def cross_entropy_class_probabilities_as_ints(tm):
    logits = tm.zeros(2, 3, requires_grad=True)
    return (lambda: tm.nn.functional.cross_entropy(logits, tm.tensor([[0, 1, 0], [1, 0, 0]])),
            [logits])


@case("Expected input batch_size (2) to match target batch_size (3)")
def cross_entropy_batch_size_mismatch(tm):
    logits = tm.ones(2, 3, requires_grad=True)
    target = tm.tensor([0, 1, 2])
    return lambda: tm.nn.functional.cross_entropy(logits, target), [logits, target]


@case("expected target dtype to be Long or Byte, but got Float")
def nll_loss_with_a_float_target(tm):
    log_probs = tm.ones(2, 3, requires_grad=True)
    target = tm.tensor([0.0, 1.0])
    return lambda: tm.nn.functional.nll_loss(log_probs, target), [log_probs, target]


@case("Target 5 is out of bounds")
def cross_entropy_target_out_of_range(tm):
    logits = tm.zeros(2, 3, requires_grad=True)
    target = tm.tensor([0, 5])
    return lambda: tm.nn.functional.cross_entropy(logits, target), [logits, target]


@case("addmm: mat1 and mat2 shapes cannot be multiplied (2x4 and 3x2)")
def linear_with_the_wrong_input_features(tm):
    tm.manual_seed(0)
    layer = tm.nn.Linear(3, 2)
    x = tm.ones(2, 4)
    return lambda: layer(x), [x, layer.weight, layer.bias]


@case("mat1 and mat2 must have the same dtype")
def linear_with_an_int_input(tm):
    tm.manual_seed(0)
    layer = tm.nn.Linear(3, 2)
    x = tm.ones(2, 3, dtype=tm.long)
    return lambda: layer(x), [x, layer.weight, layer.bias]


@case('Missing key(s) in state_dict: "bias"', partial=True)
def load_state_dict_with_a_missing_key(tm):
    tm.manual_seed(0)
    layer = tm.nn.Linear(3, 2)
    state = {"weight": tm.zeros(2, 3)}
    return lambda: layer.load_state_dict(state), [layer.weight, layer.bias]


@case('Unexpected key(s) in state_dict: "scale"', partial=True)
def load_state_dict_with_an_unexpected_key(tm):
    tm.manual_seed(0)
    layer = tm.nn.Linear(3, 2)
    state = {"weight": tm.zeros(2, 3), "bias": tm.zeros(2), "scale": tm.ones(1)}
    return lambda: layer.load_state_dict(state), [layer.weight, layer.bias]


@case("size mismatch for weight: copying a param with shape torch.Size([3, 2]) from "
      "checkpoint, the shape in current model is torch.Size([2, 3])", partial=True)
def load_state_dict_with_a_transposed_weight(tm):
    tm.manual_seed(0)
    layer = tm.nn.Linear(3, 2)
    state = {"weight": tm.zeros(3, 2), "bias": tm.zeros(2)}
    return lambda: layer.load_state_dict(state), [layer.weight, layer.bias]


# ====================================================================== optimisers
@case("optimizer got an empty parameter list")
def optimizer_over_an_empty_list(tm):
    return lambda: tm.optim.SGD([], lr=0.1), []


@case("optimizer got an empty parameter list")
def optimizer_over_a_spent_generator(tm):
    tm.manual_seed(0)
    layer = tm.nn.Linear(3, 1)
    params = layer.parameters()
    list(params)  # the generator is used up
    return lambda: tm.optim.SGD(params, lr=0.1), [layer.weight, layer.bias]


@case("params argument given to the optimizer should be an iterable of Tensors or dicts, "
      "but got torch.FloatTensor")
def optimizer_given_a_tensor(tm):
    w = _leaf(tm)
    return lambda: tm.optim.SGD(w, lr=0.1), [w]


@case("can't optimize a non-leaf Tensor")
def optimizer_over_a_non_leaf(tm):
    w = _leaf(tm)
    return lambda: tm.optim.SGD([w * 2], lr=0.1), [w]


@case("Invalid learning rate: -0.1")
def optimizer_with_a_negative_learning_rate(tm):
    w = _leaf(tm)
    return lambda: tm.optim.SGD([w], lr=-0.1), [w]


@case("'NoneType' object has no attribute 'zero_'")
def zeroing_a_grad_before_any_backward(tm):
    w = _leaf(tm)
    return lambda: w.grad.zero_(), [w]


@case("attempting to assign a gradient of size '[2]' to a tensor of size '[3]'")
def assigning_a_grad_of_the_wrong_size(tm):
    w = _leaf(tm)

    def call():
        w.grad = tm.ones(2)
    return call, [w]


@case("0D or 1D target tensor expected, multi-target not supported")
def cross_entropy_with_targets_as_a_column(tm):
    logits = tm.zeros(3, 4, requires_grad=True)
    target = tm.tensor([[0], [2], [1]])  # (N, 1), as a spreadsheet column
    return lambda: tm.nn.functional.cross_entropy(logits, target), [logits, target]


@case("0D or 1D target tensor expected, multi-target not supported")
def nll_loss_with_targets_as_a_column(tm):
    log_probs = tm.zeros(3, 4, requires_grad=True)
    target = tm.tensor([[0], [2], [1]])
    return lambda: tm.nn.functional.nll_loss(log_probs, target), [log_probs, target]


@case("For 1D input, 1D target must have size 1, but got target size: 2")
def cross_entropy_of_one_sample_with_two_targets(tm):
    logits = tm.zeros(3, requires_grad=True)
    target = tm.tensor([0, 1])
    return lambda: tm.nn.functional.cross_entropy(logits, target), [logits, target]


@case("Expected target size [2, 4], got [2]")
def cross_entropy_of_a_sequence_with_one_target_per_sample(tm):
    logits = tm.zeros(2, 3, 4, requires_grad=True)  # (N, C, length)
    target = tm.tensor([0, 1])
    return lambda: tm.nn.functional.cross_entropy(logits, target), [logits, target]


@case("only batches of spatial targets supported (3D tensors) but got targets of dimension: 2")
def cross_entropy_of_images_with_one_target_per_row(tm):
    logits = tm.zeros(2, 3, 4, 5, requires_grad=True)  # (N, C, H, W)
    target = tm.zeros(2, 4, dtype=tm.long)
    return lambda: tm.nn.functional.cross_entropy(logits, target), [logits, target]


@case("all elements of input should be between 0 and 1")
def binary_cross_entropy_of_logits(tm):
    scores = tm.tensor([1.5, -0.5], requires_grad=True)
    target = tm.tensor([1.0, 0.0])
    return lambda: tm.nn.functional.binary_cross_entropy(scores, target), [scores, target]


@case("linear(): argument 'input' (position 1) must be Tensor, not list")
def linear_called_on_a_list(tm):
    tm.manual_seed(0)
    layer = tm.nn.Linear(2, 1)
    return lambda: layer([1.0, 2.0]), [layer.weight, layer.bias]


@case("self and mat2 must have the same dtype, but got Double and Float")
def addmm_with_a_bias_of_another_dtype(tm):
    bias, a, b = tm.zeros(2, dtype=tm.float64), tm.ones(2, 3), tm.ones(3, 2)
    return lambda: tm.addmm(bias, a, b), [bias, a, b]


@case("Only Tensors of floating point and complex dtype can require gradients")
def parameter_of_an_int_tensor(tm):
    x = tm.tensor([1, 2])
    return lambda: tm.nn.Parameter(x), [x]


@case("dropout probability has to be between 0 and 1, but got 1.5")
def dropout_with_a_percentage(tm):
    return lambda: tm.nn.Dropout(p=1.5), []


@case("Invalid beta parameter at index 0: 1.0")
def adam_with_beta_one(tm):
    w = _leaf(tm)
    return lambda: tm.optim.Adam([w], betas=(1.0, 0.999)), [w]


@case("Nesterov momentum requires a momentum and zero dampening")
def sgd_nesterov_without_momentum(tm):
    w = _leaf(tm)
    return lambda: tm.optim.SGD([w], lr=0.1, nesterov=True), [w]


@case("selected index k out of range")
def topk_larger_than_the_tensor(tm):
    x = tm.tensor([3.0, 1.0, 2.0], requires_grad=True)
    return lambda: x.topk(4), [x]


@case("`inputs` argument to `backward()` cannot be empty.")
def backward_with_empty_inputs(tm):
    x = _leaf(tm)
    loss = (x * x).sum()
    return lambda: loss.backward(inputs=[]), [x]


@case("cannot register a hook on a tensor that doesn't require gradient")
def hook_on_a_tensor_without_grad(tm):
    x = tm.ones(2)
    return lambda: x.register_hook(lambda g: g), [x]


@case("Inference tensors cannot be saved for backward")
def inference_tensor_used_in_training(tm):
    with tm.inference_mode():
        features = tm.ones(3)
    w = _leaf(tm)
    return lambda: (w * features).sum(), [w]


@case("Inplace update to inference tensor outside InferenceMode is not allowed")
def in_place_on_an_inference_tensor(tm):
    with tm.inference_mode():
        x = tm.ones(3)
    return lambda: x.add_(1), []  # (an inference tensor has no version counter to read)


@case("Can't detach views in-place. Use detach() instead.")
def detach_in_place_on_a_view(tm):
    x = _leaf(tm)
    v = (x * 1)[:2]
    return v.detach_, [x]


@case("a leaf Variable that requires grad is being used in an in-place operation")
def relu_in_place_on_a_leaf(tm):
    x = _leaf(tm, (-1.0, 0.0, 1.0))
    return lambda: tm.nn.functional.relu(x, inplace=True), [x]


@case("a leaf Variable that requires grad is being used in an in-place operation")
def copy_into_a_leaf(tm):
    x = _leaf(tm)
    return lambda: x.copy_(tm.zeros(3)), [x]


@case("attempting to assign a gradient with dtype 'double' to a tensor with grad_dtype 'Float'")
def assigning_a_grad_of_another_dtype(tm):
    w = _leaf(tm)

    def call():
        w.grad = tm.ones(3, dtype=tm.float64)
    return call, [w]


@case("Negation, the `-` operator, on a bool tensor is not supported")
def negating_a_mask(tm):
    mask = tm.tensor([True, False])
    return lambda: -mask, [mask]


@case("Subtraction, the `-` operator, with two bool tensors is not supported")
def subtracting_masks(tm):
    a, b = tm.tensor([True, False]), tm.tensor([True, True])
    return lambda: a - b, [a, b]


@case("Subtraction, the `-` operator, with a bool tensor is not supported")
def subtracting_a_number_from_a_mask(tm):
    mask = tm.tensor([True, False])
    return lambda: 1 - mask, [mask]


@case("Boolean inputs not supported for relu")
def relu_of_a_mask(tm):
    mask = tm.tensor([True, False])
    return mask.relu, [mask]


@case("argmax(): does not support bool input")
def argmax_of_a_mask(tm):
    mask = tm.tensor([True, False])
    return mask.argmax, [mask]


@case("linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long")
def norm_of_an_int_tensor(tm):
    x = tm.tensor([3, 4])
    return x.norm, [x]


@case("\"addcmul_cpu_out\" not implemented for 'Bool'")
def addcmul_of_masks(tm):
    mask = tm.tensor([True, False])
    return lambda: mask.addcmul(mask, mask), [mask]


@case("topk does not support bool dtypes on CPU")
def topk_of_a_mask(tm):
    mask = tm.tensor([True, False])
    return lambda: mask.topk(1), [mask]


@case("masked_fill_ only supports boolean masks, but got mask with dtype unsigned char")
def assigning_through_a_uint8_mask(tm):
    x = tm.zeros(2)
    mask = tm.tensor([1, 0], dtype=tm.uint8)

    def call():
        x[mask] = 1.0
    return call, [x]


@case("relu(): argument 'input' (position 1) must be Tensor, not NoneType")
def relu_of_what_backward_returned(tm):
    x = _leaf(tm)
    nothing = (x * 2).sum().backward()  # backward returns None
    return lambda: tm.relu(nothing), [x]


@case("exp(): argument 'input' (position 1) must be Tensor, not float")
def exp_of_an_item(tm):
    x = _leaf(tm)
    return lambda: tm.exp(x.sum().item()), [x]


@case("sum(): argument 'input' (position 1) must be Tensor, not list")
def sum_of_a_list(tm):
    return lambda: tm.sum([1.0, 2.0]), []


@case("Integers to negative integer powers are not allowed.")
def int_tensor_to_a_negative_power(tm):
    x = tm.tensor([1, 2, 4])
    return lambda: x ** -1, [x]


@case("ZeroDivisionError")
def integer_floor_division_by_zero(tm):
    x = tm.tensor([1, 2, 4])
    return lambda: x // 0, [x]


@case("std and var only support floating point and complex dtypes")
def std_of_an_int_tensor(tm):
    x = tm.tensor([1, 2, 4])
    return x.std, [x]


@case("max(): Expected reduction dim to be specified for input.numel() == 0.")
def max_of_an_empty_tensor(tm):
    x = tm.ones(0)
    return x.max, [x]


@case("a Tensor with 0 elements cannot be converted to Scalar")
def item_of_an_empty_tensor(tm):
    x = tm.ones(0)
    return x.item, [x]


@case("t() expects a tensor with <= 2 dimensions, but self is 3D")
def t_of_a_batch(tm):
    x = tm.ones(2, 3, 4)
    return x.t, [x]


@case("Tensors must have same number of dimensions: got 1 and 2")
def cat_of_a_vector_and_a_matrix(tm):
    a, b = tm.ones(2), tm.ones(2, 3)
    return lambda: tm.cat([a, b]), [a, b]


@case("select(): index 3 out of range for tensor of size [3] at dimension 0")
def select_out_of_range(tm):
    x = tm.ones(3)
    return lambda: x.select(0, 3), [x]


@case("start (2) + length (3) exceeds dimension size (3).")
def narrow_past_the_end(tm):
    x = tm.ones(3)
    return lambda: x.narrow(0, 2, 3), [x]


@case("chunk expects `chunks` to be greater than 0, got: 0")
def chunk_into_zero_pieces(tm):
    x = tm.ones(3)
    return lambda: x.chunk(0), [x]


@case("expected np.ndarray (got list)")
def from_numpy_of_a_list(tm):
    return lambda: tm.from_numpy([1.0, 2.0]), []


@case("fill_ only supports 0-dimension value tensor but got tensor with 1 dimensions.")
def fill_with_a_vector(tm):
    x = tm.zeros(2)
    return lambda: x.fill_(tm.ones(2)), [x]


@case("Found no NVIDIA driver on your system.")
def moving_to_cuda(tm):
    x = tm.ones(2)
    return lambda: x.to("cuda"), [x]


def _snapshot(tensor):
    """What a learner can observe of a tensor: values, grad, version, requires_grad."""
    grad = tensor.grad if tensor.is_leaf or tensor.retains_grad else None
    return {
        "values": tensor.numpy(force=True).copy(),
        "dtype": str(tensor.dtype),
        "grad": None if grad is None else grad.numpy(force=True).copy(),
        "version": tensor._version,
        "requires_grad": tensor.requires_grad,
    }


def _assert_same_state(got, expected, where):
    for i, (g, e) in enumerate(zip(got, expected)):
        at = f"{where}: tensor {i} "
        assert g["dtype"] == e["dtype"], at + "dtype"
        np.testing.assert_array_equal(g["values"], e["values"], err_msg=at + "values")
        assert (g["grad"] is None) == (e["grad"] is None), at + ".grad appeared or went"
        if e["grad"] is not None:
            np.testing.assert_array_equal(g["grad"], e["grad"], err_msg=at + ".grad")
        assert g["version"] == e["version"], at + "_version"
        assert g["requires_grad"] == e["requires_grad"], at + "requires_grad"


def _raised(tm, function, library):
    """The error ``call()`` raises, and snapshots of the tensors before and after it."""
    call, tensors = function(tm)
    before = [_snapshot(t) for t in tensors]
    try:
        result = call()
    except Exception as error:  # noqa: BLE001 - the error is what the test compares
        return error, before, [_snapshot(t) for t in tensors]
    raise AssertionError(f"{library} raised nothing, returned {result!r}")


def test_the_corpus_is_large_enough():
    assert len(CASES) >= 50


@pytest.mark.parametrize("name", list(CASES))
def test_misuse_raises_like_torch_and_changes_nothing(name):
    phrase, function, partial = CASES[name]
    torch_error, torch_before, torch_after = _raised(torch, function, "torch")
    assert phrase in str(torch_error), f"the phrase is not in torch's message: {torch_error}"
    engine_error, engine_before, engine_after = _raised(engine, function, "engine")
    assert_same_error(engine_error, torch_error, match=phrase)
    if partial:  # torch's own half-done change: the engine must make the same one
        _assert_same_state(engine_after, torch_after, "engine after vs torch after")
    else:
        _assert_same_state(torch_after, torch_before, "torch changed a tensor")
        _assert_same_state(engine_after, engine_before, "engine changed a tensor")


# ====================================================================== what the checks let through
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("loss", ["cross_entropy", "nll_loss"])
def test_one_sample_may_have_a_one_element_target_as_in_torch(loss, reduction):
    # (torch's backward then refuses this target, "size mismatch"; the engine's does not)
    results = []
    for tm in (torch, engine):
        scores = tm.tensor([0.5, -1.0, 2.0], requires_grad=True)
        value = getattr(tm.nn.functional, loss)(scores, tm.tensor([2]), reduction=reduction)
        results.append((str(value.dtype), tuple(value.shape), value.grad_fn.name(),
                        value.item()))
    assert results[1][:3] == results[0][:3]
    assert results[1][3] == pytest.approx(results[0][3], rel=1e-6)


@pytest.mark.parametrize("k", [0, 1, 3])
def test_topk_takes_every_k_up_to_the_size(k):
    for tm in (torch, engine):
        x = tm.tensor([3.0, 1.0, 2.0])
        assert x.topk(k).values.tolist() == [3.0, 2.0, 1.0][:k]
    assert engine.tensor(5.0).topk(1).values.item() == 5.0
