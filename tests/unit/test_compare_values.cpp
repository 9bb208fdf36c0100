// Tensor bytes to comparable values: dtypes, layouts, ETDump values and
// program outputs / intermediates found in an ETDump.
#include <cstring>

#include <catch2/catch.hpp>

#include "libcore/compare/logged_values.h"
#include "libcore/formats/etdump/debug_buffer.h"

using namespace etkit;
using namespace etkit::compare;

namespace {

template <typename T>
std::vector<uint8_t> bytes_of(const std::vector<T>& v) {
  std::vector<uint8_t> out(v.size() * sizeof(T));
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

}  // namespace

TEST_CASE("elements of every numeric dtype as doubles", "[et-compare][values]") {
  CHECK(*elements_as_double(ScalarType::kChar, bytes_of<int8_t>({-128, 127})) == std::vector<double>{-128, 127});
  CHECK(*elements_as_double(ScalarType::kByte, bytes_of<uint8_t>({0, 255})) == std::vector<double>{0, 255});
  CHECK(*elements_as_double(ScalarType::kShort, bytes_of<int16_t>({-32768})) == std::vector<double>{-32768});
  CHECK(*elements_as_double(ScalarType::kInt, bytes_of<int32_t>({-7, 1 << 30})) == std::vector<double>{-7, 1 << 30});
  CHECK(*elements_as_double(ScalarType::kLong, bytes_of<int64_t>({-(int64_t(1) << 40)})) ==
        std::vector<double>{-1099511627776.0});
  CHECK(*elements_as_double(ScalarType::kUInt16, bytes_of<uint16_t>({65535})) == std::vector<double>{65535});
  CHECK(*elements_as_double(ScalarType::kUInt32, bytes_of<uint32_t>({4294967295u})) == std::vector<double>{4294967295.0});
  CHECK(*elements_as_double(ScalarType::kBool, std::vector<uint8_t>{0, 1, 2}) == std::vector<double>{0, 1, 1});
  CHECK(*elements_as_double(ScalarType::kFloat, bytes_of<float>({0.5f, -2.0f})) == std::vector<double>{0.5, -2.0});
  CHECK(*elements_as_double(ScalarType::kDouble, bytes_of<double>({1e300})) == std::vector<double>{1e300});
  // IEEE half 0x3C00 = 1, 0xC000 = -2; bfloat16 0x3F80 = 1, 0x4049 = 3.140625.
  CHECK(*elements_as_double(ScalarType::kHalf, bytes_of<uint16_t>({0x3C00, 0xC000})) == std::vector<double>{1, -2});
  CHECK(*elements_as_double(ScalarType::kBFloat16, bytes_of<uint16_t>({0x3F80, 0x4049})) ==
        std::vector<double>{1, 3.140625});

  auto complex = elements_as_double(ScalarType::kComplexFloat, std::vector<uint8_t>(8));
  REQUIRE_FALSE(complex.ok());
  CHECK(complex.error().message == "cannot compare COMPLEX64 tensors");
  CHECK_FALSE(elements_as_double(ScalarType::kQInt8, std::vector<uint8_t>(1)).ok());
  CHECK_FALSE(elements_as_double(ScalarType::kInt, std::vector<uint8_t>(6)).ok());  // not whole elements
}

TEST_CASE("strided storage to row-major order", "[et-compare][values]") {
  // A[i][j] = 10 i + j for shape [2, 3], stored column-major (strides [1, 2]).
  auto t = to_row_major({0, 10, 1, 11, 2, 12}, {2, 3}, {1, 2});
  REQUIRE(t.ok());
  CHECK(*t == std::vector<double>{0, 1, 2, 10, 11, 12});
  // Contiguous strides and empty strides keep the order.
  CHECK(*to_row_major({0, 1, 2, 10, 11, 12}, {2, 3}, {3, 1}) == std::vector<double>{0, 1, 2, 10, 11, 12});
  CHECK(*to_row_major({5, 6}, {2}, {}) == std::vector<double>{5, 6});
  // Channels-last NCHW [1, 2, 1, 2]: storage order (n, h, w, c); element
  // (c, w) = 10 c + w lands at w * 2 + c.
  CHECK(*to_row_major({0, 10, 1, 11}, {1, 2, 1, 2}, {4, 1, 4, 2}) == std::vector<double>{0, 1, 10, 11});
  // Gaps or overlaps are not a dense layout.
  CHECK_FALSE(to_row_major({0, 1, 2, 3, 4, 5}, {2, 3}, {4, 1}).ok());
  CHECK_FALSE(to_row_major({0, 1, 2, 3, 4, 5}, {2, 3}, {1, 1}).ok());
  CHECK_FALSE(to_row_major({0, 1}, {2, 3}, {}).ok());  // wrong element count
  CHECK_FALSE(to_row_major({}, {-1}, {}).ok());
}

TEST_CASE("bundled tensors honour dim_order, npy arrays are row-major", "[et-compare][values]") {
  const std::vector<float> storage = {0, 10, 1, 11, 2, 12};
  const bundled::Tensor t{6, {2, 3}, ByteSpan(reinterpret_cast<const uint8_t*>(storage.data()), 24), {1, 0}};
  auto v = from_bundled(t);
  REQUIRE(v.ok());
  CHECK(v->values == std::vector<double>{0, 1, 2, 10, 11, 12});
  CHECK(describe(*v) == "FLOAT[2, 3]");

  const npy::Array a{ScalarType::kFloat, {3, 2}, ByteSpan(reinterpret_cast<const uint8_t*>(storage.data()), 24)};
  auto w = from_npy(a);
  REQUIRE(w.ok());
  CHECK(w->values == std::vector<double>{0, 10, 1, 11, 2, 12});
  CHECK(w->shape == std::vector<int64_t>{3, 2});

  auto scalar = from_bundled_value(bundled::Value{bundled::Int{-3}});
  REQUIRE(scalar.ok());
  CHECK(scalar->shape.empty());
  CHECK(scalar->values == std::vector<double>{-3});
}

TEST_CASE("logged values: tensors from the debug buffer, lists, scalars", "[et-compare][values]") {
  etdump::DebugBufferWriter buffer;
  const std::vector<float> x = {1.5f, -2.5f};
  etdump::Tensor t{6, {2}, {1}, buffer.append(bytes_of(x))};
  etdump::Value value;
  value.val = etdump::ValueType::kTensor;
  value.tensor = t;
  auto v = from_etdump_value(value, buffer.bytes());
  REQUIRE(v.ok());
  REQUIRE(v->size() == 1);
  CHECK((*v)[0].values == std::vector<double>{1.5, -2.5});

  etdump::Value list;
  list.val = etdump::ValueType::kTensorList;
  list.tensor_list = std::vector<etdump::Tensor>{t, etdump::Tensor{6, {0}, {1}, -1}};
  auto l = from_etdump_value(list, buffer.bytes());
  REQUIRE(l.ok());
  REQUIRE(l->size() == 2);
  CHECK((*l)[1].values.empty());

  etdump::Value i;
  i.val = etdump::ValueType::kInt;
  i.int_value = 42;
  CHECK((*from_etdump_value(i, {}))[0].values == std::vector<double>{42});

  etdump::Value s;
  s.val = etdump::ValueType::kString;
  CHECK_FALSE(from_etdump_value(s, {}).ok());

  // A buffer too short for the tensor is an error naming the range.
  auto short_buffer = from_etdump_value(value, ByteSpan(buffer.bytes()).first(4));
  REQUIRE_FALSE(short_buffer.ok());
  CHECK(short_buffer.error().message.rfind("debug buffer too short", 0) == 0);
}

namespace {

etdump::Event debug_event(uint64_t chain, int32_t instruction, etdump::Tensor tensor, bool output) {
  etdump::DebugEvent d;
  d.chain_index = chain;
  d.instruction_id = instruction;
  d.debug_entry.val = etdump::ValueType::kTensor;
  d.debug_entry.tensor = std::move(tensor);
  if (output) d.debug_entry.output = true;
  etdump::Event e;
  e.debug_event = d;
  return e;
}

etdump::Event profile_event(std::string name, int32_t chain, int32_t instruction) {
  etdump::ProfileEvent p;
  p.name = std::move(name);
  p.chain_index = chain;
  p.instruction_id = instruction;
  etdump::Event e;
  e.profile_event = p;
  return e;
}

}  // namespace

TEST_CASE("program outputs and intermediates of an ETDump", "[et-compare][values]") {
  etdump::DebugBufferWriter buffer;
  auto tensor = [&](std::vector<float> v) {
    return etdump::Tensor{6, {int64_t(v.size())}, {1}, buffer.append(bytes_of(v))};
  };
  etdump::EtDump dump;
  dump.run_data.push_back({"Default", -1, std::nullopt, std::vector<etdump::Event>{profile_event("Method::init", -1, 0)}});
  std::vector<etdump::Event> run;
  // Instruction 0 logs two outputs, instruction 1 one; then the program output.
  run.push_back(debug_event(0, 0, tensor({1}), false));
  run.push_back(debug_event(0, 0, tensor({2}), false));
  run.push_back(profile_event("native_call_split.out", 0, 0));
  run.push_back(profile_event("OPERATOR_CALL", 0, 0));
  run.push_back(debug_event(0, 1, tensor({3}), false));
  run.push_back(profile_event("OPERATOR_CALL", 0, 1));
  run.push_back(profile_event("Method::execute", -1, 0));
  run.push_back(debug_event(UINT64_MAX, 0, tensor({4, 5}), true));
  dump.run_data.push_back({"Execute", -1, std::nullopt, run});

  auto outputs = program_outputs(dump, buffer.bytes());
  REQUIRE(outputs.ok());
  REQUIRE(outputs->size() == 1);
  CHECK((*outputs)[0].run == 1);
  CHECK((*outputs)[0].chain_index == -1);
  CHECK((*outputs)[0].tensor.values == std::vector<double>{4, 5});
  CHECK(value_label((*outputs)[0], true) == "output 0");

  auto inter = intermediate_outputs(dump, buffer.bytes());
  REQUIRE(inter.ok());
  REQUIRE(inter->size() == 3);
  CHECK((*inter)[0].op_name == "native_call_split.out");  // not the OPERATOR_CALL wrapper
  CHECK((*inter)[0].occurrence == 0);
  CHECK((*inter)[1].occurrence == 1);
  CHECK(value_label((*inter)[1], false) == "out 1");
  CHECK((*inter)[2].instruction_id == 1);
  CHECK((*inter)[2].op_name == "OPERATOR_CALL");  // a prim op has nothing better
  CHECK((*inter)[2].tensor.values == std::vector<double>{3});

  // The error names the event.
  (*dump.run_data[1].events)[4].debug_event->debug_entry.tensor->offset = 1 << 20;
  auto broken = intermediate_outputs(dump, buffer.bytes());
  REQUIRE_FALSE(broken.ok());
  CHECK(broken.error().field == "run_data[1].events[4].debug_event.debug_entry");
}
