// The UCI/scikit-learn handwritten digits (examples/data/digits.csv.gz,
// see examples/data/digits.rst): 1797 8x8 images, one per line as 64
// integer pixel intensities 0..16 followed by the label 0..9. Small enough
// to train on in a test, real enough that a wrong gradient shows.
#ifndef STRATA_CORE_DATA_DIGITS_H_
#define STRATA_CORE_DATA_DIGITS_H_

#include <string>

#include "core/common/status.h"
#include "core/tensor/tensor.h"

namespace strata {

struct DigitsData {
  Tensor features;  // [n, 64], pixel / 16 so every value is in [0, 1]
  Tensor labels;    // [n], the class ids 0..9 as floats
};

// Reads a gzip-compressed digits CSV. NOT_FOUND for a missing file,
// DATA_LOSS for a file that is not gzip or whose compressed data is corrupt
// or truncated, INVALID_ARGUMENT naming path:line for a line with the wrong
// number of fields or a value that is not an integer in range.
StatusOr<DigitsData> load_digits_csv_gz(const std::string& path);

// Where the digits are: $STRATA_DIGITS if set and non-empty, else
// <source_root>/examples/data/digits.csv.gz. NOT_FOUND, naming what was
// tried, when the chosen file does not exist.
StatusOr<std::string> find_digits_file(const std::string& source_root);

}  // namespace strata

#endif  // STRATA_CORE_DATA_DIGITS_H_
