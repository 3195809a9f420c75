"""Which torch.func transforms are running, for the code below them that must know: a custom
``autograd.Function`` inside one needs ``setup_context`` (torch's rule), and the innermost
running vmap takes its call (a vmap entry's ``custom_function``: the Function's own batching
rule, engine/func/function_vmap.py).

engine/func/ keeps the state; engine/autograd/ reads it (the two packages sit side by side,
so the state lives here, below both)."""

RUNNING = []  # one entry per transform call in progress (grad, vjp, vmap), outermost first


class NoBatchingRule(Exception):
    """Raised inside a batched call when an operation has no batching rule: vmap falls back
    to calling the function once per sample (engine/func/vmap.py)."""

    vmap_loop = True  # (the engine's hand-over passes it on: vmap's request for its loop)
