"""strata.datasets.load_digits: the shipped digits with the C++ examples'
scaling, found in the build and install layouts, and clear errors for a
missing, non-gzip or malformed file; strata.torch.digits_cnn on top."""

import gzip
import os

import numpy as np
import pytest

import strata
from strata import datasets
from conftest import SOURCE_DIR


def test_load_digits_shapes_dtypes_and_scaling():
    features, labels = datasets.load_digits()
    assert features.shape == (1797, 64) and features.dtype == np.float32
    assert labels.shape == (1797,) and labels.dtype == np.int64
    assert features.flags["C_CONTIGUOUS"] and labels.flags["C_CONTIGUOUS"]
    assert features.min() == 0.0 and features.max() == 1.0
    assert sorted(set(labels.tolist())) == list(range(10))
    # The first line of examples/data/digits.csv.gz: pixels, then label 0.
    first = [0, 0, 5, 13, 9, 1, 0, 0]
    np.testing.assert_array_equal(features[0, :8], np.array(first, np.float32) / 16)
    assert labels[0] == 0 and labels[1] == 1 and labels[2] == 2
    assert np.bincount(labels).tolist() == [178, 182, 177, 183, 181, 182, 181, 179, 174, 180]


def test_explicit_path_and_env(tmp_path, monkeypatch):
    source = os.path.join(SOURCE_DIR, "examples", "data", "digits.csv.gz")
    rows = gzip.open(source, "rt").read().splitlines()[:5]
    small = tmp_path / "five.csv.gz"
    with gzip.open(small, "wt") as f:
        f.write("\n".join(rows) + "\n")
    features, labels = datasets.load_digits(str(small))
    assert features.shape == (5, 64) and labels.tolist() == [0, 1, 2, 3, 4]
    monkeypatch.setenv("STRATA_DIGITS", str(small))
    assert datasets.load_digits()[0].shape == (5, 64)
    monkeypatch.setenv("STRATA_DIGITS", str(tmp_path / "gone.csv.gz"))
    with pytest.raises(strata.NotFoundError, match="STRATA_DIGITS names .*gone.csv.gz"):
        datasets.load_digits()


def test_installed_layout_is_found_relative_to_the_package():
    from strata import _build_info
    here = os.path.dirname(os.path.abspath(datasets.__file__))
    installed = os.path.normpath(os.path.join(here, _build_info.installed_data_dir))
    assert installed.endswith(os.path.join("share", "strata", "data"))
    assert datasets._data_dirs()[0] == installed


def test_errors_name_the_file_and_line(tmp_path):
    with pytest.raises(strata.NotFoundError, match="does not exist"):
        datasets.load_digits(str(tmp_path / "missing.csv.gz"))
    plain = tmp_path / "plain.csv.gz"
    plain.write_text("0,1,2\n")
    with pytest.raises(strata.DataLossError, match="plain.csv.gz"):
        datasets.load_digits(str(plain))
    short = tmp_path / "short.csv.gz"
    with gzip.open(short, "wt") as f:
        f.write(",".join(["0"] * 65) + "\n" + ",".join(["0"] * 64) + "\n")
    with pytest.raises(strata.InvalidArgumentError, match=r"short.csv.gz:2: expected 65 .* got 64"):
        datasets.load_digits(str(short))
    bad_label = tmp_path / "label.csv.gz"
    with gzip.open(bad_label, "wt") as f:
        f.write(",".join(["0"] * 64) + ",12\n")
    with pytest.raises(strata.InvalidArgumentError, match="label.csv.gz:1: label 12"):
        datasets.load_digits(str(bad_label))


def test_digits_cnn_is_seeded_and_batches_split_evenly():
    torch = pytest.importorskip("torch")
    from strata.torch import digits_cnn
    images, labels = digits_cnn.digits_tensors()
    assert images.shape == (1797, 1, 8, 8) and labels.dtype == torch.int64
    a, b, c = digits_cnn.make_model(0), digits_cnn.make_model(0), digits_cnn.make_model(1)
    for pa, pb, pc in zip(a.parameters(), b.parameters(), c.parameters()):
        assert torch.equal(pa, pb) and not torch.equal(pa, pc)
    assert sum(p.numel() for p in a.parameters()) == 3818
    assert a(images[:3]).shape == (3, 10)
    batch = digits_cnn.batch_indices(5, 64, len(labels))
    assert torch.equal(batch, digits_cnn.batch_indices(5, 64, len(labels)))
    shares = [digits_cnn.rank_slice(batch, r, 4) for r in range(4)]
    assert torch.equal(torch.cat(shares), batch) and len(set(batch.tolist())) == 64
    with pytest.raises(ValueError, match="does not split evenly over 3"):
        digits_cnn.rank_slice(batch, 0, 3)
