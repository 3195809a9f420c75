"""``torch.Size`` and ``torch.device``: the two small value types a tensor reports."""


class Size(tuple):
    """A tensor's shape: a tuple of ints that prints as ``torch.Size([2, 3])``."""

    __slots__ = ()

    def __repr__(self):
        return f"torch.Size([{', '.join(str(n) for n in self)}])"

    __str__ = __repr__

    def __getitem__(self, index):
        item = tuple.__getitem__(self, index)
        return Size(item) if isinstance(index, slice) else item

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))

    def numel(self):
        """The number of elements a tensor of this shape holds."""
        count = 1
        for n in self:
            count *= n
        return count


class device:
    """Where a tensor lives. The engine has only ``cpu``; other names are accepted
    here (as in torch) and refused when a tensor is asked to move there."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):  # noqa: A002 - torch's parameter name
        if isinstance(type, device):
            type, index = type.type, type.index
        elif ":" in type:
            type, _, number = type.partition(":")
            index = int(number)
        if type not in ("cpu", "cuda", "mps", "meta", "xpu"):
            raise RuntimeError(
                "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, "
                "fpga, maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type "
                f"at start of device string: {type}")
        self.type = type
        self.index = index

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))


CPU = device("cpu")


def check_device(where):
    """Accept ``None``, ``'cpu'`` or ``device('cpu')``; refuse the rest as torch's CPU build does."""
    if where is None or where is CPU:
        return CPU
    where = device(where) if not isinstance(where, device) else where
    if where.type == "cpu":
        return CPU
    if where.type == "cuda":
        raise AssertionError("Torch not compiled with CUDA enabled")
    raise RuntimeError(f"PyTorch is not linked with support for {where.type} devices")
