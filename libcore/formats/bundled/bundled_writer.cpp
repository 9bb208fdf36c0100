#include "libcore/formats/bundled/bundled_writer.h"

#include <algorithm>

#include "bundled_program_generated.h"

namespace etkit::bundled {
namespace fb = bundled_program_flatbuffer;
using flatbuffers::Offset;

namespace {

Offset<fb::Value> build_value(flatbuffers::FlatBufferBuilder& b, const Value& value) {
  auto tag = static_cast<fb::ValueUnion>(value.index() + 1);
  Offset<void> val = std::visit(
      [&](const auto& v) -> Offset<void> {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, Tensor>) {
          auto sizes = b.CreateVector(v.sizes);
          b.ForceVectorAlignment(v.data.size(), 1, 16);  // force_align: 16
          auto data = b.CreateVector(v.data.data(), v.data.size());
          auto dim_order = b.CreateVector(v.dim_order);
          return fb::CreateTensor(b, static_cast<executorch_flatbuffer::ScalarType>(v.scalar_type), sizes, data,
                                  dim_order).Union();
        } else if constexpr (std::is_same_v<T, Int>) {
          return fb::CreateInt(b, v.value).Union();
        } else if constexpr (std::is_same_v<T, Bool>) {
          return fb::CreateBool(b, v.value).Union();
        } else {
          return fb::CreateDouble(b, v.value).Union();
        }
      },
      value);
  return fb::CreateValue(b, tag, val);
}

}  // namespace

std::vector<uint8_t> write_bundled_program(const BundledProgram& bundle) {
  flatbuffers::FlatBufferBuilder b(bundle.program.size() + (1 << 16));
  // The serializer sorts suites by method name (devtools/bundled_program/core.py).
  std::vector<const MethodTestSuite*> suites;
  for (const auto& s : bundle.method_test_suites) suites.push_back(&s);
  std::stable_sort(suites.begin(), suites.end(),
                   [](const auto* a, const auto* c) { return a->method_name < c->method_name; });
  std::vector<Offset<fb::BundledMethodTestSuite>> suite_tables;
  for (const auto* suite : suites) {
    std::vector<Offset<fb::BundledMethodTestCase>> cases;
    for (const auto& tc : suite->test_cases) {
      std::vector<Offset<fb::Value>> inputs, expected;
      for (const auto& v : tc.inputs) inputs.push_back(build_value(b, v));
      for (const auto& v : tc.expected_outputs) expected.push_back(build_value(b, v));
      cases.push_back(fb::CreateBundledMethodTestCase(b, b.CreateVector(inputs), b.CreateVector(expected)));
    }
    suite_tables.push_back(
        fb::CreateBundledMethodTestSuite(b, b.CreateString(suite->method_name), b.CreateVector(cases)));
  }
  auto suites_vec = b.CreateVector(suite_tables);
  b.ForceVectorAlignment(bundle.program.size(), 1, 32);  // force_align: 32
  auto program = b.CreateVector(bundle.program.data(), bundle.program.size());
  auto root = fb::CreateBundledProgram(b, bundle.version, suites_vec, program);
  fb::FinishBundledProgramBuffer(b, root);
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

}  // namespace etkit::bundled
