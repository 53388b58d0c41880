"""CheckpointManager: numbered checkpoints in one directory, the newest
`max_to_keep` kept (tf.train.CheckpointManager), by core's CheckpointManager
(core/checkpoint/checkpoint_manager.h) bound into strata._core:

    <directory>/ckpt-<step>.strata   one Checkpoint each
    <directory>/checkpoint           the index: the kept files, oldest first

A save writes the new file atomically, then the index, then deletes the
oldest; a crash at any point leaves the previous checkpoint and an index
naming only whole files. latest_checkpoint is the newest file whose
header, length and CRC-32 are valid: a damaged newest one is skipped with a
warning naming it, and the one before is used."""

import os
import re

from strata import _core
from strata.distribute._checkpoint import exchange


class CheckpointManager:
    """Saves `checkpoint` (an sd.Checkpoint) into `directory`."""

    def __init__(self, checkpoint, directory, max_to_keep=5):
        if max_to_keep is None or max_to_keep < 1:
            raise ValueError(f"max_to_keep must be at least 1, not {max_to_keep}")
        self._checkpoint = checkpoint
        self._manager = _core.CheckpointManager(os.fspath(directory), max_to_keep)

    @property
    def directory(self):
        return self._manager.directory

    @property
    def checkpoints(self):
        """The kept checkpoints' paths, oldest first."""
        return self._manager.checkpoints()

    @property
    def latest_checkpoint(self):
        """The newest valid kept checkpoint's path, or None."""
        return self._manager.latest()

    def save(self, checkpoint_number=None):
        """Writes ckpt-<n>.strata, n being `checkpoint_number`, else the
        checkpoint's `step`. A collective in a multi-worker job: the chief
        writes (Checkpoint.save's rules). Returns the new file's path."""
        number = checkpoint_number
        if number is None:
            number = self._checkpoint._step_number()
        if number is None:
            raise ValueError("CheckpointManager.save needs a checkpoint_number, or a Checkpoint "
                             "that tracks an int `step`")
        what = f"saving checkpoint {number} in '{self.directory}'"
        self._checkpoint._write_with(
            lambda _, tensors, metadata: self._manager.save(int(number), tensors, metadata), what)
        return os.path.join(self.directory, f"ckpt-{int(number)}.strata")

    def restore_or_initialize(self):
        """Restores the latest valid checkpoint, if there is one, and returns
        its path; else changes nothing and returns None. Every worker must
        find the same one (else every worker raises, naming what each found)."""
        latest = self.latest_checkpoint
        strategy = self._checkpoint._strategy()
        # The step is in the name core gave the file: no second read.
        step = float(re.fullmatch(r"ckpt-(\d+)\.strata", os.path.basename(latest)).group(1)) \
            if latest else -1.0
        found = exchange(strategy, [step])[:, 0]
        if len(set(found)) > 1:
            seen = ", ".join(f"worker {w}: " + (f"step {int(s)}" if s >= 0 else "none")
                             for w, s in enumerate(found))
            raise RuntimeError(f"the workers found different latest checkpoints in "
                               f"'{self.directory}' ({seen}); they must share the directory")
        if latest is None:
            return None
        self._checkpoint.restore(latest)
        return latest
