"""Small data sets shipped with Strata, for examples, tests and benchmarks.

    features, labels = strata.datasets.load_digits()
    features.shape, features.dtype   # (1797, 64) float32, pixels / 16 in [0, 1]
    labels.shape, labels.dtype       # (1797,) int64, the digits 0..9

The UCI/scikit-learn handwritten digits (examples/data/digits.rst): the same
file and scaling as the C++ examples (core/data/digits.h), so a torch model
and train_digits see the same numbers.
"""

import gzip
import os

import numpy as np

from strata._errors import DataLossError, InvalidArgumentError, NotFoundError

DIGITS_FILE = "digits.csv.gz"
_PIXELS = 64


def digits_path(path=None):
    """Where load_digits reads from: `path` if given, else $STRATA_DIGITS if
    set and non-empty, else the installed copy (<prefix>/share/strata/data),
    else the source tree's examples/data. NotFoundError names what was tried."""
    if path is not None:
        if not os.path.exists(path):
            raise NotFoundError(f"digits data file '{path}' does not exist", -7, "NOT_FOUND")
        return os.fspath(path)
    env = os.environ.get("STRATA_DIGITS", "")
    if env:
        if not os.path.exists(env):
            raise NotFoundError(f"STRATA_DIGITS names '{env}', which does not exist; unset it to "
                                "use the copy installed with Strata", -7, "NOT_FOUND")
        return env
    tried = [os.path.join(directory, DIGITS_FILE) for directory in _data_dirs()]
    for candidate in tried:
        if os.path.exists(candidate):
            return candidate
    raise NotFoundError("digits data not found at " + " or ".join(f"'{t}'" for t in tried) +
                        f"; set STRATA_DIGITS to the path of {DIGITS_FILE}", -7, "NOT_FOUND")


def _data_dirs():
    """The installed data directory (relative to this package, as
    `cmake --install` lays it out), then the source tree of the build."""
    from strata import _build_info
    here = os.path.dirname(os.path.abspath(__file__))
    dirs = []
    relative = getattr(_build_info, "installed_data_dir", "")
    if relative:
        dirs.append(os.path.normpath(os.path.join(here, relative)))
    source = getattr(_build_info, "source_dir", "")
    if source:
        dirs.append(os.path.join(source, "examples", "data"))
    return dirs


def load_digits(path=None):
    """The 1797 digits as (features, labels): float32 [n, 64] with each pixel
    0..16 divided by 16, and int64 [n] labels 0..9. `path` is a
    digits.csv.gz (64 pixels then the label per line); see digits_path() for
    where it is looked for otherwise. Raises NotFoundError for a missing
    file, DataLossError for one that is not gzip or is corrupt, and
    InvalidArgumentError naming path:line for a malformed line."""
    path = digits_path(path)
    try:
        with gzip.open(path, "rt", encoding="ascii") as f:
            lines = f.read().splitlines()
    except (OSError, EOFError, UnicodeDecodeError) as e:
        raise DataLossError(f"'{path}' is not a readable gzip-compressed digits CSV ({e})",
                            -13, "DATA_LOSS") from None
    rows = np.empty((len(lines), _PIXELS + 1), dtype=np.int64)
    count = 0
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        rows[count] = _parse_line(path, number, line)
        count += 1
    if count == 0:
        raise InvalidArgumentError(f"'{path}' holds no digits", -2, "INVALID_ARGUMENT")
    rows = rows[:count]
    features = (rows[:, :_PIXELS].astype(np.float32) / np.float32(16.0))
    labels = np.ascontiguousarray(rows[:, _PIXELS])
    return np.ascontiguousarray(features), labels


def _parse_line(path, number, line):
    fields = line.split(",")
    if len(fields) != _PIXELS + 1:
        raise InvalidArgumentError(f"{path}:{number}: expected {_PIXELS + 1} comma-separated "
                                   f"values (64 pixels and a label), got {len(fields)}",
                                   -2, "INVALID_ARGUMENT")
    try:
        values = [int(field) for field in fields]
    except ValueError:
        raise InvalidArgumentError(f"{path}:{number}: a value is not an integer: {line[:80]!r}",
                                   -2, "INVALID_ARGUMENT") from None
    if min(values[:_PIXELS]) < 0 or max(values[:_PIXELS]) > 16:
        raise InvalidArgumentError(f"{path}:{number}: pixel values must be 0..16", -2,
                                   "INVALID_ARGUMENT")
    if not 0 <= values[_PIXELS] <= 9:
        raise InvalidArgumentError(f"{path}:{number}: label {values[_PIXELS]} is not 0..9", -2,
                                   "INVALID_ARGUMENT")
    return values


__all__ = ["load_digits", "digits_path", "DIGITS_FILE"]
