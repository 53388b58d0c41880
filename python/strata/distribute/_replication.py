"""Modules and optimizers made inside `strategy.scope()`, one copy per
replica. While a scope is open, torch.nn.Module.__init__ and
torch.optim.Optimizer.__init__ note what they build for that scope's
strategy; when the scope closes (or `run` starts) each outermost module is
copied from replica 0 (the chief) to the other replicas, each optimizer is
copied onto those replicas' parameters, and the object the program holds
becomes replica 0's copy that, on a replica thread of `run`, stands for
that replica's copy. So `model(x)` and `optimizer.step()` in a step
function touch the copy of the replica running it, and the program's own
names work unchanged under every strategy."""

import copy
import threading

import torch

from strata.distribute import _context

_patch_lock = threading.Lock()
_open_scopes = 0
_original_inits = {}


def _recording_init(cls, kind):
    original = cls.__init__

    def __init__(self, *args, **kwargs):
        original(self, *args, **kwargs)
        strategy = _context.scope_strategy()
        if strategy is not None:
            strategy._replicator.record(kind, self)

    __init__.__wrapped__ = original
    return __init__


def open_scope():
    """Starts noting the modules and optimizers built (by any thread in a
    scope); patched only while some scope is open."""
    global _open_scopes
    with _patch_lock:
        if _open_scopes == 0:
            for cls, kind in ((torch.nn.Module, "module"), (torch.optim.Optimizer, "optimizer")):
                _original_inits[cls] = cls.__init__
                cls.__init__ = _recording_init(cls, kind)
        _open_scopes += 1


def close_scope():
    global _open_scopes
    with _patch_lock:
        _open_scopes -= 1
        if _open_scopes == 0:
            for cls, original in _original_inits.items():
                cls.__init__ = original
            _original_inits.clear()


def _owner_replica(obj):
    """The replica id whose copy `obj` stands for on this thread, or 0."""
    replica = _context.current_replica()
    if replica is None or replica.strategy is not object.__getattribute__(obj, "_strata_strategy"):
        return 0
    return replica.local_replica_id


# Methods that change a module's or optimizer's state: called in
# cross-replica context (outside `run`), they change every replica's copy,
# so the copies stay alike (model.eval(), model.load_state_dict(...)).
_TO_EVERY_COPY = frozenset({"train", "eval", "load_state_dict", "zero_grad", "requires_grad_"})


class _StandsForReplica:
    """Mixed into replica 0's copy: on replica r's thread every attribute,
    call and assignment goes to replica r's copy; outside `run`, the
    methods of _TO_EVERY_COPY apply to every copy."""

    def __getattribute__(self, name):
        replica = _owner_replica(self)
        if replica:
            return getattr(object.__getattribute__(self, "_strata_copies")[replica], name)
        if name in _TO_EVERY_COPY and _context.current_replica() is None:
            return _on_every_copy(self, name)
        return object.__getattribute__(self, name)

    def __setattr__(self, name, value):
        replica = _owner_replica(self)
        if replica:
            setattr(object.__getattribute__(self, "_strata_copies")[replica], name, value)
        else:
            super().__setattr__(name, value)

    def __call__(self, *args, **kwargs):
        replica = _owner_replica(self)
        if replica:
            return object.__getattribute__(self, "_strata_copies")[replica](*args, **kwargs)
        return super().__call__(*args, **kwargs)


def _on_every_copy(obj, name):
    copies = object.__getattribute__(obj, "_strata_copies")
    methods = [object.__getattribute__(obj, name)] + [getattr(c, name) for c in copies[1:]]

    def call(*args, **kwargs):
        results = [method(*args, **kwargs) for method in methods]
        return results[0]

    return call


class _AllReducesGradients:
    """Mixed into every replica's optimizer: a step taken in replica context
    goes through the strategy, which combines the replicas' gradients first
    (Mirrored: all of them sum them and step; CentralStorage: replica 0
    receives the sum, steps, and sends the new weights)."""

    def step(self, *args, **kwargs):
        replica = _context.current_replica()
        strategy = object.__getattribute__(self, "_strata_strategy")
        if replica is not None and replica.strategy is strategy:
            params = [p for group in self.param_groups for p in group["params"]]
            optimizer_step = super().step
            return strategy._replica_step(replica, params,
                                          lambda: optimizer_step(*args, **kwargs))
        return super().step(*args, **kwargs)


_classes = {}


def _mixed(cls, mixins):
    key = (cls, mixins)
    if key not in _classes:
        _classes[key] = type(cls.__name__, (*mixins, cls),
                             {"__module__": cls.__module__, "__qualname__": cls.__qualname__})
    return _classes[key]


class Replicator:
    """What one strategy's scopes have built and not yet replicated."""

    def __init__(self, strategy):
        self._strategy = strategy
        self._lock = threading.Lock()
        self._pending = {"module": [], "optimizer": []}
        self._copies_of = {}  # id(replica 0's parameter) -> its copies, in replica order

    def record(self, kind, obj):
        with self._lock:
            self._pending[kind].append(obj)

    def replicate_pending(self):
        with self._lock:
            modules, self._pending["module"] = self._pending["module"], []
            optimizers, self._pending["optimizer"] = self._pending["optimizer"], []
        inner = {id(sub) for m in modules for sub in m.modules() if sub is not m}
        for module in modules:
            if id(module) not in inner and "_strata_copies" not in module.__dict__:
                self._replicate_module(module)
        for optimizer in optimizers:
            if "_strata_copies" not in optimizer.__dict__:
                self._replicate_optimizer(optimizer)

    def _replicate_module(self, module):
        count = self._strategy._local_count
        copies = [module] + [copy.deepcopy(module) for _ in range(1, count)]
        self._strategy._broadcast_from_chief(copies)
        originals = list(module.parameters()) + list(module.buffers())
        for r, replica in enumerate(copies[1:], start=1):
            mine_all = list(replica.parameters()) + list(replica.buffers())
            for original, mine in zip(originals, mine_all):
                self._copies_of.setdefault(id(original), [original]).append(mine)
        for original in originals:
            self._copies_of.setdefault(id(original), [original])
        self._adopt(module, copies, (_StandsForReplica,))

    def _replicate_optimizer(self, optimizer):
        count = self._strategy._local_count
        params = [p for group in optimizer.param_groups for p in group["params"]]
        foreign = [i for i, p in enumerate(params) if id(p) not in self._copies_of]
        if foreign:
            raise ValueError(
                f"{type(optimizer).__name__} made in {self._strategy!r}'s scope updates "
                f"{len(foreign)} parameter(s) of no module made in that scope (first: "
                f"#{foreign[0]}); create the model inside strategy.scope() too")
        copies = [optimizer]
        for r in range(1, count):
            memo = {id(p): self._copies_of[id(p)][r] for p in params}
            copies.append(copy.deepcopy(optimizer, memo))
        for replica in copies[1:]:
            object.__setattr__(replica, "_strata_strategy", self._strategy)
            replica.__class__ = _mixed(type(replica), (_AllReducesGradients,))
        self._adopt(optimizer, copies, (_StandsForReplica, _AllReducesGradients))

    def _adopt(self, obj, copies, mixins):
        object.__setattr__(obj, "_strata_strategy", self._strategy)
        object.__setattr__(obj, "_strata_copies", copies)
        obj.__class__ = _mixed(type(obj), mixins)


def local_copies(obj):
    """The per-replica copies of an object made in a scope (replica order),
    or (obj,) for anything else."""
    copies = obj.__dict__.get("_strata_copies") if hasattr(obj, "__dict__") else None
    return tuple(copies) if copies else (obj,)
