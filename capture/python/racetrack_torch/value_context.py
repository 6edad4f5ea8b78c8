"""Where an operator runs, for the stable identities `racetrack diff` aligns
two runs by: the phase and the module path.

Phase:
    optimizer   inside an optimizer's step() (global step hooks)
    forward     outside the autograd engine
    recompute   inside the engine, within a module's forward or directly in
                a custom autograd Function's backward (activation
                recomputation: a checkpoint wrapper reruns the forward there)
    backward    inside the engine otherwise
Module path: the innermost module whose forward is running on this thread
(global module hooks), by its name in the model given to `name_modules`
("model.layers.0.mlp"), else its parent's path and its class name. A
backward operator takes the path of the forward operator that made the
autograd node it runs in. Outputs get their node only after the dispatch
mode returns, so nodes are known by sequence number: when an operator is
dispatched its node exists already, numbered one below the thread's next
number. Numbers count per thread; on the CPU backward runs on the thread
that ran forward, so this is exact there; with CUDA's device threads a
recomputed operator's node can share a number with a forward one, and
the first to claim it keeps it."""

import threading

_REMEMBERED = 1 << 20  # node numbers kept; the oldest half is dropped past it


class ValueContext:
    def __init__(self, torch):
        self._torch = torch
        self._names = {}  # id(module) -> qualified name
        self._modules = {}  # id(module) -> module, keeping named ones alive for their ids
        self._local = threading.local()
        self._optimizer_depth = 0
        self._node_modules = {}  # autograd node sequence number -> module path
        self._custom_backward = torch.autograd.function.BackwardCFunction
        # Called as (node name, module, grads) with the gradients a custom
        # autograd Function's backward returned (None where it returned none).
        self.on_custom_returns = None
        modules = torch.nn.modules.module
        import torch.optim.optimizer as optimizer
        self._handles = [
            modules.register_module_forward_pre_hook(self._enter),
            modules.register_module_forward_hook(self._leave, always_call=True),
            optimizer.register_optimizer_step_pre_hook(self._optimizer_enter),
            optimizer.register_optimizer_step_post_hook(self._optimizer_leave),
        ]

    def close(self):
        for handle in self._handles:
            handle.remove()
        self._handles = []

    def name_modules(self, model, name):
        """Names model's modules "<name>.<path>" (the model itself: name)."""
        for path, module in model.named_modules():
            self._names[id(module)] = f"{name}.{path}" if path else name
            self._modules[id(module)] = module

    def where(self):
        """(phase, module path) of an operator running now on this thread."""
        stack = self._stack()
        if self._optimizer_depth:
            return "optimizer", stack[-1] if stack else ""
        node = self._torch._C._current_autograd_node()
        if node is None:
            return "forward", stack[-1] if stack else ""
        module = stack[-1] if stack else self._node_modules.get(node._sequence_nr(), "")
        custom = isinstance(node, self._custom_backward)
        if custom:
            self._watch_returns(node)
        if stack or custom:
            return "recompute", module
        return "backward", module

    def _watch_returns(self, node):
        """What a custom Function's backward returns is no operator's output:
        a post-hook on its node, added while it runs (the engine reads the
        hooks after the backward returns), reports it. The hook keeps the
        node's name, not the node (no reference cycle through the engine)."""
        if self.on_custom_returns is None or getattr(node, "_racetrack_watched", False):
            return
        node._racetrack_watched = True
        name = node.name()
        module = self._node_modules.get(node._sequence_nr(), "")
        report = self.on_custom_returns
        node.register_hook(lambda grad_inputs, grad_outputs: report(name, module, grad_inputs))

    def note_node(self, module):
        """A forward operator is being dispatched in `module`: the autograd
        node it made, if any, belongs there (the first claim wins: an
        operator that made none sees its predecessor's number)."""
        number = self._torch._C._autograd._get_sequence_nr() - 1
        if number < 0 or number in self._node_modules:
            return
        if len(self._node_modules) >= _REMEMBERED:
            for old in list(self._node_modules)[:_REMEMBERED // 2]:
                del self._node_modules[old]
        self._node_modules[number] = module

    def _stack(self):
        stack = getattr(self._local, "stack", None)
        if stack is None:
            stack = self._local.stack = []
        return stack

    def _enter(self, module, args):
        stack = self._stack()
        name = self._names.get(id(module))
        if name is None:
            parent = stack[-1] if stack else ""
            name = f"{parent}/{type(module).__name__}" if parent else type(module).__name__
        stack.append(name)

    def _leave(self, module, args, output):
        stack = self._stack()
        if stack:
            stack.pop()

    def _optimizer_enter(self, optimizer, args, kwargs):
        self._optimizer_depth += 1

    def _optimizer_leave(self, optimizer, args, kwargs):
        self._optimizer_depth = max(0, self._optimizer_depth - 1)
