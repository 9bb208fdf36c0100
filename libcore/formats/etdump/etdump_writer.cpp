#include "libcore/formats/etdump/etdump_writer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <deque>
#include <new>
#include <string>
#include <unordered_map>

#include "etdump_generated.h"

namespace etkit::etdump {
namespace fb = ::etdump;
using flatbuffers::Offset;

namespace {

// The builder with what the two-pass writer needs from its internals: room
// reserved without being written (measuring), and where the vtables of the
// generic path are (it reads them again to deduplicate vtables).
class Builder : public flatbuffers::FlatBufferBuilder {
 public:
  using FlatBufferBuilder::FlatBufferBuilder;
  void skip(size_t bytes) { buf_.make_space(bytes); }
  // Align(), CreateVector() and CreateString()'s layout with nothing
  // written (not even padding or lengths), so a measuring pass leaves the
  // pages untouched.
  void skip_align(size_t alignment) {
    TrackMinAlign(alignment);
    buf_.make_space(flatbuffers::PaddingBytes(buf_.size(), alignment));
  }
  void skip_prealign(size_t length, size_t alignment) {
    if (length == 0) return;
    TrackMinAlign(alignment);
    buf_.make_space(flatbuffers::PaddingBytes(GetSize() + length, alignment));
  }
  flatbuffers::uoffset_t skip_vector(size_t count, size_t element_size) {
    skip_prealign(count * element_size, sizeof(flatbuffers::uoffset_t));
    skip_prealign(count * element_size, element_size);
    buf_.make_space(count * element_size);
    skip_align(sizeof(flatbuffers::uoffset_t));
    buf_.make_space(sizeof(flatbuffers::uoffset_t));
    return GetSize();
  }
  flatbuffers::uoffset_t skip_string(size_t length) {
    skip_prealign(length + 1, sizeof(flatbuffers::uoffset_t));
    buf_.make_space(length + 1);
    skip_align(sizeof(flatbuffers::uoffset_t));
    buf_.make_space(sizeof(flatbuffers::uoffset_t));
    return GetSize();
  }
  // CreateVector's bytes for a vector of offsets, written in one go rather
  // than element by element (a block's events, the dump's blocks): after
  // the same PreAlign calls the size is a multiple of 4, so no element
  // needs padding, and element i, stored 4 * (count - i) above that size,
  // refers to its table from there.
  template <typename T>
  flatbuffers::uoffset_t offset_vector(const std::vector<flatbuffers::Offset<T>>& v) {
    using flatbuffers::uoffset_t;
    const size_t count = v.size();
    if (count == 0) return CreateVector(v).o;
    PreAlign<uoffset_t>(count * sizeof(uoffset_t));
    PreAlign(count * sizeof(uoffset_t), sizeof(uoffset_t));
    const uoffset_t base = GetSize();
    uint8_t* p = buf_.make_space((count + 1) * sizeof(uoffset_t));
    flatbuffers::WriteScalar<uoffset_t>(p, uoffset_t(count));
    for (size_t i = 0; i < count; ++i) {
      flatbuffers::WriteScalar<uoffset_t>(p + sizeof(uoffset_t) * (i + 1),
                                          base + uoffset_t(sizeof(uoffset_t) * (count - i)) - v[i].o);
    }
    return GetSize();
  }
  // Valid between tables (outside a table the scratch area holds only the
  // offsets of the vtables written so far).
  template <typename F>
  void for_each_vtable(F&& f) const {
    if (GetSize() == 0) return;
    for (const uint8_t* it = buf_.scratch_data(); it < buf_.scratch_end(); it += sizeof(flatbuffers::uoffset_t)) {
      f(flatbuffers::ReadScalar<flatbuffers::uoffset_t>(it));
    }
  }
  // The byte at `offset` from the end of the buffer.
  uint8_t* at(flatbuffers::uoffset_t offset) const { return buf_.data_at(offset); }
};

// One private anonymous mapping per buffer, address space only until
// touched; pages the writer is done with are given back by discard().
// Streaming with an alignment, the buffer is placed so that the dump's
// offsets and their addresses agree modulo the page size, with a page of
// zeros mapped past its end (writes that must be whole blocks).
// A second allocation means the builder outgrew the announced size.
// A writing pass touches every page of the dump, each once, and gives the
// window behind it back: with 4 KiB pages that is a page fault per 4 KiB
// written, so its buffer asks for huge pages (one fault per 2 MiB; the
// kernel falls back to small pages when it has none).
class MappedAllocator : public flatbuffers::Allocator {
 public:
  explicit MappedAllocator(uint64_t dump_size = 0, bool aligned = false, bool huge = false)
      : dump_size_(dump_size), aligned_(aligned), huge_(huge) {}
  uint8_t* allocate(size_t size) override {
    if (++allocations > 1) return new uint8_t[size];
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    // The dump's first byte is at buffer + size - dump_size.
    const size_t shift = aligned_ ? (page - (size - dump_size_) % page) % page : 0;
    length_ = shift + size + (aligned_ ? page : 0);
    void* p = mmap(nullptr, length_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    if (huge_) (void)madvise(p, length_, MADV_HUGEPAGE);  // advice only: small pages work too
#endif
    mapping_ = static_cast<uint8_t*>(p);
    buffer_ = mapping_ + shift;
    return buffer_;
  }
  void deallocate(uint8_t* p, size_t) override {
    if (p == buffer_) {
      munmap(mapping_, length_);
      buffer_ = nullptr;
    } else {
      delete[] p;
    }
  }
  int allocations = 0;

 private:
  uint64_t dump_size_;
  bool aligned_;
  bool huge_;
  uint8_t* mapping_ = nullptr;
  uint8_t* buffer_ = nullptr;
  size_t length_ = 0;
};

// Room below the dump for the builder's scratch area (vtable offsets, the
// fields of the table being built).
constexpr size_t kScratchRoom = size_t(1) << 16;

}  // namespace

struct EtDumpWriter::Impl {
  enum class Mode { kInMemory, kMeasure, kStream };
  explicit Impl(size_t size_hint) : builder(size_hint) {}
  Impl(Mode m, size_t reserve, uint64_t size, ChunkSink s, size_t w, size_t a, bool keeps = false)
      : mode(m), allocator(std::make_unique<MappedAllocator>(size, a > 1, m == Mode::kStream)), builder(reserve, allocator.get()),
        stream_size(size), sink(std::move(s)), window(w < 1 ? 1 : w), align(a > 1 ? a : 1), sink_keeps_bytes(keeps) {}
  // The sink may still hold the last piece: it lets go before the buffer
  // does.
  ~Impl() { (void)release_sink(); }
  Mode mode = Mode::kInMemory;
  std::unique_ptr<MappedAllocator> allocator;  // before builder: outlives it
  Builder builder;
  uint64_t stream_size = 0;
  ChunkSink sink;
  size_t window = 0;
  size_t align = 1;  // of the offsets and sizes of writes (a power of two up to the page size)
  Status stream_error;
  // Bytes from the end already handed to the sink (measuring: let go of).
  size_t flushed = 0;
  // See streaming(): the sink holds the last piece it was given until its
  // next call (sink_holds: it has one).
  bool sink_keeps_bytes = false;
  bool sink_holds = false;
  // The sink's last call, with no bytes: it holds nothing afterwards.
  Status release_sink() {
    if (!sink_holds) return {};
    sink_holds = false;
    return sink(stream_size, ByteSpan());
  }
  // The lowest page given back so far, or null.
  uint8_t* discarded_from = nullptr;
  // Event names written so far; a runtime repeats a few hundred names over
  // millions of events.
  std::deque<std::string> name_storage;
  std::unordered_map<std::string_view, Offset<flatbuffers::String>> names;
  // The last names looked up, by address: callers pass the same few
  // string_views again and again, so most lookups end here (the bytes are
  // compared too, so a reused address with new text is not a hit).
  struct RecentName {
    const char* data = nullptr;
    std::string_view stored;  // into name_storage
    Offset<flatbuffers::String> offset;
  };
  std::array<RecentName, 64> recent_names{};
  // Vtables of hand-laid named profile events, by which fields are present
  // (see named_profile); 0 until first used.
  std::array<flatbuffers::uoffset_t, 16> profile_vtables{};
  flatbuffers::uoffset_t event_vtable = 0;
  // Vtables of the other tables laid out by hand (hand_table), by table
  // and by which fields are present; all of them in hand_vtables.
  std::array<flatbuffers::uoffset_t, 4> tensor_vtables{};
  std::array<flatbuffers::uoffset_t, 256> value_vtables{};
  std::array<flatbuffers::uoffset_t, 256> generic_profile_vtables{};
  std::array<flatbuffers::uoffset_t, 64> debug_vtables{};
  flatbuffers::uoffset_t debug_event_vtable = 0;
  // Where hand_table puts each field, beside each vtable above: a table
  // and set of present fields always has the same layout, so it is worked
  // out once (the measuring pass then only needs the size and alignment).
  struct HandLayout {
    uint16_t size = 0;  // 0 until worked out
    uint8_t align = 0;
    flatbuffers::voffset_t position[16];
  };
  std::array<HandLayout, 4> tensor_layouts{};
  std::array<HandLayout, 256> value_layouts{};
  std::array<HandLayout, 256> generic_profile_layouts{};
  std::array<HandLayout, 64> debug_layouts{};
  HandLayout event_layout, debug_event_layout;
  std::vector<flatbuffers::uoffset_t> hand_vtables;
  std::vector<Offset<fb::RunData>> runs;
  bool block_open = false;
  Offset<flatbuffers::String> block_name;
  int32_t bundled_input_index = -1;
  std::vector<Offset<fb::Allocator>> allocators;
  std::vector<Offset<fb::Event>> events;
  bool block_has_events = false;

  void close_block() {
    if (!block_open) return;
    auto allocs = allocators.empty() ? 0 : builder.CreateVector(allocators);
    // The runtime leaves `events` out of a block that received none.
    flatbuffers::Offset<flatbuffers::Vector<Offset<fb::Event>>> evs = 0;
    if (block_has_events && mode == Mode::kMeasure) {
      // CreateVector's layout, nothing written.
      evs = builder.skip_vector(events.size(), sizeof(flatbuffers::uoffset_t));
    } else if (block_has_events) {
      evs = builder.offset_vector(events);
    }
    runs.push_back(run_data(allocs, evs));
    allocators.clear();
    events.clear();
    block_has_events = false;
    block_open = false;
  }

  // Measuring, a block's RunData only takes its room once the generic path
  // made the vtable for its present fields and starting size modulo 8 (as
  // scalar_table does), so the measuring pass does not touch a page per
  // block: all four fields are 4 bytes, so the table is the soffset and the
  // present fields, 4-aligned.
  std::array<bool, 16 * 8> run_vtable_made{};
  Offset<fb::RunData> run_data(Offset<flatbuffers::Vector<Offset<fb::Allocator>>> allocs,
                               Offset<flatbuffers::Vector<Offset<fb::Event>>> evs) {
    const bool present[] = {!block_name.IsNull(), bundled_input_index != -1, !allocs.IsNull(), !evs.IsNull()};
    unsigned mask = 0, fields = 0;
    for (unsigned i = 0; i < 4; ++i) {
      mask |= unsigned(present[i]) << i;
      fields += present[i];
    }
    mask = mask * 8 + builder.GetSize() % 8;
    if (mode != Mode::kMeasure && run_layouts[mask].vtable != 0) {
      return hand_run_data(run_layouts[mask], allocs, evs);
    }
    if (mode != Mode::kMeasure || !run_vtable_made[mask]) {
      run_vtable_made[mask] = true;
      const auto table = fb::CreateRunData(builder, block_name, bundled_input_index, allocs, evs);
      if (mode != Mode::kMeasure) run_layouts[mask] = run_layout(table.o);
      return table;
    }
    builder.skip_align(sizeof(flatbuffers::uoffset_t));
    builder.skip((fields + 1) * sizeof(flatbuffers::uoffset_t));
    return Offset<fb::RunData>(builder.GetSize());
  }

  // Writing, a block's RunData is laid out by hand once the generic path
  // made one with the same present fields and starting size modulo 8: with
  // those, EndTable lays the table out the same way and its vtable search
  // finds that table's vtable again (the only one with those bytes), so
  // the hand-laid table refers to it. This spares EndTable's field
  // tracking and vtable comparisons for every block.
  struct RunLayout {
    flatbuffers::uoffset_t vtable = 0;  // 0 until the generic path made one
    flatbuffers::voffset_t size = 0;    // EndTable's object size, padding included
    flatbuffers::voffset_t position[4] = {};  // by slot; 0: absent
  };
  std::array<RunLayout, 16 * 8> run_layouts{};
  RunLayout run_layout(flatbuffers::uoffset_t table) const {
    using flatbuffers::voffset_t;
    RunLayout layout;
    // The soffset at the table's start is (vtable) - (table), both counted
    // from the buffer's end.
    layout.vtable = flatbuffers::uoffset_t(flatbuffers::soffset_t(table) +
                                           flatbuffers::ReadScalar<flatbuffers::soffset_t>(builder.at(table)));
    const uint8_t* vtable = builder.at(layout.vtable);
    const voffset_t vtable_size = flatbuffers::ReadScalar<voffset_t>(vtable);
    layout.size = flatbuffers::ReadScalar<voffset_t>(vtable + 2);
    for (size_t slot = 0; slot < 4; ++slot) {
      const size_t at = 4 + 2 * slot;
      layout.position[slot] = at < vtable_size ? flatbuffers::ReadScalar<voffset_t>(vtable + at) : voffset_t(0);
    }
    return layout;
  }
  Offset<fb::RunData> hand_run_data(const RunLayout& layout, Offset<flatbuffers::Vector<Offset<fb::Allocator>>> allocs,
                                    Offset<flatbuffers::Vector<Offset<fb::Event>>> evs) {
    // The generic path's first push aligns to 4 (every field has 4 bytes);
    // that padding is part of EndTable's object size.
    const size_t padding = flatbuffers::PaddingBytes(builder.GetSize(), sizeof(flatbuffers::uoffset_t));
    builder.Align(sizeof(flatbuffers::uoffset_t));
    const size_t size = layout.size - padding;
    const flatbuffers::uoffset_t table = builder.GetSize() + flatbuffers::uoffset_t(size);
    uint8_t bytes[32] = {};
    flatbuffers::WriteScalar<flatbuffers::soffset_t>(bytes, flatbuffers::soffset_t(layout.vtable) - flatbuffers::soffset_t(table));
    auto refer = [&](size_t slot, flatbuffers::uoffset_t target) {
      const flatbuffers::voffset_t at = layout.position[slot];
      if (at != 0) flatbuffers::WriteScalar<flatbuffers::uoffset_t>(bytes + at, (table - at) - target);
    };
    refer(0, block_name.o);
    if (layout.position[1] != 0) flatbuffers::WriteScalar<int32_t>(bytes + layout.position[1], bundled_input_index);
    refer(2, allocs.o);
    refer(3, evs.o);
    builder.PushBytes(bytes, size);
    return Offset<fb::RunData>(table);
  }

  void ensure_block() {
    if (!block_open) open_block("", -1);
  }

  void open_block(std::string_view name, int32_t index) {
    close_block();
    block_name = mode == Mode::kMeasure ? Offset<flatbuffers::String>(builder.skip_string(name.size()))
                                        : builder.CreateString(name.data(), name.size());
    bundled_input_index = index;
    block_open = true;
  }

  // One present field of a table laid out by hand: a scalar of 1, 4 or 8
  // bytes, or (size 4, `offset`) a reference to an object already built.
  struct HandField {
    flatbuffers::voffset_t slot;  // the field's index in the schema
    uint8_t size;
    bool offset;
    uint64_t value;  // the scalar's bits, or the object's offset
  };

  // A table laid out by hand, as named_profile does, for the tables every
  // debug and delegate event makes: FlatBufferBuilder's EndTable searches
  // every vtable so far for each table (most of a debug event's cost).
  // The caller leaves out fields equal to their defaults, as the generic
  // path does, and gives the vtable cached for this set of fields (`vtable`,
  // 0 until first used). The layout is the generic path's: from the table's
  // start, the soffset, padding to 4, the 1-byte fields, the 4-byte ones and
  // the 8-byte ones last, 8-aligned from the buffer's end; each group in the
  // given order. A measuring writer only takes the room (no byte of the
  // table, its padding, or the vectors and strings before it is written), so
  // the pages of the dump's bulk are touched once, by the writing pass.
  flatbuffers::uoffset_t hand_table(const HandField* fields, size_t count, flatbuffers::uoffset_t& vtable,
                                    HandLayout& layout) {
    using flatbuffers::voffset_t;
    if (layout.size == 0) {
      size_t ones = 0, fours = 0, eights = 0;
      for (size_t i = 0; i < count; ++i) {
        ones += fields[i].size == 1;
        fours += fields[i].size == 4;
        eights += fields[i].size == 8;
      }
      const size_t padding = (4 - ones % 4) % 4;
      size_t at1 = 4 + padding, at4 = at1 + ones, at8 = at4 + 4 * fours;
      for (size_t i = 0; i < count; ++i) {
        size_t& at = fields[i].size == 1 ? at1 : fields[i].size == 4 ? at4 : at8;
        layout.position[i] = voffset_t(at);
        at += fields[i].size;
      }
      layout.align = eights != 0 ? 8 : 4;
      layout.size = uint16_t(4 + padding + ones + 4 * fours + 8 * eights);
    }
    const size_t size = layout.size;
    const voffset_t* position = layout.position;
    const size_t table_align = layout.align;
    if (vtable == 0) {
      ++firsts;
      voffset_t entries[2 + 16] = {};
      size_t slots = 0;
      for (size_t i = 0; i < count; ++i) {
        slots = std::max<size_t>(slots, fields[i].slot + 1u);
        entries[2 + fields[i].slot] = position[i];
      }
      entries[0] = voffset_t(4 + 2 * slots);
      entries[1] = voffset_t(size);
      uint8_t bytes[2 * (2 + 16)];
      for (size_t i = 0; i < 2 + slots; ++i) flatbuffers::WriteScalar(bytes + 2 * i, entries[i]);
      builder.Align(sizeof(voffset_t));
      builder.PushBytes(bytes, 2 * (2 + slots));
      vtable = builder.GetSize();
      hand_vtables.push_back(vtable);
    }
    if (mode == Mode::kMeasure) {
      builder.skip_align(table_align);
      builder.skip(size);
      return builder.GetSize();
    }
    builder.Align(table_align);
    const flatbuffers::uoffset_t table = builder.GetSize() + flatbuffers::uoffset_t(size);
    uint8_t bytes[64] = {};
    // Offsets count from the buffer's end: a uoffset is (where it is stored)
    // - (its target), the soffset (the table) - (its vtable).
    flatbuffers::WriteScalar<flatbuffers::soffset_t>(bytes, flatbuffers::soffset_t(vtable) - flatbuffers::soffset_t(table));
    for (size_t i = 0; i < count; ++i) {
      uint8_t* field = bytes + position[i];
      const HandField& f = fields[i];
      if (f.offset) {
        flatbuffers::WriteScalar<flatbuffers::uoffset_t>(field, (table - position[i]) - flatbuffers::uoffset_t(f.value));
      } else if (f.size == 8) {
        flatbuffers::WriteScalar<uint64_t>(field, f.value);
      } else if (f.size == 4) {
        flatbuffers::WriteScalar<uint32_t>(field, uint32_t(f.value));
      } else {
        *field = uint8_t(f.value);
      }
    }
    builder.PushBytes(bytes, size);
    return table;
  }

  // Collects the present fields of one table and their mask (bit i: the
  // i-th field offered, present or not).
  struct Fields {
    HandField items[16];
    size_t count = 0;
    unsigned mask = 0;
    unsigned bit = 1;
    void scalar(flatbuffers::voffset_t slot, uint8_t size, uint64_t value, bool present) {
      if (present) {
        items[count++] = HandField{slot, size, false, value};
        mask |= bit;
      }
      bit <<= 1;
    }
    template <typename T>
    void offset(flatbuffers::voffset_t slot, Offset<T> o) {
      if (!o.IsNull()) {
        items[count++] = HandField{slot, 4, true, o.o};
        mask |= bit;
      }
      bit <<= 1;
    }
  };

  // Measuring, vectors and strings only take their room (see hand_table).
  template <typename T>
  Offset<flatbuffers::Vector<T>> vector(const std::vector<T>& v) {
    if (mode == Mode::kMeasure) return Offset<flatbuffers::Vector<T>>(builder.skip_vector(v.size(), sizeof(T)));
    return builder.CreateVector(v);
  }

  Offset<fb::Tensor> tensor(const Tensor& t) {
    auto sizes = vector(t.sizes);
    auto strides = vector(t.strides);
    Fields f;
    f.scalar(0, 1, uint8_t(t.scalar_type), t.scalar_type != 0);
    f.offset(1, sizes);
    f.offset(2, strides);
    f.scalar(3, 8, uint64_t(t.offset), t.offset != 0);
    // sizes and strides are always there: bits 1 and 2.
    return Offset<fb::Tensor>(hand_table(f.items, f.count, tensor_vtables[(f.mask & 1) | (f.mask >> 2 & 2)],
                                           tensor_layouts[(f.mask & 1) | (f.mask >> 2 & 2)]));
  }

  // Int, Float, Double and Bool: one scalar field, left out at its default.
  // Built the generic way (its vtable search and all); a measuring writer
  // only takes the room once the vtable for this table and presence exists
  // (the generic search would find it), the way EndTable lays the table out:
  // the field at its own alignment, then the soffset at 4. Otherwise every
  // debug event's output flag would touch its page in the measuring pass.
  // EndTable's vtable holds the table's size counted from where it started,
  // alignment padding before the field included, so the vtable also depends
  // on the builder's size modulo 8 when the table starts.
  // `kind`: 0 Int, 2 Float, 4 Double, 6 Bool; + 1 when the field is present.
  std::array<bool, 8 * 8> scalar_vtable_made{};
  template <typename Table, typename T, typename Create>
  Offset<Table> scalar_table(T value, unsigned kind, Create create) {
    const bool present = !(value == T(0));  // AddElement's test (NaN is present)
    kind = (kind + present) * 8 + builder.GetSize() % 8;
    if (mode != Mode::kMeasure || !scalar_vtable_made[kind]) {
      firsts += !scalar_vtable_made[kind];
      scalar_vtable_made[kind] = true;
      return create(builder, value);
    }
    if (present) {
      builder.skip_align(sizeof(T));
      builder.skip(sizeof(T));
    }
    builder.skip_align(sizeof(flatbuffers::soffset_t));
    builder.skip(sizeof(flatbuffers::soffset_t));
    return Offset<Table>(builder.GetSize());
  }

  Offset<fb::Value> value(const Value& v) {
    auto t = v.tensor ? tensor(*v.tensor) : 0;
    Offset<fb::TensorList> list;
    if (v.tensor_list) {
      std::vector<Offset<fb::Tensor>> items;
      for (const auto& item : *v.tensor_list) items.push_back(tensor(item));
      list = fb::CreateTensorList(builder, builder.CreateVector(items));
    }
    auto i = v.int_value ? scalar_table<fb::Int>(*v.int_value, 0, fb::CreateInt) : 0;
    auto f = v.float_value ? scalar_table<fb::Float>(*v.float_value, 2, fb::CreateFloat) : 0;
    auto d = v.double_value ? scalar_table<fb::Double>(*v.double_value, 4, fb::CreateDouble) : 0;
    auto b = v.bool_value ? scalar_table<fb::Bool>(*v.bool_value, 6, fb::CreateBool) : 0;
    auto o = v.output ? scalar_table<fb::Bool>(*v.output, 6, fb::CreateBool) : 0;
    Fields fields;
    fields.scalar(0, 1, uint8_t(v.val), v.val != ValueType::kNull);
    fields.offset(1, t);
    fields.offset(2, list);
    fields.offset(3, i);
    fields.offset(4, f);
    fields.offset(5, d);
    fields.offset(6, b);
    fields.offset(7, o);
    return Offset<fb::Value>(hand_table(fields.items, fields.count, value_vtables[fields.mask], value_layouts[fields.mask]));
  }

  Offset<flatbuffers::String> string(const std::optional<std::string>& s) {
    if (!s) return 0;
    if (mode == Mode::kMeasure) return Offset<flatbuffers::String>(builder.skip_string(s->size()));
    return builder.CreateString(*s);
  }

  Offset<fb::ProfileEvent> profile(const ProfileEvent& p) {
    auto name = string(p.name);
    auto id_str = string(p.delegate_debug_id_str);
    auto metadata = p.delegate_debug_metadata ? vector(*p.delegate_debug_metadata) : 0;
    Fields f;
    f.offset(0, name);
    f.scalar(1, 4, uint32_t(p.chain_index), p.chain_index != 0);
    f.scalar(2, 4, uint32_t(p.instruction_id), p.instruction_id != -1);
    f.scalar(3, 4, uint32_t(p.delegate_debug_id_int), p.delegate_debug_id_int != -1);
    f.offset(4, id_str);
    f.offset(5, metadata);
    f.scalar(6, 8, p.start_time, p.start_time != 0);
    f.scalar(7, 8, p.end_time, p.end_time != 0);
    return Offset<fb::ProfileEvent>(hand_table(f.items, f.count, generic_profile_vtables[f.mask],
                                                 generic_profile_layouts[f.mask]));
  }

  Offset<fb::DebugEvent> debug(const DebugEvent& d) {
    auto entry = value(d.debug_entry);
    auto id_str = string(d.delegate_debug_id_str);
    auto name = string(d.name);
    Fields f;
    f.scalar(0, 8, d.chain_index, d.chain_index != 0);
    f.scalar(1, 4, uint32_t(d.instruction_id), d.instruction_id != -1);
    f.offset(2, entry);
    f.scalar(3, 4, uint32_t(d.delegate_debug_id_int), d.delegate_debug_id_int != -1);
    f.offset(4, id_str);
    f.offset(5, name);
    return Offset<fb::DebugEvent>(hand_table(f.items, f.count, debug_vtables[f.mask & 63], debug_layouts[f.mask & 63]));
  }

  // Measuring, an event takes the room the last event of the same shape
  // took when the builder's size was the same modulo 8: the same present
  // fields, string and vector lengths and alignment padding (every
  // alignment is 8 at most) give the same layout, once the vtables it
  // needs exist. So most events are measured without laying out their
  // tables. `firsts` counts vtables written and generic tables made: an
  // event during which one was is not a shape's room.
  struct Room {
    uint64_t key = ~uint64_t(0);
    uint32_t bytes = 0;
  };
  std::array<Room, 256> rooms{};
  size_t firsts = 0;
  // An event's shape packed into 61 bits; not `ok` when a length does not
  // fit (the event is then laid out).
  struct Shape {
    uint64_t bits = 0;
    bool ok = true;
    void flag(bool b) { bits = bits << 1 | uint64_t(b); }
    void length(size_t n, int width) {
      ok = ok && (n >> width) == 0;
      bits = bits << width | (n & ((uint64_t(1) << width) - 1));
    }
  };
  template <typename T>
  static void optional_string(Shape& shape, const std::optional<T>& s, int width) {
    shape.flag(s.has_value());
    shape.length(s ? s->size() : 0, width);
  }
  template <typename T>
  static void scalar(Shape& shape, const std::optional<T>& v) {
    shape.flag(v.has_value());
    shape.flag(v && !(*v == T(0)));  // as scalar_table's test
  }
  // 1 + 19 flags + 40 bits of lengths.
  static Shape shape_of(const DebugEvent& d) {
    Shape shape;
    const Value& v = d.debug_entry;
    shape.ok = !v.tensor_list;
    shape.flag(true);
    shape.flag(d.chain_index != 0);
    shape.flag(d.instruction_id != -1);
    shape.flag(d.delegate_debug_id_int != -1);
    optional_string(shape, d.delegate_debug_id_str, 12);
    optional_string(shape, d.name, 12);
    shape.flag(v.val != ValueType::kNull);
    shape.flag(v.tensor.has_value());
    shape.flag(v.tensor && v.tensor->scalar_type != 0);
    shape.flag(v.tensor && v.tensor->offset != 0);
    shape.length(v.tensor ? v.tensor->sizes.size() : 0, 8);
    shape.length(v.tensor ? v.tensor->strides.size() : 0, 8);
    scalar(shape, v.int_value);
    scalar(shape, v.float_value);
    scalar(shape, v.double_value);
    scalar(shape, v.bool_value);
    scalar(shape, v.output);
    return shape;
  }
  // 1 + 8 flags + 40 bits of lengths.
  static Shape shape_of(const ProfileEvent& p) {
    Shape shape;
    shape.flag(false);
    optional_string(shape, p.name, 12);
    shape.flag(p.chain_index != 0);
    shape.flag(p.instruction_id != -1);
    shape.flag(p.delegate_debug_id_int != -1);
    optional_string(shape, p.delegate_debug_id_str, 12);
    optional_string(shape, p.delegate_debug_metadata, 16);
    shape.flag(p.start_time != 0);
    shape.flag(p.end_time != 0);
    return shape;
  }
  // The event laid out by `lay`, or measuring, its room taken at once when
  // known.
  template <typename E, typename Lay>
  Offset<fb::Event> measured(const E& event, Lay&& lay) {
    if (mode != Mode::kMeasure) return lay();
    const Shape shape = shape_of(event);
    if (!shape.ok) return lay();
    const uint64_t key = shape.bits << 3 | builder.GetSize() % 8;
    Room& room = rooms[(key * 0x9E3779B97F4A7C15ull) >> 56];
    if (room.key == key) {
      builder.skip(room.bytes);
      return Offset<fb::Event>(builder.GetSize());
    }
    const size_t before = builder.GetSize(), firsts_before = firsts;
    const Offset<fb::Event> laid = lay();
    if (firsts == firsts_before) room = Room{key, uint32_t(builder.GetSize() - before)};
    return laid;
  }

  // The Event wrapping one profile or debug event.
  Offset<fb::Event> event_of(Offset<fb::ProfileEvent> p) {
    const HandField field{0, 4, true, p.o};
    return Offset<fb::Event>(hand_table(&field, 1, event_vtable, event_layout));
  }
  Offset<fb::Event> event_of(Offset<fb::DebugEvent> d) {
    const HandField field{2, 4, true, d.o};
    return Offset<fb::Event>(hand_table(&field, 1, debug_event_vtable, debug_event_layout));
  }

  // Names by the caller's index (see add_profile_event): 0 until first used.
  std::vector<Offset<flatbuffers::String>> indexed_names;
  Offset<flatbuffers::String> indexed_name(uint32_t index, std::string_view name) {
    if (index < indexed_names.size() && !indexed_names[index].IsNull()) [[likely]] return indexed_names[index];
    if (index >= indexed_names.size()) indexed_names.resize(size_t(index) + 1);
    return indexed_names[index] = shared_name(name);
  }

  Offset<flatbuffers::String> shared_name(std::string_view name) {
    RecentName& recent = recent_names[(reinterpret_cast<uintptr_t>(name.data()) >> 3) % recent_names.size()];
    if (recent.data == name.data() && recent.data != nullptr && recent.stored == name) return recent.offset;
    auto it = names.find(name);
    if (it == names.end()) {
      auto offset = builder.CreateString(name.data(), name.size());
      it = names.emplace(name_storage.emplace_back(name), offset).first;
    }
    recent = RecentName{name.data(), it->first, it->second};
    return it->second;
  }

  flatbuffers::uoffset_t push_vtable(std::initializer_list<flatbuffers::voffset_t> entries) {
    uint8_t bytes[2 * 10];
    size_t n = 0;
    for (auto e : entries) flatbuffers::WriteScalar(bytes + 2 * n++, e);
    builder.Align(sizeof(flatbuffers::voffset_t));
    builder.PushBytes(bytes, 2 * n);
    return builder.GetSize();
  }

  // A named profile event with no delegate fields, the runtime's common
  // case, laid out by hand: the generic path's per-table field tracking and
  // vtable search cost more than the event itself. Memory order, 40 bytes,
  // 8-aligned:
  //   Event        +0 soffset to its vtable, +4 uoffset to the ProfileEvent
  //   ProfileEvent +8 soffset, +12 name, +16 chain_index, +20 instruction_id,
  //                +24 start_time, +32 end_time
  // A field equal to its default is left out of the vtable (its bytes stay,
  // unreferenced), as the generic path leaves it out of the table.
  Offset<fb::Event> named_profile(Offset<flatbuffers::String> name, int32_t chain, int32_t instruction,
                                  uint64_t start, uint64_t end) {
    using flatbuffers::voffset_t;
    const unsigned present = (chain != 0 ? 1u : 0u) | (instruction != -1 ? 2u : 0u) | (start != 0 ? 4u : 0u) |
                             (end != 0 ? 8u : 0u);
    if (profile_vtables[present] == 0) {
      // Slots in schema order: name, chain_index, instruction_id,
      // delegate_debug_id_int, delegate_debug_id_str, delegate_debug_metadata,
      // start_time, end_time.
      profile_vtables[present] = push_vtable({voffset_t(4 + 2 * 8), 32, 4, voffset_t(present & 1 ? 8 : 0),
                                              voffset_t(present & 2 ? 12 : 0), 0, 0, 0,
                                              voffset_t(present & 4 ? 16 : 0), voffset_t(present & 8 ? 24 : 0)});
    }
    if (event_vtable == 0) event_vtable = push_vtable({voffset_t(4 + 2 * 1), 8, 4});
    builder.Align(8);
    const flatbuffers::uoffset_t base = builder.GetSize();
    if (mode == Mode::kMeasure) {
      builder.skip(40);
      return Offset<fb::Event>(base + 40);
    }
    const flatbuffers::uoffset_t event_at = base + 40;
    const flatbuffers::uoffset_t profile_at = base + 32;
    uint8_t bytes[40];
    // Offsets count from the buffer's end: a uoffset is (where it is stored)
    // - (its target), a soffset (the table) - (its vtable).
    flatbuffers::WriteScalar<flatbuffers::soffset_t>(bytes + 0, flatbuffers::soffset_t(event_vtable) - flatbuffers::soffset_t(event_at));
    flatbuffers::WriteScalar<flatbuffers::uoffset_t>(bytes + 4, (base + 36) - profile_at);
    flatbuffers::WriteScalar<flatbuffers::soffset_t>(bytes + 8, flatbuffers::soffset_t(profile_vtables[present]) - flatbuffers::soffset_t(profile_at));
    flatbuffers::WriteScalar<flatbuffers::uoffset_t>(bytes + 12, (base + 28) - name.o);
    flatbuffers::WriteScalar<int32_t>(bytes + 16, chain);
    flatbuffers::WriteScalar<int32_t>(bytes + 20, instruction);
    flatbuffers::WriteScalar<uint64_t>(bytes + 24, start);
    flatbuffers::WriteScalar<uint64_t>(bytes + 32, end);
    builder.PushBytes(bytes, sizeof(bytes));
    return Offset<fb::Event>(event_at);
  }

  void push(Offset<fb::Event> event) {
    events.push_back(event);
    block_has_events = true;
    if (mode != Mode::kInMemory && builder.GetSize() - flushed >= window) [[unlikely]] flush();
  }

  // Streaming: the bytes built since the last flush go to the sink, at
  // their offset from the dump's start (bytes are final once built: the
  // builder only ever writes below what it has built); with an alignment,
  // from the first aligned offset at or above the cursor, the first write
  // padded with zeros past the dump's end. Both passes then give back the
  // pages they are done with, but for those holding vtables, which the
  // builder reads again.
  void flush() {
    const size_t size = builder.GetSize();
    if (size == flushed) return;
    // Once the sink has failed, nothing more is written (and this is not
    // called again for every event).
    if (mode == Mode::kStream && !stream_error.ok()) {
      flushed = size;
      return;
    }
    if (mode == Mode::kStream) {
      if (size > stream_size || allocator->allocations > 1) {
        stream_error = Error{ErrorKind::kIo, {}, {}, "the ETDump outgrew its measured size of " +
                                                         std::to_string(stream_size) + " bytes"};
        flushed = size;
        return;
      }
      const uint64_t from = (stream_size - size + align - 1) & ~uint64_t(align - 1);
      uint64_t to = stream_size - flushed;
      if (flushed == 0) to = (to + align - 1) & ~uint64_t(align - 1);
      if (to > from) {
        // A sink keeping its pieces is done with the one before once it
        // returns: that one's pages go, the new one's stay.
        const size_t held = flushed;
        stream_error = sink(from, ByteSpan(builder.at(flatbuffers::uoffset_t(stream_size - from)), size_t(to - from)));
        sink_holds = sink_keeps_bytes && stream_error.ok();
        flushed = size_t(stream_size - from);
        if (sink_holds) return discard(reinterpret_cast<uintptr_t>(builder.at(flatbuffers::uoffset_t(held))));
      }
    } else {
      flushed = size;
    }
    discard(reinterpret_cast<uintptr_t>(builder.GetCurrentBufferPointer()));
  }

  // Gives back the pages from the one holding `bottom` (exclusive: it may
  // still be built or held) up to what was given back before.
  void discard(uintptr_t bottom) {
    // After a reallocation the pages given back so far were another
    // mapping's: nothing more is given back.
    if (allocator->allocations > 1) return;
    static const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
    const uintptr_t from = (bottom + page - 1) & ~(page - 1);
    const uintptr_t to = discarded_from ? reinterpret_cast<uintptr_t>(discarded_from)
                                        : (reinterpret_cast<uintptr_t>(builder.at(0)) & ~(page - 1));
    if (from >= to) return;
    std::vector<uintptr_t> kept;  // pages holding (part of) a vtable
    auto keep = [&](flatbuffers::uoffset_t offset) {
      const uint8_t* vtable = builder.at(offset);
      const uintptr_t first = reinterpret_cast<uintptr_t>(vtable);
      const uintptr_t last = first + flatbuffers::ReadScalar<flatbuffers::voffset_t>(vtable) - 1;
      for (uintptr_t p = first & ~(page - 1); p <= last; p += page) {
        if (p >= from && p < to) kept.push_back(p);
      }
    };
    builder.for_each_vtable(keep);
    for (auto v : profile_vtables) {
      if (v != 0) keep(v);
    }
    if (event_vtable != 0) keep(event_vtable);
    for (auto v : hand_vtables) keep(v);
    std::sort(kept.begin(), kept.end());
    uintptr_t start = from;
    for (uintptr_t p : kept) {
      if (p > start) madvise(reinterpret_cast<void*>(start), p - start, MADV_DONTNEED);
      start = std::max(start, p + page);
    }
    if (to > start) madvise(reinterpret_cast<void*>(start), to - start, MADV_DONTNEED);
    discarded_from = reinterpret_cast<uint8_t*>(from);
  }
};

EtDumpWriter::EtDumpWriter(size_t size_hint) : impl_(std::make_unique<Impl>(size_hint)) {}
EtDumpWriter::EtDumpWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
EtDumpWriter::~EtDumpWriter() = default;

std::unique_ptr<EtDumpWriter> EtDumpWriter::measuring(size_t size_hint, size_t window) {
  return std::unique_ptr<EtDumpWriter>(new EtDumpWriter(
      std::make_unique<Impl>(Impl::Mode::kMeasure, size_hint + kScratchRoom, 0, nullptr, window, 1)));
}

std::unique_ptr<EtDumpWriter> EtDumpWriter::streaming(uint64_t size, ChunkSink sink, size_t window, size_t align,
                                                     bool sink_keeps_bytes) {
  return std::unique_ptr<EtDumpWriter>(new EtDumpWriter(std::make_unique<Impl>(
      Impl::Mode::kStream, size_t(size) + kScratchRoom, size, std::move(sink), window, align, sink_keeps_bytes)));
}

bool EtDumpWriter::failed() const { return !impl_->stream_error.ok(); }

void EtDumpWriter::begin_block(std::string_view name, int32_t bundled_input_index) {
  impl_->open_block(name, bundled_input_index);
}

int32_t EtDumpWriter::add_allocator(std::string_view name) {
  impl_->ensure_block();
  impl_->allocators.push_back(fb::CreateAllocator(impl_->builder, impl_->builder.CreateString(name.data(), name.size())));
  return static_cast<int32_t>(impl_->allocators.size());
}

void EtDumpWriter::add_profile_event(const ProfileEvent& event) {
  impl_->ensure_block();
  impl_->push(impl_->measured(event, [&] { return impl_->event_of(impl_->profile(event)); }));
}

void EtDumpWriter::add_profile_event(std::string_view name, int32_t chain_index, int32_t instruction_id,
                                     uint64_t start_time, uint64_t end_time) {
  impl_->ensure_block();
  auto n = impl_->shared_name(name);
  impl_->push(impl_->named_profile(n, chain_index, instruction_id, start_time, end_time));
}

void EtDumpWriter::add_profile_event(uint32_t name_index, std::string_view name, int32_t chain_index,
                                     int32_t instruction_id, uint64_t start_time, uint64_t end_time) {
  impl_->ensure_block();
  auto n = impl_->indexed_name(name_index, name);
  impl_->push(impl_->named_profile(n, chain_index, instruction_id, start_time, end_time));
}

void EtDumpWriter::add_allocation_event(const AllocationEvent& event) {
  impl_->ensure_block();
  auto a = fb::CreateAllocationEvent(impl_->builder, event.allocator_id, event.allocation_size);
  impl_->push(fb::CreateEvent(impl_->builder, 0, a));
}

void EtDumpWriter::add_debug_event(const DebugEvent& event) {
  impl_->ensure_block();
  impl_->push(impl_->measured(event, [&] { return impl_->event_of(impl_->debug(event)); }));
}

void EtDumpWriter::add_event(const Event& event) {
  impl_->ensure_block();
  auto p = event.profile_event ? impl_->profile(*event.profile_event) : 0;
  auto a = event.allocation_event
               ? fb::CreateAllocationEvent(impl_->builder, event.allocation_event->allocator_id,
                                           event.allocation_event->allocation_size)
               : 0;
  auto d = event.debug_event ? impl_->debug(*event.debug_event) : 0;
  // One member, as add_profile_event and add_debug_event write it (the
  // same bytes for the same event whichever call made it).
  if (!p.IsNull() && a.IsNull() && d.IsNull()) return impl_->push(impl_->event_of(p));
  if (p.IsNull() && a.IsNull() && !d.IsNull()) return impl_->push(impl_->event_of(d));
  impl_->push(fb::CreateEvent(impl_->builder, p, a, d));
}

Status EtDumpWriter::finish(const std::function<Status(ByteSpan)>& sink) {
  impl_->close_block();
  auto runs = Offset<flatbuffers::Vector<Offset<fb::RunData>>>(impl_->builder.offset_vector(impl_->runs));
  auto root = fb::CreateETDump(impl_->builder, 0, runs);
  impl_->builder.FinishSizePrefixed(root, kIdentifier.data());
  Status s = sink(ByteSpan(impl_->builder.GetBufferPointer(), impl_->builder.GetSize()));
  impl_ = std::make_unique<Impl>(size_t(1) << 20);
  return s;
}

Result<uint64_t> EtDumpWriter::finish_streamed() {
  Impl& impl = *impl_;
  impl.close_block();
  auto runs = Offset<flatbuffers::Vector<Offset<fb::RunData>>>(impl.builder.offset_vector(impl.runs));
  auto root = fb::CreateETDump(impl.builder, 0, runs);
  impl.builder.FinishSizePrefixed(root, kIdentifier.data());
  const uint64_t size = impl.builder.GetSize();
  if (impl.mode == Impl::Mode::kStream) {
    impl.flush();
    Status released = impl.release_sink();
    if (impl.stream_error.ok() && !released.ok()) impl.stream_error = std::move(released);
    if (impl.stream_error.ok() && size != impl.stream_size) {
      impl.stream_error = Error{ErrorKind::kIo, {}, {}, "the ETDump has " + std::to_string(size) +
                                                            " bytes, not its measured " +
                                                            std::to_string(impl.stream_size)};
    }
  }
  Status s = std::move(impl.stream_error);
  impl_ = std::make_unique<Impl>(size_t(1) << 20);
  if (!s.ok()) return std::move(s).error();
  return size;
}

std::vector<uint8_t> EtDumpWriter::finish() {
  std::vector<uint8_t> out;
  (void)finish([&](ByteSpan bytes) -> Status {
    out.assign(bytes.begin(), bytes.end());
    return {};
  });
  return out;
}

std::vector<uint8_t> write_etdump(const EtDump& dump) {
  EtDumpWriter writer;
  for (const auto& run : dump.run_data) {
    writer.begin_block(run.name, run.bundled_input_index);
    if (run.allocators) {
      for (const auto& a : *run.allocators) writer.add_allocator(a);
    }
    if (run.events) {
      for (const auto& e : *run.events) writer.add_event(e);
    }
  }
  return writer.finish();
}

}  // namespace etkit::etdump
