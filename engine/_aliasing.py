"""``sys.modules["torch"] = engine``: then a tutorial's import statements find the engine too.

``import engine as torch`` names the engine ``torch`` in one namespace only; an import
statement (``import torch.nn.functional as F``, ``from torch.utils.data import DataLoader``)
still looks for a module called ``torch`` on disk. Registering the engine under that name in
``sys.modules`` makes ``import torch`` and ``from torch import nn`` find it, but Python would
look for ``torch.nn`` as a *new* module in the engine's folder and run ``engine/nn`` a second
time: a second ``Tensor`` class, and ``relu(): argument 'input' (position 1) must be Tensor,
not Tensor``. This finder answers ``torch.<name>`` with the engine's own ``engine.<name>``
module while, and only while, ``sys.modules["torch"]`` is the engine. With PyTorch imported
as ``torch`` it answers nothing.
"""
import importlib
import importlib.abc
import importlib.util
import sys


class TorchNamesTheEngine(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """A meta path finder: ``torch.X`` is ``engine.X`` while ``torch`` is the engine."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith("torch.") or sys.modules.get("torch") is not \
                sys.modules.get("engine"):
            return None
        name = "engine" + fullname[len("torch"):]
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as error:
            if error.name != name:
                raise  # (something the engine's module needs is missing: say so)
            return None  # (then Python's own "No module named 'torch.x'", as PyTorch's)
        spec = importlib.util.spec_from_loader(fullname, self)
        spec.engine_module, spec.engine_spec = module, module.__spec__
        return spec

    def create_module(self, spec):
        return spec.engine_module

    def exec_module(self, module):
        # the import machinery set the module's __spec__ to the alias's; the module stays
        # the engine's (its relative imports, importlib.reload and pickle read __spec__)
        module.__spec__ = module.__spec__.engine_spec


def install():
    """Put the finder first (once), before the finder that would read the engine's folder."""
    if not any(isinstance(finder, TorchNamesTheEngine) for finder in sys.meta_path):
        sys.meta_path.insert(0, TorchNamesTheEngine())
