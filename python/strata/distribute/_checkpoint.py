"""Checkpoint: the state of a training program in one file of core's
checkpoint format (core/checkpoint/checkpoint_file.h, docs/CHECKPOINTS.md),
written and read by core through strata._core: atomically (temp file,
fsync, rename), with a CRC-32 that a restore checks before using a byte.

    ckpt = sd.Checkpoint(model=model, optimizer=optimizer, data=dataset, step=0)
    ckpt.step += 1; ckpt.save(path)       # the chief writes; a collective
    ckpt.restore(path)                    # every worker restores

What is saved is strategy-agnostic: a module's or an optimizer's single
logical state (replica 0's copy: the replicas' copies are alike), so a file
written under one strategy restores under any other, into however many
replicas it has. Any object with state_dict() / load_state_dict() is
tracked (modules, optimizers, distributed datasets and their iterators,
metrics, LR schedulers); plain numbers and strings are kept as attributes
(ckpt.step) and set again by restore.

In the file, every tensor of a state is a float32 tensor named
"<object>/<key>/<key>..." (a non-float32 one records its dtype, and must
convert exactly); the rest of each state is JSON in the metadata entry
"object/<name>"."""

import json

import numpy as np
import torch

from strata import _core
from strata.distribute import _context

_OBJECTS_KEY = "strata.distribute/objects"
_TENSOR = "__tensor__"
_FORMAT_VERSION = 1


class Checkpoint:
    """Tracks the objects given by name; save(path) and restore(path)."""

    def __init__(self, **objects):
        if not objects:
            raise ValueError("a Checkpoint needs at least one object to track, by name")
        object.__setattr__(self, "_objects", dict(objects))
        for name, obj in objects.items():
            _kind(name, obj)

    def __getattr__(self, name):
        objects = object.__getattribute__(self, "_objects")
        if name in objects:
            return objects[name]
        raise AttributeError(f"this Checkpoint tracks no '{name}' (it tracks "
                             f"{', '.join(objects)})")

    def __setattr__(self, name, value):
        objects = object.__getattribute__(self, "_objects")
        if name not in objects:
            raise AttributeError(f"this Checkpoint tracks no '{name}'; name every object when "
                                 "making it: Checkpoint(name=object, ...)")
        _kind(name, value)
        objects[name] = value

    # --- save ------------------------------------------------------------

    def save(self, path):
        """Writes every tracked object's state to `path` (atomically; the
        previous file, if any, stays whole until the new one is). In a
        multi-worker job every worker calls it (states of metrics are
        collectives), the chief alone writes, and every worker returns once
        the chief's write succeeded or raises if it failed. Returns `path`."""
        path = str(path)
        self._write_with(lambda step, tensors, metadata: _core.write_checkpoint(
            path, step, tensors, metadata), f"saving checkpoint '{path}'")
        return path

    def _write_with(self, write, what):
        """Collects every tracked object's state (on every worker) and calls
        write(step, tensors, metadata) on the chief; every worker raises if
        it failed. Returns what `write` returned (None on other workers)."""
        strategy = self._strategy()
        tensors, metadata = {}, {}
        names = []
        for name, obj in self._objects.items():
            kind = _kind(name, obj)
            state = obj.state_dict() if kind == "stateful" else obj
            metadata["object/" + name] = json.dumps(_encode(state, name, tensors),
                                                    allow_nan=True)
            names.append(name)
        metadata[_OBJECTS_KEY] = json.dumps({"version": _FORMAT_VERSION, "names": names})
        metadata["strategy"] = type(strategy).__name__
        metadata["replicas"] = str(strategy.num_replicas_in_sync)
        failure, written = None, None
        if strategy._is_chief:
            try:
                written = write(self._step_number() or 0, tensors, metadata)
            except Exception as error:  # every worker must hear of it: no early raise
                failure = error
        _agree(strategy, [0.0 if failure is None else 1.0], what,
               "the chief failed to write it", failure)
        if failure is not None:
            raise failure
        return written

    def _step_number(self):
        """The tracked `step` as an int, or None when there is none."""
        step = self._objects.get("step")
        return int(step) if isinstance(step, (int, np.integer)) else None

    # --- restore ---------------------------------------------------------

    def restore(self, path):
        """Reads `path` (its CRC-32 checked: a corrupt or truncated file
        raises DataLossError naming it) and loads every tracked object's
        state into it, on every replica. In a multi-worker job every worker
        restores, and all of them check they read the same file (checksum).
        Returns this Checkpoint."""
        path = str(path)
        strategy = self._strategy()
        contents, failure = None, None
        try:
            contents = _core.read_checkpoint(path)
        except Exception as error:
            failure = error
        checksum = float(contents["checksum"]) if contents is not None else -1.0
        _agree(strategy, [1.0 if failure else 0.0, checksum], f"restoring checkpoint '{path}'",
               "a worker could not read it", failure)
        if failure is not None:
            raise failure
        where = f"checkpoint '{path}' (CRC {contents['checksum_text']})"
        metadata, tensors = contents["metadata"], contents["tensors"]
        if _OBJECTS_KEY not in metadata:
            raise ValueError(f"{where} was not written by strata.distribute.Checkpoint (it has "
                             f"no '{_OBJECTS_KEY}' entry)")
        saved = json.loads(metadata[_OBJECTS_KEY])["names"]
        for name, obj in list(self._objects.items()):
            if name not in saved:
                raise KeyError(f"{where} holds no '{name}'; it holds {', '.join(saved)}")
            state = _decode(json.loads(metadata["object/" + name]), tensors, where)
            if _kind(name, obj) == "stateful":
                try:
                    self._load(obj, state)
                except Exception as error:
                    raise ValueError(f"{where}: restoring '{name}' "
                                     f"({type(obj).__name__}) failed: {error}") from error
            else:
                self._objects[name] = state
        return self

    @staticmethod
    def _load(obj, state):
        strategy = getattr(obj, "__dict__", {}).get("_strata_strategy")
        if strategy is not None and isinstance(obj, torch.optim.Optimizer):
            strategy._load_optimizer_state(obj, state)  # where the strategy keeps it
        else:
            obj.load_state_dict(state)

    def _strategy(self):
        """The strategy of the tracked objects (their scope's), else the current one."""
        for obj in self._objects.values():
            strategy = getattr(obj, "__dict__", {}).get("_strata_strategy") or \
                getattr(obj, "_strategy", None)
            if strategy is not None and hasattr(strategy, "_is_chief"):
                return strategy
        return _context.get_strategy()


def _kind(name, obj):
    if callable(getattr(obj, "state_dict", None)) and callable(getattr(obj, "load_state_dict",
                                                                       None)):
        return "stateful"
    if obj is None or isinstance(obj, (bool, int, float, str, np.integer, np.floating)):
        return "value"
    raise TypeError(f"Checkpoint({name}=...): a {type(obj).__name__} has no state_dict() and "
                    "load_state_dict(); track modules, optimizers, datasets, metrics, numbers")


def exchange(strategy, my_numbers):
    """Every worker's numbers, by worker (one all-reduce of per-worker slots)."""
    workers = strategy._worker_count
    if workers == 1:
        return np.array([my_numbers], dtype=np.float64)
    worker = strategy._replica_offset // strategy._local_count
    slots = np.zeros((workers, len(my_numbers)))
    slots[worker] = my_numbers
    local = [slots.reshape(-1)] + [np.zeros(slots.size)] * (strategy._local_count - 1)
    return strategy._job_sum_arrays(local).reshape(workers, len(my_numbers))


def _agree(strategy, my_numbers, what, others_failed, failure):
    """Raises on the workers that did not fail when one did (my_numbers[0]
    is 1 on failure), and when the workers read different files
    (my_numbers[1], the CRC). One worker: nothing to agree on."""
    if strategy._worker_count == 1:
        return
    every = exchange(strategy, my_numbers)
    failed = [w for w in range(len(every)) if every[w, 0]]
    if failed and failure is None:
        raise RuntimeError(f"{what}: {others_failed} (worker(s) "
                           f"{', '.join(map(str, failed))}); see their errors")
    if not failed and len(my_numbers) > 1 and len(set(every[:, 1])) > 1:
        found = ", ".join(f"worker {w}: CRC 0x{int(c):08x}" for w, c in enumerate(every[:, 1]))
        raise RuntimeError(f"{what}: the workers read different files ({found}); every worker "
                           "must restore the same checkpoint")


def _encode(value, path, tensors):
    """JSON for `value`, its tensors moved into `tensors` under their paths."""
    if isinstance(value, torch.Tensor):
        return {_TENSOR: _add_tensor(path, value, tensors)}
    if isinstance(value, np.ndarray):
        return {_TENSOR: _add_tensor(path, torch.from_numpy(value), tensors), "numpy": True}
    if isinstance(value, dict):
        return {"__dict__": [[k, _encode(v, f"{path}/{k}", tensors)] for k, v in value.items()]}
    if isinstance(value, (list, tuple)):
        items = [_encode(v, f"{path}/{i}", tensors) for i, v in enumerate(value)]
        return {"__tuple__": items} if isinstance(value, tuple) else items
    if isinstance(value, np.generic):
        return value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"cannot checkpoint '{path}': a {type(value).__name__} is not a tensor, "
                    "number, string, list, tuple or dict")


def _add_tensor(path, tensor, tensors):
    if path in tensors:
        raise ValueError(f"two tensors of the checkpoint would be named '{path}'")
    tensor = tensor.detach().cpu()
    if tensor.is_complex():
        raise TypeError(f"tensor '{path}' is complex; the checkpoint format holds float32")
    as_f32 = tensor.to(torch.float32)
    if tensor.dtype != torch.float32 and not torch.equal(as_f32.to(tensor.dtype), tensor):
        raise ValueError(f"tensor '{path}' of dtype {tensor.dtype} holds values float32 cannot "
                         "hold exactly; core's checkpoint format stores float32 values")
    tensors[path] = as_f32.contiguous().numpy()
    return {"name": path, "dtype": str(tensor.dtype).removeprefix("torch.")}


def _decode(value, tensors, where):
    if isinstance(value, list):
        return [_decode(v, tensors, where) for v in value]
    if not isinstance(value, dict):
        return value
    if _TENSOR in value:
        name = value[_TENSOR]["name"]
        if name not in tensors:
            raise ValueError(f"{where} has no tensor '{name}' that its metadata names")
        tensor = torch.from_numpy(tensors[name]).to(getattr(torch, value[_TENSOR]["dtype"]))
        return tensor.numpy() if value.get("numpy") else tensor
    if "__tuple__" in value:
        return tuple(_decode(v, tensors, where) for v in value["__tuple__"])
    return {k: _decode(v, tensors, where) for k, v in value["__dict__"]}
