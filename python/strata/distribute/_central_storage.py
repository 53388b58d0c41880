"""CentralStorageStrategy: replicas on the local compute devices, one
authoritative copy of the weights and of the optimizer's state (replica
0's, on the parameter device): a step reduces the replicas' gradients to
it, updates it alone, and broadcasts the new weights to the other
replicas (TF's CentralStorageStrategy, for one machine)."""

from strata.distribute import _context
from strata.distribute._devices import check_replica_devices
from strata.distribute._strategy import Strategy, gradient_arrays


class CentralStorageStrategy(Strategy):
    """Replicas on `compute_devices` ("cpu:0", "cpu:1", ...); the weights
    live in replica 0's copy, on `parameter_device` (a cpu device: with
    replicas on cpu devices only, that is where replica 0 computes too)."""

    def __init__(self, compute_devices=None, parameter_device=None, communication_options=None):
        devices = list(compute_devices) if compute_devices is not None else ["cpu:0"]
        if parameter_device is not None:
            check_replica_devices([parameter_device], "parameters")
        super().__init__(devices, communication_options)
        self._parameter_device = str(parameter_device or "cpu:0")

    @property
    def parameter_device(self):
        return self._parameter_device

    def _load_optimizer_state(self, optimizer, state):
        """A restored optimizer state goes to replica 0's optimizer alone,
        the only one that steps."""
        type(optimizer).load_state_dict(optimizer, state)

    def _replica_step(self, context, params, optimizer_step):
        """optimizer.step() in replica context: the gradients are summed
        into replica 0's (Strata's reduce), replica 0's optimizer steps (so
        its state exists once), and its weights are broadcast to the
        others; the other replicas' optimizers never step."""
        if self._local_count == 1:
            return optimizer_step()
        communicator = self._communicator()
        what = f"reduce(sum) of {len(params)} gradients to replica 0, step, broadcast"

        def step(payloads):
            lists = gradient_arrays([p for p, _ in payloads])
            for per_replica in zip(*lists):
                communicator.reduce(list(per_replica), root=0, op="sum")
            # Replica 0's step on whichever replica's thread runs this
            # meeting: in cross-replica context, names stand for replica 0.
            previous = _context.set_replica(None)
            try:
                result = payloads[0][1]()
            finally:
                _context.set_replica(previous)
            for per_replica in zip(*(p for p, _ in payloads)):
                communicator.broadcast([t.detach().numpy() for t in per_replica], root=0)
            return result

        return context.meet(what, (params, optimizer_step), step)
