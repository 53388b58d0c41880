"""Where the calling thread stands: inside which strategy's scope, and in
which replica (or in cross-replica context). Kept per thread, because a
MirroredStrategy runs each replica of `run` on a thread of its own, and the
names a step function uses (`model`, `optimizer`) resolve to the replica of
the thread that uses them."""

import threading

_thread = threading.local()
_default = None
_default_lock = threading.Lock()


def _scopes():
    scopes = getattr(_thread, "scopes", None)
    if scopes is None:
        scopes = _thread.scopes = []
    return scopes


def current_replica():
    """The ReplicaContext of the calling thread, or None in cross-replica
    context (outside `run`, or inside a merge_call's function)."""
    return getattr(_thread, "replica", None)


def set_replica(context):
    """Makes `context` (a ReplicaContext or None) the calling thread's;
    returns the one it replaces, to restore."""
    previous = getattr(_thread, "replica", None)
    _thread.replica = context
    return previous


def enter_scope(strategy):
    scopes = _scopes()
    if scopes and scopes[-1] is not strategy and scopes[-1] is not default_strategy():
        raise ValueError(f"cannot enter the scope of {strategy!r} inside the scope of "
                         f"{scopes[-1]!r}: strategies do not nest (tf.distribute refuses it too)")
    scopes.append(strategy)


def exit_scope(strategy):
    scopes = _scopes()
    if not scopes or scopes[-1] is not strategy:
        raise RuntimeError(f"the scope of {strategy!r} exited out of order")
    scopes.pop()


def scope_strategy():
    """The strategy whose scope the calling thread is in, or None."""
    scopes = getattr(_thread, "scopes", None)
    return scopes[-1] if scopes else None


def default_strategy():
    """The strategy in force when no other is: one replica, no
    distribution (tf.distribute's default strategy)."""
    global _default
    with _default_lock:
        if _default is None:
            from strata.distribute._one_device import DefaultStrategy
            _default = DefaultStrategy()
        return _default


def get_strategy():
    """The current strategy: the replica's inside `run`, the innermost
    `scope()`'s, else the default strategy."""
    replica = current_replica()
    if replica is not None:
        return replica.strategy
    strategy = scope_strategy()
    if strategy is not None:
        return strategy
    merging = getattr(_thread, "merging", None)
    return merging if merging is not None else default_strategy()


def has_strategy():
    """Whether a strategy other than the default is current."""
    return get_strategy() is not default_strategy()


def in_cross_replica_context():
    """True inside a non-default strategy's scope (or a merge_call's
    function) but outside any replica."""
    return current_replica() is None and has_strategy()


def get_replica_context():
    """The replica the calling thread runs: inside `run`, its ReplicaContext;
    in cross-replica context (a strategy's scope, a merge_call), None; with
    no strategy at all, the default strategy's single replica."""
    replica = current_replica()
    if replica is not None:
        return replica
    if in_cross_replica_context():
        return None
    return default_strategy().default_replica_context()


def set_merging(strategy):
    """Marks the calling replica thread as running `strategy`'s merge_call
    function; returns what it replaces."""
    previous = getattr(_thread, "merging", None)
    _thread.merging = strategy
    return previous
