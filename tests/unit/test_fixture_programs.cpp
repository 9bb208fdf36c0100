// Real .pte files written by ExecuTorch (../shared/fixtures/pte) read through
// etkit::pte::read_program, checked against facts derived independently of
// etkit:
//   * "flatc": Debian's flatc 2.0.8,
//       flatc --json --strict-json --defaults-json schemas/program.fbs -- FILE
//     summarised with python3 (counts, names, lists read off the JSON);
//   * "raw": python3 struct.unpack on the file bytes (headers, constants);
//   * "spec": the tables of /work/shared/docs/formats/pte_spec.md.
// No number below was printed by etkit.
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "libcore/formats/program/program_reader.h"
#include "libcore/support/file.h"
#include "tests/support/test_support.h"

using namespace etkit;

namespace {

struct Loaded {
  std::shared_ptr<const InputFile> file;
  pte::Program program;
  // Offset of a span inside the file, for "lies at file offset N" facts.
  size_t file_offset(ByteSpan span) const { return size_t(span.data() - file->bytes().data()); }
};

Loaded load(const std::string& relative) {
  auto file = InputFile::open(test::fixture(relative).string());
  INFO(relative << (file ? std::string() : ": " + file.error().describe()));
  REQUIRE(file.ok());
  auto program = pte::read_program(*file);
  INFO((program ? std::string() : program.error().describe()));
  REQUIRE(program.ok());
  return Loaded{*file, std::move(program).value()};
}

const pte::ExecutionPlan& method(const pte::Program& program, std::string_view name) {
  const auto* plan = program.find_method(name);
  INFO("method " << name);
  REQUIRE(plan != nullptr);
  return *plan;
}

template <typename T>
const T& value_as(const pte::ExecutionPlan& plan, size_t index) {
  INFO("values[" << index << "]");
  REQUIRE(index < plan.values.size());
  const T* v = std::get_if<T>(&plan.values[index]);
  REQUIRE(v != nullptr);
  return *v;
}

std::vector<std::string> operator_names(const pte::ExecutionPlan& plan) {
  std::vector<std::string> names;
  for (const auto& op : plan.operators) names.push_back(op.full_name());
  return names;
}

// "name.overload" per instruction in chain 0; "DelegateCall" etc. otherwise.
std::vector<std::string> instruction_sequence(const pte::ExecutionPlan& plan) {
  std::vector<std::string> out;
  for (const auto& instr : plan.chains.at(0).instructions) {
    if (const auto* k = std::get_if<pte::KernelCall>(&instr)) {
      out.push_back(plan.operators.at(size_t(k->op_index)).full_name());
    } else if (std::holds_alternative<pte::DelegateCall>(instr)) {
      out.push_back("DelegateCall");
    } else {
      out.push_back("other");
    }
  }
  return out;
}

std::vector<float> floats(ByteSpan bytes) {
  std::vector<float> out(bytes.size() / 4);
  std::memcpy(out.data(), bytes.data(), out.size() * 4);
  return out;
}

std::string text(const std::vector<uint8_t>& bytes) { return std::string(bytes.begin(), bytes.end()); }

// ---------------------------------------------------------------------------
// Summary of every readable fixture. Generated once with flatc + python3 from
// the JSON of each file (and the eh00 header with struct.unpack on bytes
// 8..39); see the file comment. Per method: values, chains, KernelCalls,
// DelegateCalls, operators ("name.overload"), delegates,
// non_const_buffer_sizes.
struct Eh {
  uint32_t length;
  uint64_t program_size;
  uint64_t segment_base_offset;
  uint64_t segment_data_size;  // 0 for 24-byte headers (field absent)
};
const std::optional<Eh> kNoHeader;

struct MethodFacts {
  std::string name;
  size_t values;
  size_t chains;
  size_t kernel_calls;
  size_t delegate_calls;
  std::vector<std::string> operators;
  size_t delegates;
  std::vector<int64_t> non_const_buffer_sizes;
};

struct ProgramFacts {
  std::string file;
  size_t file_size;
  std::optional<Eh> header;
  size_t segments;
  size_t constant_buffers;
  size_t delegate_data;
  size_t named_data;
  size_t mutable_segments;
  std::vector<MethodFacts> methods;
};

const std::vector<ProgramFacts>& all_fixture_programs() {
  static const std::vector<ProgramFacts> facts = {
    {"pte/add.pte", 728, kNoHeader, 1, 0, 0, 0, 0,
     {
       {"forward", 4, 1, 1, 0, {"aten::add.out"}, 0, {0, 48}}}},
    {"pte/add_model_eh00.pte", 1156, Eh{32, 1040, 1152, 4}, 1, 0, 0, 0, 0,
     {
       {"forward", 4, 1, 1, 0, {"aten::add.out"}, 0, {0, 32}}}},
    {"pte/const_methods.pte", 2344, Eh{32, 2272, 2304, 40}, 1, 0, 0, 0, 0,
     {
       {"forward", 7, 1, 2, 0, {"dim_order_ops::_to_dim_order_copy.out", "aten::add.out"}, 0, {0, 48}},
       {"get_scalar", 1, 1, 0, 0, {}, 0, {0}},
       {"get_double", 1, 1, 0, 0, {}, 0, {0}},
       {"get_bool", 1, 1, 0, 0, {}, 0, {0}},
       {"get_tensor", 1, 1, 0, 0, {}, 0, {0}}}},
    {"pte/conv2d_cadence_quantized.pte", 12096, Eh{32, 2416, 2432, 9664}, 1, 0, 0, 0, 0,
     {
       {"forward", 33, 1, 3, 0, {"cadence::quantize_per_tensor.out", "cadence::quantized_conv2d_nchw.per_tensor_out", "cadence::dequantize_per_tensor.out"}, 0, {0, 4014080}}}},
    {"pte/custom_op_lstm.pte", 2352, Eh{32, 1856, 1920, 432}, 1, 0, 0, 0, 0,
     {
       {"forward", 11, 1, 1, 0, {"etnp::lstm.out"}, 0, {0, 416}}}},
    {"pte/diamond.pte", 1680, kNoHeader, 0, 1, 0, 0, 0,
     {
       {"forward", 10, 1, 4, 0, {"aten::add.Tensor", "aten::mul.Tensor"}, 0, {0, 64}}}},
    {"pte/din_model.pte", 3584, Eh{24, 1776, 1792, 0}, 1, 0, 0, 0, 0,
     {
       {"forward", 19, 1, 2, 0, {"aten::convolution.out", "aten::relu.out"}, 0, {0, 8388608}}}},
    {"pte/dnf_training.pte", 6292, Eh{32, 5856, 5888, 404}, 2, 0, 0, 0, 1,
     {
       {"forward", 53, 1, 18, 0, {"aten::permute_copy.out", "aten::addmm.out", "aten::sub.out", "aten::mul.out", "aten::sum.IntList_out", "aten::alias_copy.out", "aten::full_like.out", "aten::expand_copy.out", "aten::neg.out", "aten::add.out", "aten::mm.out", "aten::view_copy.out"}, 0, {0, 1296}},
       {"__et_training_gradients_index_forward", 1, 1, 0, 0, {}, 0, {0}},
       {"__et_training_fqn_forward", 2, 1, 0, 0, {}, 0, {0}},
       {"__et_training_parameters_index_forward", 1, 1, 0, 0, {}, 0, {0}}}},
    {"pte/dtypes.pte", 1320, kNoHeader, 1, 0, 0, 0, 0,
     {
       {"forward", 6, 1, 2, 0, {"aten::add.out"}, 0, {0, 48}}}},
    {"pte/dynamic_xnnpack.pte", 1712, Eh{32, 1072, 1152, 560}, 2, 0, 0, 0, 0,
     {
       {"forward", 3, 1, 0, 1, {}, 1, {0, 128}}}},
    {"pte/external_data_model.pte", 1328, kNoHeader, 1, 0, 0, 0, 0,
     {
       {"forward", 6, 1, 2, 0, {"aten::mul.out", "aten::add.out"}, 0, {0, 32}}}},
    {"pte/keyword_spotting_cortex_m.pte", 54192, Eh{32, 14880, 14976, 39216}, 1, 0, 0, 0, 0,
     {
       {"forward", 288, 1, 16, 0, {"cortex_m::quantize_per_tensor.out", "cortex_m::quantized_depthwise_conv2d.out", "dim_order_ops::_clone_dim_order.out", "cortex_m::quantized_conv2d.out", "cortex_m::pad.out", "cortex_m::quantized_avg_pool2d.out", "cortex_m::quantized_linear.out", "cortex_m::dequantize_per_tensor.out"}, 0, {0, 16000}}}},
    {"pte/lenet_tutorial.pte", 252600, Eh{24, 5744, 5760, 0}, 1, 0, 0, 0, 0,
     {
       {"forward", 95, 1, 14, 0, {"aten::convolution.out", "aten::relu.out", "aten::max_pool2d_with_indices.out", "aten::permute_copy.out", "aten::addmm.out"}, 0, {0, 194080}}}},
    {"pte/maxpool2d.pte", 1504, kNoHeader, 1, 0, 0, 0, 0,
     {
       {"forward", 17, 1, 1, 0, {"aten::max_pool2d_with_indices.out"}, 0, {0, 5619712}}}},
    {"pte/med_output.pte", 1000, kNoHeader, 1, 0, 0, 0, 0,
     {
       {"forward", 5, 1, 1, 0, {"aten::expand_copy.out"}, 0, {0, 536870928}}}},
    {"pte/mnist_ethos_u55.pte", 113376, kNoHeader, 1, 0, 1, 0, 0,
     {
       {"forward", 14, 1, 2, 1, {"cortex_m::quantize_per_tensor.out", "cortex_m::dequantize_per_tensor.out"}, 1, {0, 3920}}}},
    {"pte/module_linear_inline_constants.pte", 1040, kNoHeader, 0, 3, 0, 0, 0,
     {
       {"forward", 6, 1, 2, 0, {"aten::mul.out", "aten::add.out"}, 0, {0, 32}}}},
    {"pte/module_model.pte", 1600, kNoHeader, 0, 2, 0, 0, 0,
     {
       {"forward", 12, 1, 4, 0, {"aten::mean.out", "aten::eq.Scalar_out", "aten::clone.out", "aten::where.self_out"}, 0, {0, 64}}}},
    {"pte/multi_method.pte", 2312, Eh{32, 2240, 2304, 8}, 1, 0, 0, 0, 0,
     {
       {"double", 7, 1, 2, 0, {"dim_order_ops::_to_dim_order_copy.out", "aten::add.out"}, 0, {0, 48}},
       {"forward", 7, 1, 2, 0, {"dim_order_ops::_to_dim_order_copy.out", "aten::add.out"}, 0, {0, 48}}}},
    {"pte/named_priced.pte", 1272, kNoHeader, 1, 0, 0, 0, 0,
     {
       {"forward", 7, 1, 2, 0, {"dim_order_ops::_to_dim_order_copy.out", "aten::mul.out"}, 0, {0, 48}}}},
    {"pte/prim_input.pte", 1156, Eh{32, 1104, 1152, 4}, 1, 0, 0, 0, 0,
     {
       {"forward", 4, 1, 1, 0, {"aten::mul.out"}, 0, {0, 32}}}},
    {"pte/simple_two.pte", 944, kNoHeader, 1, 0, 0, 0, 0,
     {
       {"forward", 3, 1, 1, 0, {"aten::add.out"}, 0, {0, 32}}}},
    {"pte/softmax.pte", 976, kNoHeader, 1, 0, 0, 0, 0,
     {
       {"forward", 4, 1, 1, 0, {"aten::_softmax.out"}, 0, {0, 65536}}}},
    {"pte/stories260k_qnn_multi_method.pte", 1350144, Eh{32, 18688, 18688, 1331456}, 2, 0, 0, 0, 0,
     {
       {"kv_forward", 24, 1, 0, 1, {}, 1, {0, 0}},
       {"prefill_forward", 24, 1, 0, 1, {}, 1, {0, 0}},
       {"get_ar_len", 1, 1, 0, 0, {}, 0, {0}},
       {"get_bos_id", 1, 1, 0, 0, {}, 0, {0}},
       {"get_eos_id", 1, 1, 0, 0, {}, 0, {0}},
       {"get_dim", 1, 1, 0, 0, {}, 0, {0}},
       {"get_head_dim", 1, 1, 0, 0, {}, 0, {0}},
       {"get_max_batch_size", 1, 1, 0, 0, {}, 0, {0}},
       {"get_max_seq_len", 1, 1, 0, 0, {}, 0, {0}},
       {"get_max_context_len", 1, 1, 0, 0, {}, 0, {0}},
       {"get_n_bos", 1, 1, 0, 0, {}, 0, {0}},
       {"get_n_eos", 1, 1, 0, 0, {}, 0, {0}},
       {"get_n_kv_heads", 1, 1, 0, 0, {}, 0, {0}},
       {"get_n_layers", 1, 1, 0, 0, {}, 0, {0}},
       {"get_vocab_size", 1, 1, 0, 0, {}, 0, {0}},
       {"get_use_kv_cache", 1, 1, 0, 0, {}, 0, {0}},
       {"get_kv_io_bit_width", 1, 1, 0, 0, {}, 0, {0}},
       {"get_logits_scale", 1, 1, 0, 0, {}, 0, {0}},
       {"get_logits_zero_point", 1, 1, 0, 0, {}, 0, {0}},
       {"get_kv_output_0_quant_attr", 5, 1, 0, 0, {}, 0, {0}},
       {"get_kv_output_1_quant_attr", 5, 1, 0, 0, {}, 0, {0}},
       {"get_kv_output_2_quant_attr", 5, 1, 0, 0, {}, 0, {0}},
       {"get_kv_output_3_quant_attr", 5, 1, 0, 0, {}, 0, {0}},
       {"get_kv_output_4_quant_attr", 5, 1, 0, 0, {}, 0, {0}},
       {"get_kv_output_5_quant_attr", 5, 1, 0, 0, {}, 0, {0}},
       {"get_kv_output_6_quant_attr", 5, 1, 0, 0, {}, 0, {0}},
       {"get_kv_output_7_quant_attr", 5, 1, 0, 0, {}, 0, {0}},
       {"get_kv_output_8_quant_attr", 5, 1, 0, 0, {}, 0, {0}},
       {"get_kv_output_9_quant_attr", 5, 1, 0, 0, {}, 0, {0}}}},
    {"pte/stress_mlp_xnnpack_segments.pte", 2181504, Eh{32, 5560, 5632, 2175872}, 19, 0, 0, 16, 0,
     {
       {"forward", 44, 1, 12, 2, {"dim_order_ops::_to_dim_order_copy.out", "aten::select_copy.int_out", "aten::clamp.out", "aten::index_select.out"}, 2, {0, 100416}}}},
    {"pte/xor_training.pte", 13832, Eh{24, 13704, 13824, 0}, 1, 0, 0, 0, 0,
     {
       {"forward", 155, 1, 66, 0, {"aten::permute_copy.out", "aten::addmm.out", "aten::sigmoid.out", "aten::alias_copy.out", "aten::_log_softmax.out", "aten::ne.Scalar_out", "aten::scalar_tensor.out", "aten::where.self_out", "aten::unsqueeze_copy.out", "aten::gather.out", "aten::squeeze_copy.dims_out", "aten::neg.out", "aten::sum.IntList_out", "dim_order_ops::_to_dim_order_copy.out", "aten::div.out", "aten::argmax.out", "aten::full_like.out", "aten::scatter.value_out", "aten::mul.out", "aten::exp.out", "aten::sub.out", "aten::mm.out", "aten::view_copy.out"}, 0, {0, 624}},
       {"__et_training_gradients_index_forward", 1, 1, 0, 0, {}, 0, {0}},
       {"__et_training_fqn_forward", 4, 1, 0, 0, {}, 0, {0}},
       {"__et_training_parameters_index_forward", 1, 1, 0, 0, {}, 0, {0}}}}
  };
  return facts;
}

}  // namespace

TEST_CASE("every fixture program reads and matches flatc's summary", "[fixtures][pte]") {
  ETKIT_REQUIRE_FIXTURES();
  // 26 readable .pte fixtures (the 27th, ET02, is rejected: see below).
  REQUIRE(all_fixture_programs().size() == 26);
  for (const auto& facts : all_fixture_programs()) {
    INFO(facts.file);
    const auto loaded = load(facts.file);
    const auto& program = loaded.program;
    CHECK(loaded.file->bytes().size() == facts.file_size);
    CHECK(program.version == 0);  // written as 0, absent on the wire (spec §1.1)

    REQUIRE(program.extended_header.has_value() == facts.header.has_value());
    if (facts.header) {
      CHECK(program.extended_header->length == facts.header->length);
      CHECK(program.extended_header->program_size == facts.header->program_size);
      CHECK(program.extended_header->segment_base_offset == facts.header->segment_base_offset);
      CHECK(program.extended_header->segment_data_size == facts.header->segment_data_size);
    }

    CHECK(program.segments.size() == facts.segments);
    CHECK(program.segment_data.size() == facts.segments);
    CHECK(program.constant_buffer.size() == facts.constant_buffers);
    CHECK(program.backend_delegate_data.size() == facts.delegate_data);
    CHECK(program.named_data.size() == facts.named_data);
    CHECK(program.mutable_data_segments.size() == facts.mutable_segments);
    // With a header, segment i lies at segment_base_offset + offset.
    if (facts.header) {
      for (size_t i = 0; i < program.segments.size() && i < program.segment_data.size(); ++i) {
        CHECK(program.segment_data[i].size() == program.segments[i].size);
        CHECK(loaded.file_offset(program.segment_data[i]) ==
              facts.header->segment_base_offset + program.segments[i].offset);
      }
    }

    REQUIRE(program.execution_plan.size() == facts.methods.size());
    for (size_t m = 0; m < facts.methods.size(); ++m) {
      const auto& want = facts.methods[m];
      const auto& plan = program.execution_plan[m];
      INFO("method " << m << " " << want.name);
      CHECK(plan.name == want.name);
      CHECK(plan.values.size() == want.values);
      CHECK(plan.chains.size() == want.chains);
      size_t kernels = 0, delegates = 0;
      for (const auto& chain : plan.chains) {
        for (const auto& instr : chain.instructions) {
          kernels += std::holds_alternative<pte::KernelCall>(instr);
          delegates += std::holds_alternative<pte::DelegateCall>(instr);
        }
      }
      CHECK(kernels == want.kernel_calls);
      CHECK(delegates == want.delegate_calls);
      CHECK(operator_names(plan) == want.operators);
      CHECK(plan.delegates.size() == want.delegates);
      CHECK(plan.non_const_buffer_sizes == want.non_const_buffer_sizes);
    }
  }
}

TEST_CASE("the old ET02 identifier is rejected as unsupported, naming ET02 and ET12", "[fixtures][pte][errors]") {
  ETKIT_REQUIRE_FIXTURES();
  // raw: bytes 4..7 of the file are "ET02" (spec §1.1: only ET12 is accepted).
  const auto bytes = test::read_bytes(test::fixture("pte/add_mul_old_identifier_et02.pte"));
  REQUIRE(bytes.size() == 992);
  auto program = pte::read_program(ByteSpan(bytes), nullptr);
  REQUIRE_FALSE(program.ok());
  CHECK(program.error().kind == ErrorKind::kUnsupported);
  CHECK_THAT(program.error().message, Catch::Contains("ET02"));
  CHECK_THAT(program.error().message, Catch::Contains("ET12"));

  // Through InputFile the error also names the file.
  auto file = InputFile::open(test::fixture("pte/add_mul_old_identifier_et02.pte").string());
  REQUIRE(file.ok());
  auto again = pte::read_program(*file);
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().kind == ErrorKind::kUnsupported);
  CHECK_THAT(again.error().file, Catch::Contains("add_mul_old_identifier_et02.pte"));
}

TEST_CASE("add.pte: one add.out, no extended header, the empty constant segment quirk", "[fixtures][pte]") {
  ETKIT_REQUIRE_FIXTURES();
  const auto loaded = load("pte/add.pte");
  const auto& program = loaded.program;
  const auto bytes = loaded.file->bytes();
  // raw: root offset 28, identifier ET12, no eh00 (spec §1.2).
  CHECK(load_u32_le(bytes.data()) == 28);
  CHECK(std::memcmp(bytes.data() + 4, "ET12", 4) == 0);
  CHECK_FALSE(program.extended_header.has_value());

  // flatc: segments [{0,0}] and constant_segment.offsets [0] (spec §1.3 quirk).
  REQUIRE(program.segments.size() == 1);
  CHECK(program.segments[0].offset == 0);
  CHECK(program.segments[0].size == 0);
  CHECK(program.segment_data.at(0).empty());
  REQUIRE(program.constant_segment.has_value());
  CHECK(program.constant_segment->segment_index == 0);
  CHECK(program.constant_segment->offsets == std::vector<uint64_t>{0});

  const auto& plan = method(program, "forward");
  CHECK(plan.inputs == std::vector<int32_t>{0, 1});
  CHECK(plan.outputs == std::vector<int32_t>{2});
  REQUIRE(plan.operators.size() == 1);
  CHECK(plan.operators[0].name == "aten::add");
  CHECK(plan.operators[0].overload == "out");
  // flatc: the single KernelCall has args [0,1,3,2,2] (self, other, alpha, out, ret).
  REQUIRE(plan.chains.size() == 1);
  REQUIRE(plan.chains[0].instructions.size() == 1);
  const auto& call = std::get<pte::KernelCall>(plan.chains[0].instructions[0]);
  CHECK(call.op_index == 0);
  CHECK(call.args == std::vector<int32_t>{0, 1, 3, 2, 2});
  // flatc: v0..v2 FLOAT[1] planned at arena offsets 0, 16, 32; v3 Int 1.
  for (size_t i = 0; i < 3; ++i) {
    const auto& t = value_as<pte::Tensor>(plan, i);
    CHECK(t.scalar_type == 6);
    CHECK(t.sizes == std::vector<int32_t>{1});
    CHECK(t.dim_order == std::vector<uint8_t>{0});
    REQUIRE(t.allocation_info.has_value());
    CHECK(t.allocation_info->memory_id == 1);
    CHECK(t.allocation_info->memory_offset == 16 * i);
    CHECK(t.shape_dynamism == pte::ShapeDynamism::kStatic);
  }
  CHECK(value_as<pte::Int>(plan, 3).value == 1);
}

TEST_CASE("add_model_eh00.pte: 32-byte extended header and a constant 1.0f segment", "[fixtures][pte]") {
  ETKIT_REQUIRE_FIXTURES();
  const auto loaded = load("pte/add_model_eh00.pte");
  const auto& program = loaded.program;
  // spec §1.2 table: length 32, program_size 1040, base 1152, data size 4;
  // raw: root offset 60 = 28 + 32.
  REQUIRE(program.extended_header.has_value());
  CHECK(program.extended_header->length == 32);
  CHECK(program.extended_header->program_size == 1040);
  CHECK(program.extended_header->segment_base_offset == 1152);
  CHECK(program.extended_header->segment_data_size == 4);
  CHECK(load_u32_le(loaded.file->bytes().data()) == 60);

  // spec §3.1: offsets [0, 0]; buffer 1 is float 1.0 at file offset 1152.
  REQUIRE(program.constant_segment.has_value());
  CHECK(program.constant_segment->offsets == std::vector<uint64_t>{0, 0});
  REQUIRE(program.segments.size() == 1);
  CHECK(program.segments[0].size == 4);
  const ByteSpan constants = program.segment_data.at(0);
  REQUIRE(constants.size() == 4);
  CHECK(loaded.file_offset(constants) == 1152);
  CHECK(floats(constants) == std::vector<float>{1.0f});

  // flatc: v0 is the 0-dim FLOAT constant (data_buffer_idx 1, not planned),
  // v1 the FLOAT[3] input at arena offset 16, v2 the output at 0.
  const auto& plan = method(program, "forward");
  const auto& c = value_as<pte::Tensor>(plan, 0);
  CHECK(c.scalar_type == 6);
  CHECK(c.sizes.empty());
  CHECK(c.data_buffer_idx == 1);
  CHECK_FALSE(c.allocation_info.has_value());
  CHECK(plan.inputs == std::vector<int32_t>{1});
  CHECK(plan.outputs == std::vector<int32_t>{2});
  CHECK(value_as<pte::Tensor>(plan, 1).sizes == std::vector<int32_t>{3});
  CHECK(value_as<pte::Tensor>(plan, 1).allocation_info->memory_offset == 16);
  CHECK(value_as<pte::Tensor>(plan, 2).allocation_info->memory_offset == 0);
}

TEST_CASE("module_linear_inline_constants.pte: legacy inline constant_buffer", "[fixtures][pte]") {
  ETKIT_REQUIRE_FIXTURES();
  const auto loaded = load("pte/module_linear_inline_constants.pte");
  const auto& program = loaded.program;
  CHECK_FALSE(program.extended_header.has_value());
  // spec §3.1: constant_segment present with offsets [], segments [], 3 Buffers.
  REQUIRE(program.constant_segment.has_value());
  CHECK(program.constant_segment->offsets.empty());
  CHECK(program.segments.empty());
  REQUIRE(program.constant_buffer.size() == 3);
  CHECK(program.constant_buffer[0].empty());  // placeholder
  // Buffer 1 = 4 x 3.0f at file offset 144, buffer 2 = 4 x 2.0f at 112
  // (spec §3.1, confirmed with struct.unpack('<4f') at those offsets).
  CHECK(floats(program.constant_buffer[1]) == std::vector<float>{3.0f, 3.0f, 3.0f, 3.0f});
  CHECK(floats(program.constant_buffer[2]) == std::vector<float>{2.0f, 2.0f, 2.0f, 2.0f});
  CHECK(loaded.file_offset(program.constant_buffer[1]) == 144);
  CHECK(loaded.file_offset(program.constant_buffer[2]) == 112);

  const auto& plan = method(program, "forward");
  // flatc: mul.out(v0, v2) -> v3, add.out(v3, v1, alpha v5) -> v4.
  CHECK(instruction_sequence(plan) == std::vector<std::string>{"aten::mul.out", "aten::add.out"});
  CHECK(value_as<pte::Tensor>(plan, 0).data_buffer_idx == 1);
  CHECK(value_as<pte::Tensor>(plan, 1).data_buffer_idx == 2);
  // spec §4.3: output v4 and input v2 share arena offset 0.
  CHECK(plan.inputs == std::vector<int32_t>{2});
  CHECK(plan.outputs == std::vector<int32_t>{4});
  CHECK(value_as<pte::Tensor>(plan, 2).allocation_info->memory_offset == 0);
  CHECK(value_as<pte::Tensor>(plan, 4).allocation_info->memory_offset == 0);
  CHECK(std::get<pte::KernelCall>(plan.chains[0].instructions[1]).args == std::vector<int32_t>{3, 1, 5, 4, 4});
}

TEST_CASE("keyword_spotting_cortex_m.pte: 63 constants, shared buffers, boxed int lists, elided views", "[fixtures][pte]") {
  ETKIT_REQUIRE_FIXTURES();
  const auto loaded = load("pte/keyword_spotting_cortex_m.pte");
  const auto& program = loaded.program;
  // spec §1.2 table: 32 / 14880 / 14976 / 39216, file 54192 = 14976 + 39216.
  REQUIRE(program.extended_header.has_value());
  CHECK(program.extended_header->length == 32);
  CHECK(program.extended_header->program_size == 14880);
  CHECK(program.extended_header->segment_base_offset == 14976);
  CHECK(program.extended_header->segment_data_size == 39216);
  // spec §3.1: 64 offsets; the last buffer starts at 39168 and is 48 bytes.
  REQUIRE(program.constant_segment.has_value());
  REQUIRE(program.constant_segment->offsets.size() == 64);
  CHECK(program.constant_segment->offsets.back() == 39168);
  REQUIRE(program.segments.size() == 1);
  CHECK(program.segments[0].size - program.constant_segment->offsets.back() == 48);
  CHECK(loaded.file_offset(program.segment_data.at(0)) == 14976);

  const auto& plan = method(program, "forward");
  CHECK(plan.values.size() == 288);  // flatc
  // flatc: the 16 instructions in order.
  CHECK(instruction_sequence(plan) ==
        std::vector<std::string>{"cortex_m::quantize_per_tensor.out", "cortex_m::quantized_depthwise_conv2d.out",
                                 "dim_order_ops::_clone_dim_order.out", "cortex_m::quantized_depthwise_conv2d.out",
                                 "cortex_m::quantized_conv2d.out", "cortex_m::quantized_depthwise_conv2d.out",
                                 "cortex_m::quantized_conv2d.out", "cortex_m::quantized_depthwise_conv2d.out",
                                 "cortex_m::quantized_conv2d.out", "cortex_m::quantized_depthwise_conv2d.out",
                                 "cortex_m::quantized_conv2d.out", "dim_order_ops::_clone_dim_order.out",
                                 "cortex_m::pad.out", "cortex_m::quantized_avg_pool2d.out",
                                 "cortex_m::quantized_linear.out", "cortex_m::dequantize_per_tensor.out"});
  // spec §3.1: nine LONG[64] values share data_buffer_idx 2.
  size_t sharing = 0;
  for (const auto& v : plan.values) {
    const auto* t = std::get_if<pte::Tensor>(&v);
    if (t && t->data_buffer_idx == 2) {
      ++sharing;
      CHECK(t->scalar_type == 4);
      CHECK(t->sizes == std::vector<int32_t>{64});
    }
  }
  CHECK(sharing == 9);
  // spec §4.2: v112 = IntList [108..111] over Int 0, 2, 3, 1.
  CHECK(value_as<pte::IntList>(plan, 112).items == std::vector<int64_t>{108, 109, 110, 111});
  CHECK(value_as<pte::Int>(plan, 108).value == 0);
  CHECK(value_as<pte::Int>(plan, 109).value == 2);
  CHECK(value_as<pte::Int>(plan, 110).value == 3);
  CHECK(value_as<pte::Int>(plan, 111).value == 1);
  // spec §4.3: v270 CHAR[1,64] aliases v257 CHAR[1,64,1,1] (dim_order 0,2,3,1) at 8256.
  const auto& v257 = value_as<pte::Tensor>(plan, 257);
  const auto& v270 = value_as<pte::Tensor>(plan, 270);
  CHECK(v257.scalar_type == 1);
  CHECK(v257.sizes == std::vector<int32_t>{1, 64, 1, 1});
  CHECK(v257.dim_order == std::vector<uint8_t>{0, 2, 3, 1});
  CHECK(v270.sizes == std::vector<int32_t>{1, 64});
  CHECK(v270.dim_order == std::vector<uint8_t>{0, 1});
  CHECK(v257.allocation_info->memory_offset == 8256);
  CHECK(v270.allocation_info->memory_offset == 8256);
}

TEST_CASE("stories260k_qnn_multi_method.pte: 29 methods, QnnBackend blob in segment 1", "[fixtures][pte]") {
  ETKIT_REQUIRE_FIXTURES();
  const auto loaded = load("pte/stories260k_qnn_multi_method.pte");
  const auto& program = loaded.program;
  // spec §1.2 table: 32 / 18688 / 18688 / 1331456.
  REQUIRE(program.extended_header.has_value());
  CHECK(program.extended_header->length == 32);
  CHECK(program.extended_header->program_size == 18688);
  CHECK(program.extended_header->segment_base_offset == 18688);
  CHECK(program.extended_header->segment_data_size == 1331456);
  // flatc: segments [{0,0}, {0,1331456}]; constant_segment offsets [0].
  REQUIRE(program.segments.size() == 2);
  CHECK(program.segments[0].size == 0);
  CHECK(program.segments[1].offset == 0);
  CHECK(program.segments[1].size == 1331456);
  CHECK(program.segment_data.at(1).size() == 1331456);
  CHECK(loaded.file_offset(program.segment_data.at(1)) == 18688);
  CHECK(program.constant_segment->offsets == std::vector<uint64_t>{0});

  // flatc: method names in file order.
  std::vector<std::string> names;
  for (const auto& plan : program.execution_plan) names.push_back(plan.name);
  std::vector<std::string> expected = {"kv_forward", "prefill_forward", "get_ar_len", "get_bos_id", "get_eos_id",
                                       "get_dim", "get_head_dim", "get_max_batch_size", "get_max_seq_len",
                                       "get_max_context_len", "get_n_bos", "get_n_eos", "get_n_kv_heads",
                                       "get_n_layers", "get_vocab_size", "get_use_kv_cache", "get_kv_io_bit_width",
                                       "get_logits_scale", "get_logits_zero_point"};
  for (int i = 0; i < 10; ++i) expected.push_back("get_kv_output_" + std::to_string(i) + "_quant_attr");
  CHECK(names.size() == 29);
  CHECK(names == expected);

  // spec §3.3 / §4.8: both delegated methods point at segment 1 (QnnBackend).
  // flatc: v3 is a BYTE cache tensor, [1,4,8,127] in kv_forward and
  // [1,4,8,96] in prefill_forward.
  const std::pair<const char*, int32_t> delegated[] = {{"kv_forward", 127}, {"prefill_forward", 96}};
  for (const auto& [name, last_dim] : delegated) {
    INFO(name);
    const auto& plan = method(program, name);
    REQUIRE(plan.delegates.size() == 1);
    CHECK(plan.delegates[0].id == "QnnBackend");
    CHECK(plan.delegates[0].location == pte::DataLocation::kSegment);
    CHECK(plan.delegates[0].index == 1);
    REQUIRE(plan.delegates[0].compile_specs.size() == 1);
    CHECK(plan.delegates[0].compile_specs[0].key == "qnn_compile_spec");
    CHECK(instruction_sequence(plan) == std::vector<std::string>{"DelegateCall"});
    CHECK(plan.inputs.size() == 13);  // flatc
    CHECK(plan.outputs.size() == 11);
    CHECK(plan.operators.empty());
    // scalar_type absent on the wire means BYTE (spec §2).
    CHECK(value_as<pte::Tensor>(plan, 3).scalar_type == 0);
    CHECK(value_as<pte::Tensor>(plan, 3).sizes == std::vector<int32_t>{1, 4, 8, last_dim});
  }

  // flatc: getter methods return constants and have no instructions.
  const auto& vocab = method(program, "get_vocab_size");
  CHECK(vocab.chains.size() == 1);
  CHECK(vocab.chains[0].instructions.empty());
  CHECK(vocab.non_const_buffer_sizes == std::vector<int64_t>{0});
  CHECK(value_as<pte::Int>(vocab, 0).value == 512);
  CHECK(value_as<pte::Int>(method(program, "get_max_seq_len"), 0).value == 128);
  CHECK(value_as<pte::Int>(method(program, "get_n_layers"), 0).value == 5);
  CHECK(value_as<pte::Int>(method(program, "get_logits_zero_point"), 0).value == 31143);
  CHECK(value_as<pte::Bool>(method(program, "get_use_kv_cache"), 0).value);
  CHECK(value_as<pte::Double>(method(program, "get_logits_scale"), 0).value == Approx(0.000679875026).epsilon(1e-9));
  const auto& quant = method(program, "get_kv_output_0_quant_attr");
  CHECK(quant.outputs == std::vector<int32_t>{0, 1, 2, 3, 4});
  CHECK(value_as<pte::Double>(quant, 0).value == Approx(0.012077862397).epsilon(1e-9));
  CHECK(value_as<pte::Int>(quant, 1).value == 128);
  CHECK(value_as<pte::Int>(quant, 3).value == 255);
  CHECK(value_as<pte::String>(quant, 4).value == "torch.uint8");
  CHECK(program.find_method("no_such_method") == nullptr);
}

TEST_CASE("stress_mlp_xnnpack_segments.pte: 19 segments, two XNNPACK blobs, 16 named blobs", "[fixtures][pte]") {
  ETKIT_REQUIRE_FIXTURES();
  const auto loaded = load("pte/stress_mlp_xnnpack_segments.pte");
  const auto& program = loaded.program;
  // raw: eh00 32 / 5560 / 5632 / 2175872; file 2181504 = 5632 + 2175872.
  REQUIRE(program.extended_header.has_value());
  CHECK(program.extended_header->program_size == 5560);
  CHECK(program.extended_header->segment_base_offset == 5632);
  CHECK(program.extended_header->segment_data_size == 2175872);
  // flatc: the 19 (offset, size) pairs (spec §1.3: 0 constants, 1-2 XNNPACK, 3-18 named data).
  const std::vector<std::pair<uint64_t, uint64_t>> expected = {
      {0, 65544},        {65664, 640},      {66304, 4160},     {70528, 262144},   {332672, 1024},
      {333696, 262144},  {595840, 1024},    {596864, 262144},  {859008, 1024},   {860032, 262144},
      {1122176, 1024},   {1123200, 262144}, {1385344, 1024},   {1386368, 262144}, {1648512, 1024},
      {1649536, 262144}, {1911680, 1024},   {1912704, 262144}, {2174848, 1024}};
  REQUIRE(program.segments.size() == 19);
  for (size_t i = 0; i < expected.size(); ++i) {
    INFO("segment " << i);
    CHECK(program.segments[i].offset == expected[i].first);
    CHECK(program.segments[i].size == expected[i].second);
    CHECK(program.segment_data[i].size() == expected[i].second);
    CHECK(loaded.file_offset(program.segment_data[i]) == 5632 + expected[i].first);
  }
  // The last segment ends exactly at segment_data_size (no trailing pad).
  CHECK(expected.back().first + expected.back().second == 2175872);

  REQUIRE(program.constant_segment.has_value());
  CHECK(program.constant_segment->segment_index == 0);
  CHECK(program.constant_segment->offsets == std::vector<uint64_t>{0, 0, 65536});
  // flatc: 16 named blobs on segments 3..18, keyed by 64-hex-digit SHA-256.
  REQUIRE(program.named_data.size() == 16);
  for (size_t k = 0; k < 16; ++k) {
    CHECK(program.named_data[k].segment_index == 3 + k);
    CHECK(program.named_data[k].key.size() == 64);
  }
  CHECK(program.named_data[0].key == "52b524ab06b1981ba03472c3f021372b55495be8b3d8c507dafdf1d06ea37e43");

  const auto& plan = method(program, "forward");
  REQUIRE(plan.delegates.size() == 2);
  for (size_t d = 0; d < 2; ++d) {
    CHECK(plan.delegates[d].id == "XnnpackBackend");
    CHECK(plan.delegates[d].location == pte::DataLocation::kSegment);
    CHECK(plan.delegates[d].index == 1 + d);
    CHECK(plan.delegates[d].compile_specs.empty());
  }
  CHECK(instruction_sequence(plan) ==
        std::vector<std::string>{"dim_order_ops::_to_dim_order_copy.out", "dim_order_ops::_to_dim_order_copy.out",
                                 "aten::select_copy.int_out", "aten::select_copy.int_out",
                                 "aten::select_copy.int_out", "aten::select_copy.int_out", "DelegateCall",
                                 "dim_order_ops::_to_dim_order_copy.out", "dim_order_ops::_to_dim_order_copy.out",
                                 "aten::clamp.out", "aten::clamp.out", "aten::index_select.out",
                                 "aten::index_select.out", "DelegateCall"});
}

TEST_CASE("mnist_ethos_u55.pte: EthosUBackend blob kept INLINE, no extended header", "[fixtures][pte]") {
  ETKIT_REQUIRE_FIXTURES();
  const auto loaded = load("pte/mnist_ethos_u55.pte");
  const auto& program = loaded.program;
  // spec §3.3: no extended header, backend_delegate_data[0] is 111344 bytes.
  CHECK_FALSE(program.extended_header.has_value());
  CHECK(load_u32_le(loaded.file->bytes().data()) == 36);  // raw root offset
  REQUIRE(program.backend_delegate_data.size() == 1);
  CHECK(program.backend_delegate_data[0].size() == 111344);
  // spec §1.3: segments [{0,0}] listed without a header.
  REQUIRE(program.segments.size() == 1);
  CHECK(program.segments[0].size == 0);

  const auto& plan = method(program, "forward");
  REQUIRE(plan.delegates.size() == 1);
  const auto& d = plan.delegates[0];
  CHECK(d.id == "EthosUBackend");
  CHECK(d.location == pte::DataLocation::kInline);
  CHECK(d.index == 0);
  // flatc: compile spec keys and (as text) values.
  REQUIRE(d.compile_specs.size() == 4);
  CHECK(d.compile_specs[0].key == "tosa_spec");
  CHECK(text(d.compile_specs[0].value) == "TOSA-1.0+INT+int16+u55");
  CHECK(d.compile_specs[1].key == "compile_flags");
  CHECK_THAT(text(d.compile_specs[1].value), Catch::StartsWith("--verbose-operators"));
  CHECK(d.compile_specs[2].key == "output_format");
  CHECK(text(d.compile_specs[2].value) == "vela");
  CHECK(d.compile_specs[3].key == "target");
  CHECK(text(d.compile_specs[3].value) == "ethos-u55-128");
  CHECK(instruction_sequence(plan) == std::vector<std::string>{"cortex_m::quantize_per_tensor.out", "DelegateCall",
                                                                "cortex_m::dequantize_per_tensor.out"});
  const auto& call = std::get<pte::DelegateCall>(plan.chains[0].instructions[1]);
  CHECK(call.delegate_index == 0);
  CHECK(call.args == std::vector<int32_t>{1, 7});
  // flatc: input v0 FLOAT[1,1,28,28]; output v8.
  CHECK(plan.inputs == std::vector<int32_t>{0});
  CHECK(plan.outputs == std::vector<int32_t>{8});
  CHECK(value_as<pte::Tensor>(plan, 0).sizes == std::vector<int32_t>{1, 1, 28, 28});
}

TEST_CASE("dynamic_xnnpack.pte: constant segment at 0, delegate blob at 128, dynamic-bound tensors", "[fixtures][pte]") {
  ETKIT_REQUIRE_FIXTURES();
  const auto loaded = load("pte/dynamic_xnnpack.pte");
  const auto& program = loaded.program;
  // spec §1.3: the 4-byte constant segment at relative 0, the blob at 128.
  REQUIRE(program.segments.size() == 2);
  CHECK(program.segments[0].offset == 0);
  CHECK(program.segments[0].size == 4);
  CHECK(program.segments[1].offset == 128);
  CHECK(program.segments[1].size == 432);  // flatc
  const auto& plan = method(program, "forward");
  REQUIRE(plan.delegates.size() == 1);
  CHECK(plan.delegates[0].id == "XnnpackBackend");
  CHECK(plan.delegates[0].location == pte::DataLocation::kSegment);
  CHECK(plan.delegates[0].index == 1);
  // flatc: input v1 and output v2 are FLOAT[8] DYNAMIC_BOUND.
  for (size_t i : {1, 2}) {
    const auto& t = value_as<pte::Tensor>(plan, i);
    CHECK(t.sizes == std::vector<int32_t>{8});
    CHECK(t.shape_dynamism == pte::ShapeDynamism::kDynamicBound);
  }
}

TEST_CASE("dnf_training.pte: training methods and a mutable data segment", "[fixtures][pte]") {
  ETKIT_REQUIRE_FIXTURES();
  const auto loaded = load("pte/dnf_training.pte");
  const auto& program = loaded.program;
  // spec §3.2: mutable_data_segments [{1, [0, 0, 400]}], segment 1 is 404 bytes.
  REQUIRE(program.mutable_data_segments.size() == 1);
  CHECK(program.mutable_data_segments[0].segment_index == 1);
  CHECK(program.mutable_data_segments[0].offsets == std::vector<uint64_t>{0, 0, 400});
  REQUIRE(program.segments.size() == 2);
  CHECK(program.segments[1].size == 404);
  CHECK(program.segment_data.at(1).size() == 404);
  // flatc: method names.
  REQUIRE(program.execution_plan.size() == 4);
  CHECK(program.execution_plan[0].name == "forward");
  CHECK(program.execution_plan[1].name == "__et_training_gradients_index_forward");
  CHECK(program.execution_plan[2].name == "__et_training_fqn_forward");
  CHECK(program.execution_plan[3].name == "__et_training_parameters_index_forward");
  // spec §3.2: v0 FLOAT[1,100] buffer 1 at arena 800, v1 FLOAT[1] buffer 2 at 1280.
  const auto& plan = method(program, "forward");
  const auto& v0 = value_as<pte::Tensor>(plan, 0);
  const auto& v1 = value_as<pte::Tensor>(plan, 1);
  CHECK(v0.sizes == std::vector<int32_t>{1, 100});
  CHECK(v0.data_buffer_idx == 1);
  CHECK(v0.allocation_info->memory_offset == 800);
  CHECK(v0.requires_grad);
  CHECK(v1.sizes == std::vector<int32_t>{1});
  CHECK(v1.data_buffer_idx == 2);
  CHECK(v1.allocation_info->memory_offset == 1280);
}

TEST_CASE("external_data_model.pte: constants named 'a' and 'b' stored EXTERNAL", "[fixtures][pte]") {
  ETKIT_REQUIRE_FIXTURES();
  const auto loaded = load("pte/external_data_model.pte");
  const auto& plan = method(loaded.program, "forward");
  // spec §3.4 and flatc: v0 index 0 key "a", v1 index 1 key "b", both FLOAT[2,2].
  const char* keys[] = {"a", "b"};
  for (size_t i = 0; i < 2; ++i) {
    const auto& t = value_as<pte::Tensor>(plan, i);
    REQUIRE(t.extra_tensor_info.has_value());
    CHECK(t.extra_tensor_info->location == pte::TensorDataLocation::kExternal);
    CHECK(t.extra_tensor_info->fully_qualified_name == std::optional<std::string>(keys[i]));
    CHECK(t.data_buffer_idx == i);
    CHECK(t.sizes == std::vector<int32_t>{2, 2});
    CHECK_FALSE(t.allocation_info.has_value());
  }
  CHECK(instruction_sequence(plan) == std::vector<std::string>{"aten::mul.out", "aten::add.out"});
}

TEST_CASE("lenet_tutorial.pte: old 24-byte header and the tutorial's 14 kernels", "[fixtures][pte]") {
  ETKIT_REQUIRE_FIXTURES();
  const auto loaded = load("pte/lenet_tutorial.pte");
  const auto& program = loaded.program;
  // bundled_spec.md §5.1: header 24, program_size 5744, base 5760.
  REQUIRE(program.extended_header.has_value());
  CHECK(program.extended_header->length == 24);
  CHECK(program.extended_header->program_size == 5744);
  CHECK(program.extended_header->segment_base_offset == 5760);
  CHECK(program.extended_header->segment_data_size == 0);  // absent in 24-byte headers
  // flatc: one constant segment of 246840 bytes (5760 + 246840 = 252600, the file size).
  REQUIRE(program.segments.size() == 1);
  CHECK(program.segments[0].size == 246840);
  CHECK(program.constant_segment->offsets ==
        std::vector<uint64_t>{0, 0, 608, 640, 10240, 10304, 202304, 202784, 243104, 243440, 246800});
  const auto& plan = method(program, "forward");
  CHECK(plan.values.size() == 95);
  // runtime_events.md §6: the kernels of instructions 0..13.
  CHECK(instruction_sequence(plan) ==
        std::vector<std::string>{"aten::convolution.out", "aten::relu.out", "aten::max_pool2d_with_indices.out",
                                 "aten::convolution.out", "aten::relu.out", "aten::max_pool2d_with_indices.out",
                                 "aten::permute_copy.out", "aten::addmm.out", "aten::relu.out",
                                 "aten::permute_copy.out", "aten::addmm.out", "aten::relu.out",
                                 "aten::permute_copy.out", "aten::addmm.out"});
  // flatc: input v10 FLOAT[1,1,32,32] at 37632, output v92 FLOAT[1,10] at 193600.
  CHECK(plan.inputs == std::vector<int32_t>{10});
  CHECK(plan.outputs == std::vector<int32_t>{92});
  CHECK(value_as<pte::Tensor>(plan, 10).sizes == std::vector<int32_t>{1, 1, 32, 32});
  CHECK(value_as<pte::Tensor>(plan, 10).allocation_info->memory_offset == 37632);
  CHECK(value_as<pte::Tensor>(plan, 92).allocation_info->memory_offset == 193600);
}

TEST_CASE("small aten fixtures: operators, primitive inputs and constant-only methods", "[fixtures][pte]") {
  ETKIT_REQUIRE_FIXTURES();
  SECTION("diamond.pte uses functional (non-out) overloads") {
    const auto loaded = load("pte/diamond.pte");
    const auto& plan = method(loaded.program, "forward");
    CHECK(operator_names(plan) == std::vector<std::string>{"aten::add.Tensor", "aten::mul.Tensor"});
    CHECK(plan.inputs == std::vector<int32_t>{0, 1, 2});
    CHECK(loaded.program.constant_buffer.size() == 1);  // only the placeholder
    CHECK(loaded.program.constant_buffer[0].empty());
  }
  SECTION("module_model.pte operators") {
    const auto loaded = load("pte/module_model.pte");
    const auto& plan = method(loaded.program, "forward");
    CHECK(operator_names(plan) ==
          std::vector<std::string>{"aten::mean.out", "aten::eq.Scalar_out", "aten::clone.out", "aten::where.self_out"});
    CHECK(plan.values.size() == 12);
  }
  SECTION("prim_input.pte has a Double 2.0 input") {
    const auto loaded = load("pte/prim_input.pte");
    const auto& plan = method(loaded.program, "forward");
    CHECK(plan.inputs == std::vector<int32_t>{1, 2});
    CHECK(value_as<pte::Double>(plan, 2).value == 2.0);
    CHECK(std::get<pte::KernelCall>(plan.chains.at(0).instructions.at(0)).args == std::vector<int32_t>{1, 0, 3, 3});
  }
  SECTION("const_methods.pte getters") {
    const auto loaded = load("pte/const_methods.pte");
    const auto& program = loaded.program;
    CHECK(value_as<pte::Int>(method(program, "get_scalar"), 0).value == 128);
    CHECK(value_as<pte::Double>(method(program, "get_double"), 0).value == 2.5);
    CHECK(value_as<pte::Bool>(method(program, "get_bool"), 0).value);
    const auto& t = value_as<pte::Tensor>(method(program, "get_tensor"), 0);
    CHECK(t.scalar_type == 4);
    CHECK(t.sizes == std::vector<int32_t>{3});
    CHECK(t.data_buffer_idx == 2);
    CHECK(program.constant_segment->offsets == std::vector<uint64_t>{0, 0, 16});
  }
  SECTION("multi_method.pte lists 'double' before 'forward'") {
    const auto loaded = load("pte/multi_method.pte");
    REQUIRE(loaded.program.execution_plan.size() == 2);
    CHECK(loaded.program.execution_plan[0].name == "double");
    CHECK(loaded.program.execution_plan[1].name == "forward");
  }
  SECTION("dtypes.pte mixes LONG and FLOAT tensors") {
    const auto loaded = load("pte/dtypes.pte");
    const auto& plan = method(loaded.program, "forward");
    CHECK(value_as<pte::Tensor>(plan, 0).scalar_type == 4);
    CHECK(value_as<pte::Tensor>(plan, 1).scalar_type == 6);
    CHECK(plan.outputs == std::vector<int32_t>{2, 4});
  }
}
