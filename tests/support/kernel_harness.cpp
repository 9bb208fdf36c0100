#include "tests/support/kernel_harness.h"

namespace etkit::test {

size_t KernelHarness::push(rt::EValue v) {
  REQUIRE(values_.size() < kCapacity);
  values_.push_back(v);
  return values_.size() - 1;
}

size_t KernelHarness::push_tensor(rt::Tensor& t) {
  rt::EValue v;
  v.tag = rt::Tag::kTensor;
  v.tensor = &t;
  return push(v);
}

size_t KernelHarness::out(ScalarType dtype, std::vector<int32_t> sizes, bool dynamic_bound,
                          std::vector<uint8_t> dim_order) {
  size_t n = element_size(int(dtype)).value_or(1);
  for (auto s : sizes) n *= size_t(s);
  auto& bytes = storage_.emplace_back(n + 1, 0);
  auto& t = tensors_.emplace_back(dtype, std::move(sizes), std::move(dim_order), bytes.data(),
                                  dynamic_bound ? pte::ShapeDynamism::kDynamicBound : pte::ShapeDynamism::kStatic);
  return push_tensor(t);
}

size_t KernelHarness::none() { return push(rt::EValue{}); }

size_t KernelHarness::integer(int64_t v) {
  rt::EValue e;
  e.tag = rt::Tag::kInt;
  e.i = v;
  return push(e);
}

size_t KernelHarness::real(double v) {
  rt::EValue e;
  e.tag = rt::Tag::kDouble;
  e.d = v;
  return push(e);
}

size_t KernelHarness::boolean(bool v) {
  rt::EValue e;
  e.tag = rt::Tag::kBool;
  e.b = v;
  return push(e);
}

size_t KernelHarness::string(std::string v) {
  rt::EValue e;
  e.tag = rt::Tag::kString;
  e.s = strings_.emplace_back(std::move(v));
  return push(e);
}

size_t KernelHarness::int_list(const std::vector<int64_t>& items) {
  auto& indices = int_lists_.emplace_back();
  for (int64_t v : items) indices.push_back(int64_t(integer(v)));
  rt::EValue e;
  e.tag = rt::Tag::kIntList;
  e.int_list = indices;
  return push(e);
}

size_t KernelHarness::double_list(std::vector<double> items) {
  rt::EValue e;
  e.tag = rt::Tag::kDoubleList;
  e.double_list = double_lists_.emplace_back(std::move(items));
  return push(e);
}

size_t KernelHarness::bool_list(std::vector<bool> items) {
  rt::EValue e;
  e.tag = rt::Tag::kBoolList;
  e.bool_list = &bool_lists_.emplace_back(std::move(items));
  return push(e);
}

size_t KernelHarness::tensor_list(const std::vector<size_t>& tensors, bool optional) {
  auto& list = tensor_lists_.emplace_back();
  for (size_t i : tensors) list.push_back(i == SIZE_MAX ? nullptr : values_[i].tensor);
  rt::EValue e;
  e.tag = optional ? rt::Tag::kOptionalTensorList : rt::Tag::kTensorList;
  e.tensor_list = list;
  return push(e);
}

Status KernelHarness::call(const std::string& op, const std::vector<size_t>& args) {
  const rt::KernelInfo* kernel = rt::portable_kernel_registry().find(op);
  INFO("kernel " << op);
  REQUIRE(kernel != nullptr);
  if (kernel->num_args >= 0) REQUIRE(size_t(kernel->num_args) == args.size());
  std::vector<rt::EValue*> ptrs;
  for (size_t i : args) ptrs.push_back(&values_[i]);
  rt::KernelContext ctx(op, values_);
  return kernel->fn(ctx, ptrs);
}

}  // namespace etkit::test
