"""Which devices strata.distribute's replicas may run on: cpu devices. A
replica on a cuda device is refused with what is missing, checked rather
than guessed: torch's view of the GPUs, the nccl plugin's state and the
runtime's cuda devices (strata.info()), and the part not built here."""

import torch

from strata import _core
from strata._errors import NotSupportedError

NOT_BUILT = ("replicas on cuda devices are not built in Python yet: strata.distribute hands "
             "Strata's collectives host (numpy) buffers only; C++ programs run collectives on "
             "cuda devices through the nccl plugin (docs/GPU.md)")


def check_replica_devices(devices, role="replicas"):
    """Raises NotSupportedError for the first device of `devices` that is not a cpu device."""
    for device in devices:
        kind = str(device).split(":")[0].lower()
        if kind == "cpu":
            continue
        where = f"strata.distribute puts {role} on cpu devices only, not '{device}'"
        if kind != "cuda":
            raise NotSupportedError(f"strata: NOT_SUPPORTED: {where}", code=-1,
                                    code_name="NOT_SUPPORTED")
        missing = cuda_gaps()
        lacks = f" This process lacks: {'; '.join(missing)}." if missing else ""
        raise NotSupportedError(f"strata: NOT_SUPPORTED: {where}.{lacks} Besides, {NOT_BUILT}",
                                code=-1, code_name="NOT_SUPPORTED")

def cuda_gaps():
    """What this process lacks for cuda replicas, one phrase each."""
    gaps = []
    if torch.version.cuda is None:
        # Debian's python3-torch is such a build: no tensor can live on a
        # cuda device, whatever the machine has.
        gaps.append(f"this torch ({torch.__version__}) is built without CUDA, so no tensor "
                    "can live on a cuda device")
    elif not torch.cuda.is_available():
        gaps.append("torch sees no cuda device")
    try:
        info = _core.info(None)
    except Exception as error:  # noqa: BLE001 (the refusal names it instead)
        return gaps + [f"Strata's runtime did not start ({error})"]
    nccl = [p for p in info["plugins"] if p["name"] == "nccl"]
    if not nccl:
        gaps.append("the nccl plugin is not among Strata's plugins (it is built only where "
                    "CUDA and NCCL are: docs/GPU.md)")
    elif nccl[0]["state"] != "loaded":
        gaps.append(f"the nccl plugin is {nccl[0]['state']} ({nccl[0]['reason']})")
    cuda = [t for t in info["device_types"] if t["name"] == "cuda"]
    if not cuda or not cuda[0]["count"]:
        gaps.append("Strata's runtime has no cuda devices")
    return gaps
