#include "libcore/formats/program/program_writer.h"

#include <cstring>

#include "program_generated.h"

namespace etkit::pte {
namespace fb = executorch_flatbuffer;
using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

namespace {

// The header occupies bytes 8..8+padded length; 16 is the largest force_align
// in the program schema (pte_spec.md §1.2).
constexpr uint64_t kHeaderPadding = 16;

Offset<fb::Tensor> build_tensor(FlatBufferBuilder& b, const Tensor& t) {
  auto sizes = b.CreateVector(t.sizes);
  auto dim_order = b.CreateVector(t.dim_order);
  Offset<fb::AllocationDetails> alloc;
  if (t.allocation_info) {
    alloc = fb::CreateAllocationDetails(b, t.allocation_info->memory_id,
                                        static_cast<uint32_t>(t.allocation_info->memory_offset),
                                        static_cast<uint32_t>(t.allocation_info->memory_offset >> 32));
  }
  Offset<fb::ExtraTensorInfo> extra;
  if (t.extra_tensor_info) {
    const auto& e = *t.extra_tensor_info;
    auto fqn = e.fully_qualified_name ? b.CreateString(*e.fully_qualified_name) : Offset<flatbuffers::String>();
    extra = fb::CreateExtraTensorInfo(b, e.mutable_data_segments_idx, fqn,
                                      static_cast<fb::TensorDataLocation>(e.location),
                                      static_cast<fb::DeviceType>(e.device_type), e.device_index);
  }
  return fb::CreateTensor(b, static_cast<fb::ScalarType>(t.scalar_type), t.storage_offset, sizes, dim_order,
                          t.requires_grad, t.data_buffer_idx, alloc, t.layout,
                          static_cast<fb::TensorShapeDynamism>(t.shape_dynamism), extra);
}

Offset<fb::EValue> build_value(FlatBufferBuilder& b, const EValue& value) {
  auto tag = static_cast<fb::KernelTypes>(value.index() + 1);
  Offset<void> val = std::visit(
      [&](const auto& v) -> Offset<void> {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, Null>) return fb::CreateNull(b).Union();
        else if constexpr (std::is_same_v<T, Int>) return fb::CreateInt(b, v.value).Union();
        else if constexpr (std::is_same_v<T, Bool>) return fb::CreateBool(b, v.value).Union();
        else if constexpr (std::is_same_v<T, Double>) return fb::CreateDouble(b, v.value).Union();
        else if constexpr (std::is_same_v<T, Tensor>) return build_tensor(b, v).Union();
        else if constexpr (std::is_same_v<T, String>) return fb::CreateString(b, b.CreateString(v.value)).Union();
        else if constexpr (std::is_same_v<T, IntList>) return fb::CreateIntList(b, b.CreateVector(v.items)).Union();
        else if constexpr (std::is_same_v<T, DoubleList>) return fb::CreateDoubleList(b, b.CreateVector(v.items)).Union();
        else if constexpr (std::is_same_v<T, BoolList>) {
          std::vector<uint8_t> items(v.items.begin(), v.items.end());
          return fb::CreateBoolList(b, b.CreateVector(items)).Union();
        } else if constexpr (std::is_same_v<T, TensorList>) return fb::CreateTensorList(b, b.CreateVector(v.items)).Union();
        else return fb::CreateOptionalTensorList(b, b.CreateVector(v.items)).Union();
      },
      value);
  return fb::CreateEValue(b, tag, val);
}

Offset<fb::Instruction> build_instruction(FlatBufferBuilder& b, const Instruction& instruction) {
  auto tag = static_cast<fb::InstructionArguments>(instruction.index() + 1);
  Offset<void> args = std::visit(
      [&](const auto& i) -> Offset<void> {
        using T = std::decay_t<decltype(i)>;
        if constexpr (std::is_same_v<T, KernelCall>) return fb::CreateKernelCall(b, i.op_index, b.CreateVector(i.args)).Union();
        else if constexpr (std::is_same_v<T, DelegateCall>) return fb::CreateDelegateCall(b, i.delegate_index, b.CreateVector(i.args)).Union();
        else if constexpr (std::is_same_v<T, MoveCall>) return fb::CreateMoveCall(b, i.move_from, i.move_to).Union();
        else if constexpr (std::is_same_v<T, JumpFalseCall>) return fb::CreateJumpFalseCall(b, i.cond_value_index, i.destination_instruction).Union();
        else return fb::CreateFreeCall(b, i.value_index).Union();
      },
      instruction);
  return fb::CreateInstruction(b, tag, args);
}

Offset<fb::ExecutionPlan> build_plan(FlatBufferBuilder& b, const ExecutionPlan& plan) {
  auto name = b.CreateString(plan.name);
  Offset<fb::ContainerMetadata> meta;
  if (plan.encoded_inp_str || plan.encoded_out_str) {
    meta = fb::CreateContainerMetadata(b, plan.encoded_inp_str ? b.CreateString(*plan.encoded_inp_str) : 0,
                                       plan.encoded_out_str ? b.CreateString(*plan.encoded_out_str) : 0);
  }
  std::vector<Offset<fb::EValue>> values;
  values.reserve(plan.values.size());
  for (const auto& v : plan.values) values.push_back(build_value(b, v));
  auto values_vec = b.CreateVector(values);
  auto inputs = b.CreateVector(plan.inputs);
  auto outputs = b.CreateVector(plan.outputs);
  std::vector<Offset<fb::Chain>> chains;
  for (const auto& chain : plan.chains) {
    std::vector<Offset<fb::Instruction>> instructions;
    for (const auto& i : chain.instructions) instructions.push_back(build_instruction(b, i));
    Offset<flatbuffers::Vector<Offset<fb::FrameList>>> stack;
    if (!chain.stacktrace.empty()) {
      std::vector<Offset<fb::FrameList>> lists;
      for (const auto& frames : chain.stacktrace) {
        std::vector<Offset<fb::Frame>> items;
        for (const auto& f : frames) {
          items.push_back(fb::CreateFrame(b, b.CreateString(f.filename), f.lineno, b.CreateString(f.name),
                                          b.CreateString(f.context)));
        }
        lists.push_back(fb::CreateFrameList(b, b.CreateVector(items)));
      }
      stack = b.CreateVector(lists);
    }
    chains.push_back(fb::CreateChain(b, b.CreateVector(chain.inputs), b.CreateVector(chain.outputs),
                                     b.CreateVector(instructions), stack));
  }
  auto chains_vec = b.CreateVector(chains);
  std::vector<Offset<fb::Operator>> operators;
  for (const auto& op : plan.operators) {
    operators.push_back(fb::CreateOperator(b, b.CreateString(op.name), b.CreateString(op.overload)));
  }
  auto operators_vec = b.CreateVector(operators);
  std::vector<Offset<fb::BackendDelegate>> delegates;
  for (const auto& d : plan.delegates) {
    std::vector<Offset<fb::CompileSpec>> specs;
    for (const auto& s : d.compile_specs) {
      specs.push_back(fb::CreateCompileSpec(b, b.CreateString(s.key), b.CreateVector(s.value)));
    }
    auto ref = fb::CreateBackendDelegateDataReference(b, static_cast<fb::DataLocation>(d.location), d.index);
    delegates.push_back(fb::CreateBackendDelegate(b, b.CreateString(d.id), ref, b.CreateVector(specs)));
  }
  auto delegates_vec = b.CreateVector(delegates);
  auto buffer_sizes = b.CreateVector(plan.non_const_buffer_sizes);
  Offset<flatbuffers::Vector<Offset<fb::NonConstBufferDevice>>> devices;
  if (!plan.non_const_buffer_device.empty()) {
    std::vector<Offset<fb::NonConstBufferDevice>> items;
    for (const auto& d : plan.non_const_buffer_device) {
      items.push_back(fb::CreateNonConstBufferDevice(b, d.buffer_idx, static_cast<fb::DeviceType>(d.device_type),
                                                     d.device_index));
    }
    devices = b.CreateVector(items);
  }
  return fb::CreateExecutionPlan(b, name, meta, values_vec, inputs, outputs, chains_vec, operators_vec,
                                 delegates_vec, buffer_sizes, devices);
}

template <typename Table, typename CreateFn>
Offset<flatbuffers::Vector<Offset<Table>>> build_aligned_blobs(FlatBufferBuilder& b, const std::vector<ByteSpan>& blobs,
                                                              CreateFn create) {
  std::vector<Offset<Table>> items;
  for (const auto& blob : blobs) {
    b.ForceVectorAlignment(blob.size(), 1, 16);  // force_align: 16 in the schema
    items.push_back(create(b, b.CreateVector(blob.data(), blob.size())));
  }
  return b.CreateVector(items);
}

constexpr uint64_t kMaxSegmentGap = uint64_t(64) << 10;

Status check_segments(const std::vector<DataSegment>& segments, const std::vector<ByteSpan>& data) {
  if (segments.size() != data.size()) {
    return bad_input("segments lists " + std::to_string(segments.size()) + " entries but " +
                     std::to_string(data.size()) + " segment data blobs are given", "segments");
  }
  uint64_t end = 0;
  for (size_t i = 0; i < segments.size(); ++i) {
    const auto where = "segments[" + std::to_string(i) + "]";
    if (segments[i].size != data[i].size()) {
      return bad_input("size " + std::to_string(segments[i].size) + " differs from its data (" +
                       std::to_string(data[i].size()) + " bytes)", where);
    }
    if (segments[i].offset < end) {
      return bad_input("offset " + std::to_string(segments[i].offset) + " overlaps the previous segment", where);
    }
    // Only alignment padding may separate segments (ExecuTorch aligns them to
    // at most a 64 KiB page): the output is never much larger than its data.
    if (segments[i].offset - end > kMaxSegmentGap) {
      return bad_input("offset " + std::to_string(segments[i].offset) + " leaves a gap of " +
                           std::to_string(segments[i].offset - end) + " bytes after the previous segment (at most " +
                           std::to_string(kMaxSegmentGap) + " of alignment padding)",
                       where);
    }
    end = segments[i].offset + segments[i].size;
  }
  return {};
}

}  // namespace

std::vector<DataSegment> layout_segments(const std::vector<ByteSpan>& segment_data) {
  std::vector<DataSegment> out;
  uint64_t end = 0;
  for (const auto& data : segment_data) {
    const uint64_t offset = align_up(end, kSegmentAlignment);
    out.push_back(DataSegment{offset, data.size()});
    end = offset + data.size();
  }
  return out;
}

Result<std::vector<uint8_t>> assemble_program_file(ByteSpan flatbuffer, const std::vector<DataSegment>& segments,
                                                   const std::vector<ByteSpan>& segment_data,
                                                   uint32_t header_length) {
  ETKIT_TRY(check_segments(segments, segment_data));
  if (header_length != 24 && header_length != 32) {
    return bad_input("extended header length must be 24 or 32, not " + std::to_string(header_length));
  }
  if (flatbuffer.size() < 8) return bad_input("program FlatBuffer too short");
  uint64_t data_size = 0;
  for (const auto& s : segments) data_size = s.offset + s.size;
  if (data_size == 0) return std::vector<uint8_t>(flatbuffer.begin(), flatbuffer.end());

  const uint64_t inserted = align_up(header_length, kHeaderPadding);
  const uint64_t program_size = flatbuffer.size() + inserted;
  const uint64_t base = align_up(program_size, kSegmentAlignment);
  std::vector<uint8_t> out(base + data_size, 0);
  std::memcpy(out.data(), flatbuffer.data(), 8);
  std::memcpy(out.data() + 8 + inserted, flatbuffer.data() + 8, flatbuffer.size() - 8);
  // Every uoffset points forward, so only the root offset crosses the header.
  store_u32_le(out.data(), load_u32_le(flatbuffer.data()) + static_cast<uint32_t>(inserted));
  std::memcpy(out.data() + 8, "eh00", 4);
  store_u32_le(out.data() + 12, header_length);
  store_u64_le(out.data() + 16, program_size);
  store_u64_le(out.data() + 24, base);
  if (header_length >= 32) store_u64_le(out.data() + 32, data_size);
  for (size_t i = 0; i < segments.size(); ++i) {
    if (!segment_data[i].empty()) std::memcpy(out.data() + base + segments[i].offset, segment_data[i].data(), segment_data[i].size());
  }
  return out;
}

Result<std::vector<uint8_t>> write_program(const Program& program) {
  FlatBufferBuilder b(1 << 16);
  std::vector<Offset<fb::ExecutionPlan>> plans;
  for (const auto& plan : program.execution_plan) plans.push_back(build_plan(b, plan));
  auto plans_vec = b.CreateVector(plans);
  auto constant_buffer = build_aligned_blobs<fb::Buffer>(b, program.constant_buffer, [](auto& bb, auto v) {
    return fb::CreateBuffer(bb, v);
  });
  auto delegate_data = build_aligned_blobs<fb::BackendDelegateInlineData>(
      b, program.backend_delegate_data, [](auto& bb, auto v) { return fb::CreateBackendDelegateInlineData(bb, v); });

  const std::vector<DataSegment> segments =
      program.segments.empty() ? layout_segments(program.segment_data) : program.segments;
  ETKIT_TRY(check_segments(segments, program.segment_data));
  std::vector<Offset<fb::DataSegment>> segment_tables;
  for (const auto& s : segments) segment_tables.push_back(fb::CreateDataSegment(b, s.offset, s.size));
  auto segments_vec = b.CreateVector(segment_tables);

  auto build_subsegment = [&](const SubsegmentOffsets& s) {
    return fb::CreateSubsegmentOffsets(b, s.segment_index, b.CreateVector(s.offsets));
  };
  Offset<fb::SubsegmentOffsets> constant_segment;
  if (program.constant_segment) constant_segment = build_subsegment(*program.constant_segment);
  Offset<flatbuffers::Vector<Offset<fb::SubsegmentOffsets>>> mutable_segments;
  if (!program.mutable_data_segments.empty()) {
    std::vector<Offset<fb::SubsegmentOffsets>> items;
    for (const auto& s : program.mutable_data_segments) items.push_back(build_subsegment(s));
    mutable_segments = b.CreateVector(items);
  }
  Offset<flatbuffers::Vector<Offset<fb::NamedData>>> named;
  if (!program.named_data.empty()) {
    std::vector<Offset<fb::NamedData>> items;
    for (const auto& n : program.named_data) items.push_back(fb::CreateNamedData(b, b.CreateString(n.key), n.segment_index));
    named = b.CreateVector(items);
  }
  auto root = fb::CreateProgram(b, program.version, plans_vec, constant_buffer, delegate_data, segments_vec,
                                constant_segment, mutable_segments, named);
  fb::FinishProgramBuffer(b, root);
  const uint32_t header_length = program.extended_header ? program.extended_header->length : 32;
  return assemble_program_file(ByteSpan(b.GetBufferPointer(), b.GetSize()), segments, program.segment_data,
                               header_length >= 32 ? 32 : 24);
}

}  // namespace etkit::pte
