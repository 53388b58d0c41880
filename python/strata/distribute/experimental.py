"""tf.distribute.experimental's names that strata.distribute serves:
AutoShardPolicy (tf.data.experimental's, for experimental_distribute_dataset
across workers) and CommunicationOptions."""

from strata.distribute._input import AutoShardPolicy
from strata.distribute._values import CommunicationOptions

__all__ = ["AutoShardPolicy", "CommunicationOptions"]
