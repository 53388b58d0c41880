"""strategy_from_config: the strategy the YAML config's `strategy:` section
names, as C++'s make_strategy_from_config builds it. Core parses the file
(its errors name file:line:column) and fills in the default devices; this
module only picks the Python class."""

from strata import _core
from strata.distribute import _context
from strata.distribute._central_storage import CentralStorageStrategy
from strata.distribute._multi_worker import MultiWorkerMirroredStrategy
from strata.distribute._one_device import MirroredStrategy, OneDeviceStrategy


def strategy_from_config(config=None, communication_options=None):
    """The strategy of `config` (a YAML file; None: $STRATA_CONFIG, else the
    built-in defaults, as strata.runtime() chooses). Kinds: default (the
    default strategy: one replica, nothing distributed), one_device,
    mirrored, central_storage, multi_worker_mirrored. `strategy.devices`
    empty means what it means in C++: cpu:0 for one_device, every cpu
    device of the runtime for mirrored and central_storage, the cluster's
    devices per task (else cpu:0) for multi_worker_mirrored. What
    `communication_options` leaves unset comes from the config's
    `collectives:` section. parameter_server and tpu run from C++ only:
    NotSupportedError naming the kind."""
    spec = _core.strategy_config(config)
    kind, devices = spec["kind"], list(spec["devices"])
    if kind == "default":
        return _context.default_strategy()
    if kind == "one_device":
        if len(devices) != 1:
            raise ValueError(f"{spec['source']}: strategy: one_device takes one device, got "
                             f"{len(devices)}")
        return OneDeviceStrategy(devices[0], communication_options=communication_options)
    if kind == "mirrored":
        return MirroredStrategy(devices, communication_options=communication_options)
    if kind == "central_storage":
        parameter_device = spec["parameter_device"] or None
        if parameter_device is not None and parameter_device not in devices:
            raise ValueError(f"{spec['source']}: strategy: parameter_device {parameter_device} "
                             "is not one of the strategy's devices")
        return CentralStorageStrategy(devices, parameter_device, communication_options)
    if kind == "multi_worker_mirrored":
        return MultiWorkerMirroredStrategy(communication_options=communication_options,
                                           devices=devices or None)
    raise ValueError(f"{spec['source']}: strategy: kind '{kind}' has no Python strategy")
