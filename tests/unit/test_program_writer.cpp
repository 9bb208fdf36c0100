// Program builder + writer -> reader round trips. Expected layout numbers are
// derived by hand from the serializer's rules (pte_spec.md §1.2-1.3, §3.1):
// constants padded to 16 bytes, segments at 128-byte boundaries, eh00 header
// of 32 bytes spliced in after the identifier.
#include <cstring>

#include "examples/demo_models.h"
#include "libcore/formats/program/program_builder.h"
#include "libcore/formats/program/program_reader.h"
#include "libcore/formats/program/program_writer.h"
#include "tests/support/test_support.h"

using namespace etkit;

namespace {

pte::Program read_back(const std::vector<uint8_t>& bytes) {
  auto program = pte::read_program(ByteSpan(bytes), nullptr);
  INFO((program ? std::string() : program.error().describe()));
  REQUIRE(program.ok());
  return std::move(program).value();
}

}  // namespace

TEST_CASE("MLP program: constants, memory plan and instructions survive a round trip", "[writer][pte]") {
  auto bytes = pte::write_program(demo::mlp());
  REQUIRE(bytes.ok());
  const auto program = read_back(*bytes);

  REQUIRE(program.execution_plan.size() == 1);
  const auto& plan = program.execution_plan[0];
  CHECK(plan.name == "forward");
  // permute_copy, addmm, relu, permute_copy, addmm; operators deduplicated.
  REQUIRE(plan.chains.size() == 1);
  CHECK(plan.chains[0].instructions.size() == 5);
  REQUIRE(plan.operators.size() == 3);
  CHECK(plan.operators[0].full_name() == "aten::permute_copy.out");
  CHECK(plan.operators[1].full_name() == "aten::addmm.out");
  CHECK(plan.operators[2].full_name() == "aten::relu.out");

  // Arena: x[1,8] f32 32 B at 0, W1^T[8,16] 512 B at 32, h[1,16] 64 B at 544,
  // relu[1,16] at 608, W2^T[16,4] 256 B at 672, y[1,4] 16 B at 928 -> 944.
  REQUIRE(plan.non_const_buffer_sizes == std::vector<int64_t>{0, 944});
  const auto& y = std::get<pte::Tensor>(plan.values[size_t(plan.outputs.at(0))]);
  REQUIRE(y.allocation_info.has_value());
  CHECK(y.allocation_info->memory_id == 1);
  CHECK(y.allocation_info->memory_offset == 928);
  CHECK(y.sizes == std::vector<int32_t>{1, 4});

  // Constants W1[16,8] 512 B, b1[16] 64 B, W2[4,16] 256 B, b2[4] 16 B packed
  // at 16-byte boundaries after the placeholder entry.
  REQUIRE(program.constant_segment.has_value());
  CHECK(program.constant_segment->offsets == std::vector<uint64_t>{0, 0, 512, 576, 832});
  REQUIRE(program.segments.size() == 1);
  CHECK(program.segments[0].offset == 0);
  CHECK(program.segments[0].size == 848);

  // With segment data the eh00 header is present, 32 bytes long.
  REQUIRE(program.extended_header.has_value());
  const auto& h = *program.extended_header;
  CHECK(h.length == 32);
  CHECK(h.segment_data_size == 848);
  CHECK(h.segment_base_offset % 128 == 0);
  CHECK(h.segment_base_offset >= h.program_size);
  CHECK(h.segment_base_offset - h.program_size < 128);
  CHECK(bytes->size() == h.segment_base_offset + 848);
  CHECK(std::memcmp(bytes->data() + 4, "ET12", 4) == 0);
  CHECK(std::memcmp(bytes->data() + 8, "eh00", 4) == 0);

  // The first constant is W1, weights(128, seed 11, 1/sqrt(8)).
  const auto w1 = demo::weights(128, 11, 1.0f / std::sqrt(8.0f));
  REQUIRE(program.segment_data[0].size() == 848);
  CHECK(std::memcmp(program.segment_data[0].data(), w1.data(), 512) == 0);
}

TEST_CASE("a program without constant bytes has no extended header but keeps the empty segment", "[writer][pte]") {
  // The ExecuTorch serializer's quirk seen in add.pte: segments=[{0,0}] and
  // constant_segment.offsets=[0] without an eh00 header.
  pte::ProgramBuilder builder;
  auto& m = builder.add_method("forward");
  const int32_t a = m.add_planned_tensor(ScalarType::kFloat, {2});
  const int32_t out = m.add_planned_tensor(ScalarType::kFloat, {2});
  m.kernel_call("aten::add", "out", {a, a, m.add_int(1), out, out});
  m.set_inputs({a});
  m.set_outputs({out});
  auto bytes = pte::write_program(builder.build());
  REQUIRE(bytes.ok());
  CHECK(std::memcmp(bytes->data() + 8, "eh00", 4) != 0);
  const auto program = read_back(*bytes);
  CHECK_FALSE(program.extended_header.has_value());
  REQUIRE(program.segments.size() == 1);
  CHECK(program.segments[0].size == 0);
  CHECK(program.constant_segment->offsets == std::vector<uint64_t>{0});
}

TEST_CASE("every value kind and instruction kind round-trips", "[writer][pte]") {
  pte::ProgramBuilder builder;
  auto& m = builder.add_method("control_flow");
  const int32_t n = m.add_null();
  const int32_t i = m.add_int(-7);
  const int32_t d = m.add_double(2.5);
  const int32_t b = m.add_bool(true);
  const int32_t s = m.add_string("tanh");
  const int32_t il = m.add_int_list({3, 4});
  const int32_t dl = m.add_double_list({0.5, -1.0});
  const int32_t bl = m.add_bool_list({true, false, true});
  const int32_t t0 = m.add_planned_tensor(ScalarType::kBool, {1});
  const int32_t t1 = m.add_unplanned_tensor(ScalarType::kLong, {2, 3});
  const int32_t tl = m.add_tensor_list({t0, t1});
  const int32_t otl = m.add_optional_tensor_list({t0, -1});
  m.jump_false(t0, 3);
  m.move(t1, t1);
  m.free_value(t1);
  const int32_t del = m.add_delegate("TestBackend", {1, 2, 3}, {{"key", {9}}});
  m.delegate_call(del, {t0, t1});
  m.set_inputs({t0});
  m.set_outputs({t1});
  auto& second = builder.add_method("second");
  second.set_outputs({second.add_int(42)});

  auto bytes = pte::write_program(builder.build());
  REQUIRE(bytes.ok());
  const auto program = read_back(*bytes);
  REQUIRE(program.execution_plan.size() == 2);
  CHECK(program.find_method("second") != nullptr);
  CHECK(program.find_method("missing") == nullptr);
  const auto& v = program.execution_plan[0].values;
  CHECK(std::holds_alternative<pte::Null>(v[size_t(n)]));
  CHECK(std::get<pte::Int>(v[size_t(i)]).value == -7);
  CHECK(std::get<pte::Double>(v[size_t(d)]).value == 2.5);
  CHECK(std::get<pte::Bool>(v[size_t(b)]).value);
  CHECK(std::get<pte::String>(v[size_t(s)]).value == "tanh");
  // IntList items are value indices of boxed Ints, here the two before it.
  CHECK(std::get<pte::IntList>(v[size_t(il)]).items == std::vector<int64_t>{il - 2, il - 1});
  CHECK(std::get<pte::Int>(v[size_t(il - 2)]).value == 3);
  CHECK(std::get<pte::DoubleList>(v[size_t(dl)]).items == std::vector<double>{0.5, -1.0});
  CHECK(std::get<pte::BoolList>(v[size_t(bl)]).items == std::vector<bool>{true, false, true});
  CHECK(std::get<pte::TensorList>(v[size_t(tl)]).items == std::vector<int32_t>{t0, t1});
  CHECK(std::get<pte::OptionalTensorList>(v[size_t(otl)]).items == std::vector<int32_t>{t0, -1});
  const auto& unplanned = std::get<pte::Tensor>(v[size_t(t1)]);
  CHECK_FALSE(unplanned.allocation_info.has_value());
  CHECK(unplanned.scalar_type == int8_t(ScalarType::kLong));
  CHECK(unplanned.dim_order == std::vector<uint8_t>{0, 1});

  const auto& instructions = program.execution_plan[0].chains[0].instructions;
  REQUIRE(instructions.size() == 4);
  CHECK(std::get<pte::JumpFalseCall>(instructions[0]).destination_instruction == 3);
  CHECK(std::get<pte::MoveCall>(instructions[1]).move_to == t1);
  CHECK(std::get<pte::FreeCall>(instructions[2]).value_index == t1);
  CHECK(std::get<pte::DelegateCall>(instructions[3]).args == std::vector<int32_t>{t0, t1});
  const auto& delegate = program.execution_plan[0].delegates.at(0);
  CHECK(delegate.id == "TestBackend");
  CHECK(delegate.location == pte::DataLocation::kInline);
  REQUIRE(program.backend_delegate_data.size() == 1);
  CHECK(std::vector<uint8_t>(program.backend_delegate_data[0].begin(), program.backend_delegate_data[0].end()) ==
        std::vector<uint8_t>{1, 2, 3});
  // force_align 16 on BackendDelegateInlineData.data.
  CHECK((program.backend_delegate_data[0].data() - bytes->data()) % 16 == 0);
  CHECK(delegate.compile_specs.at(0).key == "key");
}

TEST_CASE("the reader rejects references that point nowhere", "[writer][pte][errors]") {
  pte::ProgramBuilder builder;
  auto& m = builder.add_method("forward");
  const int32_t t = m.add_planned_tensor(ScalarType::kFloat, {1});
  m.kernel_call("aten::relu", "out", {t, 99, 99});
  m.set_outputs({t});
  auto bytes = pte::write_program(builder.build());
  REQUIRE(bytes.ok());
  auto program = pte::read_program(ByteSpan(*bytes), nullptr);
  REQUIRE_FALSE(program.ok());
  CHECK(program.error().field == "execution_plan[0].chains[0].instructions[0]");
  CHECK(program.error().message == "argument 99 is not a value index (1 values)");
}

TEST_CASE("segments given explicitly must match their data", "[writer][pte][errors]") {
  pte::Program program = demo::mlp();
  program.segments = {pte::DataSegment{0, 4}};  // the data is 848 bytes
  auto bytes = pte::write_program(program);
  REQUIRE_FALSE(bytes.ok());
  CHECK(bytes.error().field == "segments[0]");
}

TEST_CASE("LeNet demo program has the tutorial's 14 kernels and an elided flatten view", "[writer][pte]") {
  auto bytes = pte::write_program(demo::lenet());
  REQUIRE(bytes.ok());
  const auto program = read_back(*bytes);
  const auto& plan = program.execution_plan.at(0);
  const auto& instructions = plan.chains.at(0).instructions;
  REQUIRE(instructions.size() == 14);
  const auto& names = demo::lenet_kernel_names();
  for (size_t i = 0; i < instructions.size(); ++i) {
    const auto& op = plan.operators.at(size_t(std::get<pte::KernelCall>(instructions[i]).op_index));
    CHECK(op.name.substr(6) + "." + op.overload == names[i]);  // strip "aten::"
  }
  // convolution.out: 10 schema arguments + the return slot.
  CHECK(std::get<pte::KernelCall>(instructions[0]).args.size() == 11);
  // max_pool2d_with_indices.out returns a TensorList of (out, indices).
  const auto& pool_args = std::get<pte::KernelCall>(instructions[2]).args;
  REQUIRE(pool_args.size() == 9);
  CHECK(std::holds_alternative<pte::TensorList>(plan.values[size_t(pool_args.back())]));
}
