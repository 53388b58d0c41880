"""The strategies of one process: OneDeviceStrategy (one replica),
MirroredStrategy (one replica per local device, replicas on threads,
gradients summed with Strata's collectives), and the default strategy in
force when no other is."""

from strata.distribute._strategy import Strategy


class OneDeviceStrategy(Strategy):
    """One replica on `device`: no communication, the same API."""

    def __init__(self, device="cpu:0", communication_options=None):
        super().__init__([device], communication_options)


class MirroredStrategy(Strategy):
    """One replica per device of `devices` ("cpu:0", "cpu:1", ...), each
    running `run`'s function on a thread of its own (torch releases the GIL
    in its kernels), with mirrored modules and optimizers: the optimizer's
    step sums the replicas' gradients with Strata's batch_all_reduce
    (CommunicationOptions: implementation, bytes_per_pack, timeout)."""

    def __init__(self, devices=None, cross_device_ops=None, communication_options=None):
        if cross_device_ops is not None:
            raise NotImplementedError("cross_device_ops: Strata chooses the algorithm; name one "
                                      "with CommunicationOptions(implementation=...)")
        super().__init__(list(devices) if devices is not None else ["cpu:0"],
                         communication_options)


class DefaultStrategy(OneDeviceStrategy):
    """tf.distribute's default strategy: one replica, nothing distributed."""

    def __repr__(self):
        return "DefaultStrategy()"
