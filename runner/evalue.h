// Runtime values of a loaded method (runtime/core/evalue.h's roles). Lists
// point into storage the LoadedMethod owns; an IntList holds the indices of
// boxed Int values and is read at call time, so SymInts written by earlier
// instructions are seen.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "runner/tensor.h"

namespace etkit::rt {

enum class Tag : uint8_t {
  kNone, kInt, kDouble, kBool, kString, kTensor, kIntList, kDoubleList, kBoolList, kTensorList,
  kOptionalTensorList,
};

std::string_view tag_name(Tag tag);

struct EValue {
  Tag tag = Tag::kNone;
  int64_t i = 0;
  double d = 0;
  bool b = false;
  std::string_view s;
  Tensor* tensor = nullptr;
  std::span<const int64_t> int_list;  // value indices of Int values
  std::span<const double> double_list;
  const std::vector<bool>* bool_list = nullptr;
  // TensorList / OptionalTensorList (nullptr entries = None).
  std::span<Tensor* const> tensor_list;

  bool is_none() const { return tag == Tag::kNone; }
  bool is_tensor() const { return tag == Tag::kTensor; }
  bool is_scalar() const { return tag == Tag::kInt || tag == Tag::kDouble || tag == Tag::kBool; }
  // Int, Double or Bool as a double.
  double scalar_as_double() const { return tag == Tag::kDouble ? d : tag == Tag::kBool ? double(b) : double(i); }
};

// True when `v` is, or lists, a tensor for which `test` holds.
template <typename Test>
bool any_tensor(const EValue& v, Test test) {
  if (v.tag == Tag::kTensor) return test(*v.tensor);
  if (v.tag == Tag::kTensorList || v.tag == Tag::kOptionalTensorList) {
    for (const Tensor* t : v.tensor_list) {
      if (t && test(*t)) return true;
    }
  }
  return false;
}
inline bool holds_read_only(const EValue& v) { return any_tensor(v, [](const Tensor& t) { return t.read_only(); }); }
inline bool holds_released(const EValue& v) { return any_tensor(v, [](const Tensor& t) { return t.released(); }); }

}  // namespace etkit::rt
