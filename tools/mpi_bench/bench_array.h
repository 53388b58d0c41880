// A bench buffer of T elements: from the C++ heap, or from a device type's
// allocate when the run asks for one (--buffers shm_host), as a user's
// tensors on that device would be. Filled with one value, freed with the
// object. Both sides of the comparison use the same arrays.
#ifndef STRATA_TOOLS_MPI_BENCH_BENCH_ARRAY_H_
#define STRATA_TOOLS_MPI_BENCH_BENCH_ARRAY_H_

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "strata/abi/device.h"

namespace strata {

template <typename T>
class BenchArray {
 public:
  // `memory`: the device type to allocate on (its device 0), or nullptr
  // for the heap. Throws std::runtime_error with the device type's reason.
  BenchArray(const strata_device_type_t* memory, uint64_t n, T value)
      : memory_(memory), n_(n) {
    if (n == 0) return;
    const uint64_t bytes = n * sizeof(T);
    void* p = nullptr;
    if (memory == nullptr) {
      p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
      if (p == nullptr) throw std::runtime_error("aligned_alloc of " + std::to_string(bytes));
    } else {
      char why[256] = "";
      if (memory->allocate(memory->user_data, 0, bytes, &p, {why, sizeof why}) != STRATA_OK) {
        throw std::runtime_error(std::string(memory->name) + " allocate of " +
                                 std::to_string(bytes) + " bytes: " + why);
      }
    }
    data_ = static_cast<T*>(p);
    std::fill(begin(), end(), value);
  }
  ~BenchArray() {
    if (data_ == nullptr) return;
    if (memory_ == nullptr) {
      std::free(data_);
    } else {
      memory_->free(memory_->user_data, 0, data_);
    }
  }
  BenchArray(const BenchArray&) = delete;
  BenchArray& operator=(const BenchArray&) = delete;

  T* data() const { return data_; }
  uint64_t size() const { return n_; }
  T* begin() const { return data_; }
  T* end() const { return data_ + n_; }
  T& operator[](uint64_t i) const { return data_[i]; }

 private:
  const strata_device_type_t* memory_;
  uint64_t n_;
  T* data_ = nullptr;
};

}  // namespace strata

#endif  // STRATA_TOOLS_MPI_BENCH_BENCH_ARRAY_H_
