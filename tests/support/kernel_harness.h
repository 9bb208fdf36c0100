// Runs one kernel from the portable registry without a program (as TFLM's
// KernelRunner does): build the argument values, call, read the out tensor.
#pragma once

#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "runner/kernel_registry.h"
#include "tests/support/test_support.h"

namespace etkit::test {

// The message of a status that must be an error (the test fails if it is not).
inline std::string error_message(const Status& s) {
  REQUIRE_FALSE(s.ok());
  return s.error().message;
}

class KernelHarness {
 public:
  KernelHarness() { values_.reserve(kCapacity); }

  // A contiguous tensor holding `data` (its size must match the shape).
  template <typename T>
  size_t tensor(ScalarType dtype, std::vector<int32_t> sizes, const std::vector<T>& data,
                std::vector<uint8_t> dim_order = {}) {
    auto& bytes = storage_.emplace_back(data.size() * sizeof(T) + 1);
    if constexpr (std::is_same_v<T, bool>) {  // std::vector<bool> is packed: copy one by one
      for (size_t i = 0; i < data.size(); ++i) bytes[i] = data[i] ? 1 : 0;
    } else if (!data.empty()) {
      std::memcpy(bytes.data(), data.data(), data.size() * sizeof(T));
    }
    auto& t = tensors_.emplace_back(dtype, std::move(sizes), std::move(dim_order), bytes.data());
    REQUIRE(size_t(t.numel()) == data.size());
    return push_tensor(t);
  }
  // An uninitialised (zeroed) out tensor of the given shape; with
  // `dynamic_bound` it may be resized down (and back up to this shape).
  size_t out(ScalarType dtype, std::vector<int32_t> sizes, bool dynamic_bound = false, std::vector<uint8_t> dim_order = {});
  size_t none();
  size_t integer(int64_t v);
  size_t real(double v);
  size_t boolean(bool v);
  size_t string(std::string v);
  size_t int_list(const std::vector<int64_t>& items);  // boxes each item
  size_t double_list(std::vector<double> items);
  size_t bool_list(std::vector<bool> items);
  size_t tensor_list(const std::vector<size_t>& tensors, bool optional = false);  // optional: SIZE_MAX = None

  // Calls `op` (e.g. "aten::add.out") with these values as arguments; checks
  // the registered argument count.
  Status call(const std::string& op, const std::vector<size_t>& args);

  rt::EValue& value(size_t i) { return values_[i]; }
  rt::Tensor& tensor_at(size_t i) { return *values_[i].tensor; }
  template <typename T>
  std::vector<T> data(size_t i) {
    const rt::Tensor& t = *values_[i].tensor;
    return std::vector<T>(t.data_as<T>(), t.data_as<T>() + t.numel());
  }
  std::vector<int32_t> sizes(size_t i) {
    auto s = values_[i].tensor->sizes();
    return std::vector<int32_t>(s.begin(), s.end());
  }

 private:
  static constexpr size_t kCapacity = 512;
  size_t push(rt::EValue v);
  size_t push_tensor(rt::Tensor& t);
  std::vector<rt::EValue> values_;
  std::deque<rt::Tensor> tensors_;
  std::deque<std::vector<uint8_t>> storage_;
  std::deque<std::vector<int64_t>> int_lists_;
  std::deque<std::vector<double>> double_lists_;
  std::deque<std::vector<bool>> bool_lists_;
  std::deque<std::vector<rt::Tensor*>> tensor_lists_;
  std::deque<std::string> strings_;
};

}  // namespace etkit::test
