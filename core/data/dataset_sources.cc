// Where elements come from: rows of in-memory arrays, or a user's iterator.
// Also the stacking that batch() uses, kept next to the slicing it undoes.
#include <memory>
#include <string>
#include <utility>

#include "core/data/dataset_node.h"

namespace strata::data_internal {
namespace {

class ErrorIterator final : public Iterator {
 public:
  explicit ErrorIterator(Status status) : status_(std::move(status)) {}
  StatusOr<std::optional<Element>> next() override { return status_; }

 private:
  Status status_;
};

// Row i of an array shaped [n, S...]: a tensor shaped S.
Tensor row_of(const Tensor& array, int64_t i) {
  const Shape shape(array.shape().begin() + 1, array.shape().end());
  const int64_t row = shape_elements(shape);
  const auto first = array.values().begin() + i * row;
  Tensor out(shape, std::vector<float>(first, first + row));
  out.set_device(array.device());
  return out;
}

class ArraysIterator final : public Iterator {
 public:
  explicit ArraysIterator(std::shared_ptr<const std::vector<Tensor>> arrays)
      : arrays_(std::move(arrays)) {}

  StatusOr<std::optional<Element>> next() override {
    if (next_row_ >= (*arrays_)[0].dim(0)) return std::optional<Element>();
    Element element;
    element.reserve(arrays_->size());
    for (const Tensor& array : *arrays_) element.push_back(row_of(array, next_row_));
    ++next_row_;
    return std::optional<Element>(std::move(element));
  }

 private:
  std::shared_ptr<const std::vector<Tensor>> arrays_;
  int64_t next_row_ = 0;
};

class ArraysNode final : public DatasetNode {
 public:
  explicit ArraysNode(std::vector<Tensor> arrays)
      : arrays_(std::make_shared<const std::vector<Tensor>>(std::move(arrays))) {}

  std::unique_ptr<Iterator> make_iterator() const override {
    return std::make_unique<ArraysIterator>(arrays_);
  }
  int64_t cardinality() const override { return (*arrays_)[0].dim(0); }
  std::vector<const DatasetNode*> inputs() const override { return {}; }

 private:
  // Shared with every iterator, which may outlive the Dataset.
  std::shared_ptr<const std::vector<Tensor>> arrays_;
};

class GeneratorNode final : public DatasetNode {
 public:
  GeneratorNode(std::function<std::unique_ptr<Iterator>()> make, int64_t cardinality)
      : make_(std::move(make)), cardinality_(cardinality) {}

  std::unique_ptr<Iterator> make_iterator() const override {
    std::unique_ptr<Iterator> it = make_ ? make_() : nullptr;
    if (!it) {
      return make_error_iterator(
          InvalidArgumentError("Dataset::from_generator: the factory returned no iterator"));
    }
    return it;
  }
  int64_t cardinality() const override { return cardinality_; }
  std::vector<const DatasetNode*> inputs() const override { return {}; }

 private:
  std::function<std::unique_ptr<Iterator>()> make_;
  int64_t cardinality_;
};

}  // namespace

std::unique_ptr<Iterator> make_error_iterator(Status status) {
  return std::make_unique<ErrorIterator>(std::move(status));
}

NodePtr make_arrays_node(std::vector<Tensor> arrays) {
  return std::make_shared<ArraysNode>(std::move(arrays));
}

NodePtr make_generator_node(std::function<std::unique_ptr<Iterator>()> make,
                            int64_t cardinality) {
  return std::make_shared<GeneratorNode>(std::move(make), cardinality);
}

StatusOr<Element> stack_elements(const std::vector<Element>& elements) {
  if (elements.empty()) return InternalError("stack_elements: no elements to stack");
  const Element& first = elements[0];
  for (size_t e = 1; e < elements.size(); ++e) {
    if (elements[e].size() != first.size()) {
      return InvalidArgumentError("batch: element " + std::to_string(e) + " of the batch has " +
                                  std::to_string(elements[e].size()) +
                                  " components but element 0 has " +
                                  std::to_string(first.size()));
    }
  }
  Element out;
  out.reserve(first.size());
  for (size_t c = 0; c < first.size(); ++c) {
    // [elements, component shape...], built front to back: g++ 12 at -O3
    // misreads vector::insert at begin() as a null dereference.
    Shape shape{static_cast<int64_t>(elements.size())};
    shape.insert(shape.end(), first[c].shape().begin(), first[c].shape().end());
    std::vector<float> values;
    values.reserve(elements.size() * static_cast<size_t>(first[c].size()));
    for (size_t e = 0; e < elements.size(); ++e) {
      const Tensor& part = elements[e][c];
      if (!part.same_shape(first[c])) {
        return InvalidArgumentError("batch: component " + std::to_string(c) + " of element " +
                                    std::to_string(e) + " of the batch is " + part.describe() +
                                    " but element 0 has " + first[c].describe() +
                                    "; batched elements must have one shape");
      }
      values.insert(values.end(), part.values().begin(), part.values().end());
    }
    Tensor stacked(std::move(shape), std::move(values));
    stacked.set_device(first[c].device());
    out.push_back(std::move(stacked));
  }
  return out;
}

}  // namespace strata::data_internal
