// The restricted unpickler and torch.save archives. Pickles are written here
// byte by byte from the pickle protocol (Lib/pickletools.py documents each
// opcode), independently of the library's own pickle writer.
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "libcore/formats/etrecord/torch_pickle.h"
#include "libcore/formats/etrecord/torch_save.h"
#include "libcore/formats/etrecord/zip_archive.h"
#include "tests/support/test_support.h"

using namespace etkit;
using namespace etkit::etrecord;

namespace {

// A pickle under construction.
struct P {
  std::vector<uint8_t> b;
  P& op(uint8_t c) {
    b.push_back(c);
    return *this;
  }
  P& raw(std::string_view s) {
    b.insert(b.end(), s.begin(), s.end());
    return *this;
  }
  P& u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) b.push_back(uint8_t(v >> (8 * i)));
    return *this;
  }
  P& proto2() { return op(0x80).op(2); }
  P& unicode(std::string_view s) { return op('X').u32(uint32_t(s.size())).raw(s); }  // BINUNICODE
  P& int1(uint8_t v) { return op('K').op(v); }                                         // BININT1
  P& global(std::string_view module, std::string_view name) { return op('c').raw(module).op('\n').raw(name).op('\n'); }
  P& put(uint8_t i) { return op('q').op(i); }  // BINPUT
  // ('storage', torch.<cls>, key, 'cpu', numel) BINPERSID
  P& storage(std::string_view cls, std::string_view key, uint8_t numel) {
    return op('(').unicode("storage").global("torch", cls).unicode(key).unicode("cpu").int1(numel).op('t').op('Q');
  }
  P& empty_ordered_dict() { return global("collections", "OrderedDict").op(')').op('R'); }
  // _rebuild_tensor_v2(storage, offset, sizes, strides, False, OrderedDict())
  P& tensor(std::string_view cls, std::string_view key, uint8_t numel, uint8_t offset, std::vector<uint8_t> sizes,
            std::vector<uint8_t> strides, bool requires_grad = false) {
    global("torch._utils", "_rebuild_tensor_v2");
    op('(').storage(cls, key, numel).int1(offset);
    op('(');
    for (uint8_t s : sizes) int1(s);
    op('t').op('(');
    for (uint8_t s : strides) int1(s);
    op('t').op(requires_grad ? 0x88 : 0x89).empty_ordered_dict().op('t').op('R');
    return *this;
  }
  P& stop() { return op('.'); }
};

ByteSpan span(const std::vector<uint8_t>& v) { return ByteSpan(v); }
ByteSpan span(std::string_view s) { return ByteSpan(reinterpret_cast<const uint8_t*>(s.data()), s.size()); }

std::vector<uint8_t> floats_bytes(const std::vector<float>& v) {
  std::vector<uint8_t> out(v.size() * 4);
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

std::vector<uint8_t> archive(const std::vector<uint8_t>& pkl, const std::vector<std::pair<std::string, std::vector<uint8_t>>>& data,
                             const std::string& root = "archive") {
  std::vector<std::pair<std::string, ByteSpan>> entries;
  entries.emplace_back(root + "/data.pkl", span(pkl));
  entries.emplace_back(root + "/byteorder", span("little"));
  for (const auto& [key, bytes] : data) entries.emplace_back(root + "/data/" + key, span(bytes));
  entries.emplace_back(root + "/version", span("3\n"));
  return *write_zip(entries);
}

}  // namespace

TEST_CASE("pickle: the empty dict of the 2023 fixture's side-cars", "[etrecord][pickle]") {
  const std::vector<uint8_t> bytes = {0x80, 0x02, 0x7D, 0x71, 0x00, 0x2E};  // etrecord_spec.md §6
  auto p = unpickle(bytes);
  REQUIRE(p.ok());
  CHECK(p->at(p->root).kind == PickleValue::Kind::kDict);
  CHECK(p->at(p->root).items.empty());
}

TEST_CASE("pickle: scalars, strings and containers", "[etrecord][pickle]") {
  P p;
  // [1, -2, 65535, -1 (LONG1), 2.5, 'hé', b'\x01', True, None, (7,)]
  p.proto2().op(']').op('(');
  p.int1(1);
  p.op('J').u32(uint32_t(-2));
  p.op('M').op(0xff).op(0xff);
  p.op(0x8a).op(1).op(0xff);
  p.op('G').op(0x40).op(0x04).op(0).op(0).op(0).op(0).op(0).op(0);  // 2.5 big-endian
  p.op(0x8c).op(3).raw("h\xc3\xa9");
  p.op('C').op(1).op(1);
  p.op(0x88).op('N').int1(7).op(0x85);
  p.op('e').stop();
  auto r = unpickle(p.b);
  REQUIRE(r.ok());
  const auto& list = r->at(r->root);
  REQUIRE(list.kind == PickleValue::Kind::kList);
  REQUIRE(list.items.size() == 10);
  CHECK(r->at(list.items[0]).i == 1);
  CHECK(r->at(list.items[1]).i == -2);
  CHECK(r->at(list.items[2]).i == 65535);
  CHECK(r->at(list.items[3]).i == -1);
  CHECK(r->at(list.items[4]).f == 2.5);
  CHECK(r->at(list.items[5]).s == "h\xc3\xa9");
  CHECK(r->at(list.items[6]).kind == PickleValue::Kind::kBytes);
  CHECK(r->at(list.items[7]).kind == PickleValue::Kind::kBool);
  CHECK(r->at(list.items[8]).kind == PickleValue::Kind::kNone);
  CHECK(r->at(list.items[9]).kind == PickleValue::Kind::kTuple);
}

TEST_CASE("torch.save: a state dict with a float tensor, read back with its bytes", "[etrecord][pickle]") {
  // {'fc.weight': tensor [2, 3] float32 over storage '0' (6 elements)}
  P p;
  p.proto2().op('}').put(0).op('(').unicode("fc.weight").put(1);
  p.tensor("FloatStorage", "0", 6, 0, {2, 3}, {3, 1});
  p.put(2).op('u').stop();
  const std::vector<float> values = {1, 2, 3, 4, 5, 6};
  const auto zip = archive(p.b, {{"0", floats_bytes(values)}});
  auto saved = read_torch_save(zip);
  REQUIRE(saved.ok());
  CHECK(saved->root == "archive");
  CHECK(saved->root_type == "dict");
  CHECK(saved->root_items == 1);
  REQUIRE(saved->tensors.size() == 1);
  const StoredTensor& t = saved->tensors[0];
  CHECK(t.path == "fc.weight");
  CHECK(t.dtype == 7);  // float32 in the serde codes
  CHECK(t.sizes == std::vector<int64_t>{2, 3});
  CHECK(t.strides == std::vector<int64_t>{3, 1});
  CHECK(t.storage_key == "0");
  CHECK(t.device == "cpu");
  auto bytes = read_torch_storage(zip, *saved, "0");
  REQUIRE(bytes.ok());
  CHECK(*bytes == floats_bytes(values));
}

TEST_CASE("torch.save: parameters, OrderedDict with _metadata, shared storage, example-input tuples", "[etrecord][pickle]") {
  // OrderedDict([('w', Parameter(tensor[4])), ('v', tensor[2] at offset 2 of the same storage)]) with BUILD of
  // {'_metadata': {}}, as a module's state_dict pickles.
  P p;
  p.proto2().empty_ordered_dict().put(0).op('(');
  p.unicode("w").global("torch._utils", "_rebuild_parameter").op('(');
  p.tensor("LongStorage", "k", 4, 0, {4}, {1}).op(0x88).empty_ordered_dict().op('t').op('R');
  p.unicode("v").global("torch._utils", "_rebuild_tensor_v2").op('(');
  p.storage("LongStorage", "k", 4).int1(2).int1(2).op(0x85).int1(1).op(0x85).op(0x89).empty_ordered_dict().op('t').op('R');
  p.op('u').op('}').unicode("_metadata").op('}').op('s').op('b').stop();
  std::vector<uint8_t> storage(32, 0);
  auto saved = read_torch_save(archive(p.b, {{"k", storage}}, "lenet"));
  REQUIRE(saved.ok());
  CHECK(saved->root == "lenet");
  CHECK(saved->root_type == "OrderedDict");
  REQUIRE(saved->tensors.size() == 2);
  CHECK(saved->tensors[0].path == "w");
  CHECK(saved->tensors[0].requires_grad);
  CHECK(saved->tensors[0].dtype == 5);  // int64
  CHECK(saved->tensors[1].path == "v");
  CHECK(saved->tensors[1].storage_offset == 2);

  // ((x,), {}) as example inputs are saved.
  P args;
  args.proto2().op('(').op('(').tensor("FloatStorage", "0", 1, 0, {1}, {1}).op('t').op('}').op('t').stop();
  auto inputs = read_torch_save(archive(args.b, {{"0", floats_bytes({0.5f})}}));
  REQUIRE(inputs.ok());
  CHECK(inputs->root_type == "tuple");
  REQUIRE(inputs->tensors.size() == 1);
  CHECK(inputs->tensors[0].path == "[0][0]");
}

TEST_CASE("torch.save: _rebuild_tensor_v3 with an untyped storage and a dtype global", "[etrecord][pickle]") {
  // uint16 [3] over UntypedStorage of 6 bytes (protocol 4 style STACK_GLOBAL/MEMOIZE for the callable).
  P p;
  p.op(0x80).op(4).op(0x8c).op(12).raw("torch._utils").op(0x94).op(0x8c).op(18).raw("_rebuild_tensor_v3").op(0x94).op(0x93);
  p.op('(').storage("UntypedStorage", "0", 6).int1(0).int1(3).op(0x85).int1(1).op(0x85).op(0x89).empty_ordered_dict();
  p.global("torch", "uint16").op('t').op('R').stop();
  auto saved = read_torch_save(archive(p.b, {{"0", std::vector<uint8_t>(6, 1)}}));
  REQUIRE(saved.ok());
  REQUIRE(saved->tensors.size() == 1);
  CHECK(saved->tensors[0].dtype == 14);  // uint16
  CHECK(saved->root_type == "tensor");
}

TEST_CASE("torch.save: tensors and storages are checked against the data records", "[etrecord][pickle]") {
  // [2, 3] with strides [3, 1] needs 6 elements; the storage claims 5.
  P over;
  over.proto2().tensor("FloatStorage", "0", 5, 0, {2, 3}, {3, 1}).stop();
  auto r = read_torch_save(archive(over.b, {{"0", std::vector<uint8_t>(20)}}));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("tensor reaches element 5 of a storage of 5 elements") != std::string::npos);

  // Offset 4 + [2] stride 1 reaches element 5 of 6: fine; offset 5 is not.
  P edge;
  edge.proto2().tensor("FloatStorage", "0", 6, 4, {2}, {1}).stop();
  CHECK(read_torch_save(archive(edge.b, {{"0", std::vector<uint8_t>(24)}})).ok());
  P beyond;
  beyond.proto2().tensor("FloatStorage", "0", 6, 5, {2}, {1}).stop();
  CHECK_FALSE(read_torch_save(archive(beyond.b, {{"0", std::vector<uint8_t>(24)}})).ok());

  // The record must hold numel x 4 bytes.
  P fine;
  fine.proto2().tensor("FloatStorage", "0", 6, 0, {6}, {1}).stop();
  auto short_record = read_torch_save(archive(fine.b, {{"0", std::vector<uint8_t>(23)}}));
  REQUIRE_FALSE(short_record.ok());
  CHECK(short_record.error().message == "storage record archive/data/0 holds 23 bytes, expected 6 x 4");
  auto missing = read_torch_save(archive(fine.b, {}));
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message == "storage record archive/data/0 is missing");

  // A zero-sized tensor touches no element.
  P empty;
  empty.proto2().tensor("FloatStorage", "0", 0, 0, {0, 3}, {3, 1}).stop();
  CHECK(read_torch_save(archive(empty.b, {{"0", {}}})).ok());
}

TEST_CASE("pickle: malicious pickles are refused without running anything", "[etrecord][pickle]") {
  // os.system('echo hi'): the global itself is refused.
  P os;
  os.proto2().global("os", "system").unicode("echo hi").op(0x85).op('R').stop();
  auto r = unpickle(os.b);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == ErrorKind::kUnsupported);
  CHECK(r.error().message == "not readable without Python: pickle global 'os.system' is not a plain-tensor building block "
                             "(pickle offset 2)");

  // builtins.eval through STACK_GLOBAL.
  P eval;
  eval.proto2().unicode("builtins").unicode("eval").op(0x93).stop();
  CHECK(unpickle(eval.b).error().kind == ErrorKind::kUnsupported);

  // REDUCE of an allowed global that is not a rebuild function.
  P call_storage;
  call_storage.proto2().global("torch", "FloatStorage").op(')').op('R').stop();
  auto c = unpickle(call_storage.b);
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().message.find("pickle calls 'torch.FloatStorage'") != std::string::npos);

  // REDUCE of something that is not a global at all.
  P call_int;
  call_int.proto2().int1(1).op(')').op('R').stop();
  CHECK(unpickle(call_int.b).error().kind == ErrorKind::kUnsupported);

  // Subclass and quantized tensor rebuilds need Python.
  P subclass;
  subclass.proto2().global("torch._utils", "_rebuild_from_type_v2").stop();
  CHECK(unpickle(subclass.b).error().kind == ErrorKind::kUnsupported);

  // INST, OBJ, NEWOBJ and EXT1 opcodes are refused.
  for (uint8_t op : {uint8_t('i'), uint8_t('o'), uint8_t(0x81), uint8_t(0x82)}) {
    P p;
    p.proto2().op(op).stop();
    auto bad = unpickle(p.b);
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().kind == ErrorKind::kUnsupported);
  }

  // A persistent id that is not a storage.
  P pid;
  pid.proto2().unicode("module").op('Q').stop();
  CHECK(unpickle(pid.b).error().kind == ErrorKind::kUnsupported);
}

TEST_CASE("pickle: hostile memo, stack and truncation are malformed input", "[etrecord][pickle]") {
  // LONG_BINPUT 0xffffffff: a huge memo index.
  P memo;
  memo.proto2().op('N').op('r').u32(0xffffffffu).stop();
  auto m = unpickle(memo.b);
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().kind == ErrorKind::kBadInput);
  CHECK(m.error().message == "pickle: memo index 4294967295 exceeds the limit of 16777216 at offset 3");

  P get;
  get.proto2().op('j').u32(7).stop();
  CHECK(unpickle(get.b).error().message == "pickle: memo index 7 was never stored at offset 2");

  P underflow;
  underflow.proto2().op('a').stop();
  CHECK(unpickle(underflow.b).error().kind == ErrorKind::kBadInput);

  P no_stop;
  no_stop.proto2().op('N');
  CHECK(unpickle(no_stop.b).error().message == "pickle: truncated pickle (no STOP) at offset 3");

  // A string longer than the pickle.
  P long_string;
  long_string.proto2().op('X').u32(1000).raw("abc");
  CHECK(unpickle(long_string.b).error().kind == ErrorKind::kBadInput);

  // DUP without end: the stack limit stops it.
  PickleLimits limits;
  limits.max_stack = 100;
  P dup;
  dup.proto2().op('N');
  for (int i = 0; i < 200; ++i) dup.op('2');
  dup.stop();
  CHECK(unpickle(dup.b, limits).error().message.find("stack deeper than 100") != std::string::npos);

  // Every prefix of a valid torch pickle fails cleanly.
  P full;
  full.proto2().op('}').put(0).op('(').unicode("w").tensor("FloatStorage", "0", 6, 0, {2, 3}, {3, 1}).op('u').stop();
  for (size_t n = 0; n < full.b.size(); ++n) {
    const std::vector<uint8_t> prefix(full.b.begin(), full.b.begin() + static_cast<std::ptrdiff_t>(n));
    CHECK_FALSE(unpickle(prefix).ok());
  }
  CHECK(unpickle(full.b).ok());
}

TEST_CASE("pickle: cycles and deep nesting end the tensor walk", "[etrecord][pickle]") {
  // l = []; l.append(l)
  P cycle;
  cycle.proto2().op(']').put(0).op('h').op(0).op('a').stop();
  auto c = unpickle(cycle.b);
  REQUIRE(c.ok());
  auto described = describe_pickle(*c);
  REQUIRE(described.ok());
  CHECK(described->tensors.empty());

  // 100 nested lists.
  P deep;
  deep.proto2();
  for (int i = 0; i < 100; ++i) deep.op(']');
  for (int i = 0; i < 99; ++i) deep.op('a');
  deep.stop();
  auto d = unpickle(deep.b);
  REQUIRE(d.ok());
  auto too_deep = describe_pickle(*d);
  REQUIRE_FALSE(too_deep.ok());
  CHECK(too_deep.error().message == "pickled containers nested deeper than 64");
}

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// _rebuild_tensor_v2 (memo 0) and its arguments (memo 1) over a one-element
// float storage, with `dims` sizes and strides of 1: the tensor stays inside
// the storage however many dimensions it has.
P memoized_tensor_call(size_t dims) {
  P p;
  p.proto2().global("torch._utils", "_rebuild_tensor_v2").put(0);
  p.op('(').storage("FloatStorage", "0", 1).int1(0);
  p.op('(');
  for (size_t i = 0; i < dims; ++i) p.int1(1);
  p.op('t').put(2).op('h').op(2);  // strides: the same tuple
  p.op(0x89).empty_ordered_dict().op('t').put(1);
  return p;
}

}  // namespace

TEST_CASE("pickle: shared tuples and strings do not multiply allocations", "[etrecord][pickle]") {
  // The reported case: a 100000-dimension tuple named by 2000 REDUCEs
  // (~212 KB of pickle) copied the tuple per tensor, ~3.2 GB in all.
  {
    P p = memoized_tensor_call(100000);
    p.op('R');
    for (int i = 0; i < 2000; ++i) p.op('h').op(0).op('h').op(1).op('R').op('0');
    p.stop();
    const auto start = std::chrono::steady_clock::now();
    auto r = unpickle(p.b);
    CHECK(seconds_since(start) < 2.0);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind == ErrorKind::kBadInput);
    CHECK(r.error().message.find("tensor of 100000 dimensions exceeds the limit of 64") != std::string::npos);
  }
  // 64 dimensions pass the cap, but each further REDUCE (6 pickle bytes)
  // copies 2 x 64 x 8 = 1024 bytes: 20000 of them (~120 KB of pickle) would
  // copy ~20 MB, more than 64 bytes per pickle byte plus 1 MiB (~8.7 MB).
  {
    P few = memoized_tensor_call(64);
    for (int i = 0; i < 100; ++i) few.op('h').op(0).op('h').op(1).op('R').op('0');
    few.op('N').stop();
    CHECK(unpickle(few.b).ok());  // sharing itself is fine

    P many = memoized_tensor_call(64);
    for (int i = 0; i < 20000; ++i) many.op('h').op(0).op('h').op(1).op('R').op('0');
    many.op('N').stop();
    auto r = unpickle(many.b);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("copies of shared values exceed 64 bytes per pickle byte") != std::string::npos);
  }
  // A 64 KiB storage key inside a memoized persistent id, loaded 1000 times:
  // 64 MB of key copies from ~68 KB of pickle.
  {
    P p;
    p.proto2().op('(').unicode("storage").global("torch", "FloatStorage").unicode(std::string(65536, 'k'));
    p.unicode("cpu").int1(1).op('t').put(0);
    for (int i = 0; i < 1000; ++i) p.op('h').op(0).op('Q').op('0');
    p.op('N').stop();
    auto r = unpickle(p.b);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("copies of shared values exceed") != std::string::npos);
  }
  // Ten dicts nested under one memoized 10 KB key, the innermost with 1000
  // entries under that key: each entry's path is ~100 KB, 100 MB in all, from
  // ~13 KB of pickle. Unpickling copies nothing; the tensor walk is charged.
  {
    P p;
    p.proto2().op('}').unicode(std::string(10000, 'k')).put(0).op('0');
    for (int depth = 1; depth < 10; ++depth) p.op('h').op(0).op('}');
    p.op('(');
    for (int i = 0; i < 1000; ++i) p.op('h').op(0).op('N');
    p.op('u');
    for (int depth = 1; depth < 10; ++depth) p.op('s');
    p.stop();
    auto u = unpickle(p.b);
    REQUIRE(u.ok());
    CHECK(u->at(u->root).items.size() == 2);  // the root dict holds one entry
    const auto start = std::chrono::steady_clock::now();
    auto d = describe_pickle(*u);
    CHECK(seconds_since(start) < 2.0);
    REQUIRE_FALSE(d.ok());
    CHECK(d.error().kind == ErrorKind::kBadInput);
    CHECK(d.error().message == "pickled tensor paths and sizes exceed the pickle's copy budget");
  }
}

TEST_CASE("pickle: a container may not exceed max_list_items", "[etrecord][pickle]") {
  PickleLimits limits;
  limits.max_list_items = 3;
  P tuple;
  tuple.proto2().op('(').op('N').op('N').op('N').op('N').op('t').stop();
  auto t = unpickle(tuple.b, limits);
  REQUIRE_FALSE(t.ok());
  CHECK(t.error().message == "pickle: container of more than 3 items at offset 7");
  P list;
  list.proto2().op(']').op('(').op('N').op('N').op('e').op('(').op('N').op('N').op('e').stop();
  CHECK(unpickle(list.b, limits).error().message == "pickle: container of more than 3 items at offset 10");
  P three;
  three.proto2().op(']').op('(').op('N').op('N').op('N').op('e').stop();
  CHECK(unpickle(three.b, limits).ok());
}

TEST_CASE("torch.save: the library's writer produces what the reader checks", "[etrecord][pickle]") {
  const std::vector<float> w = {1, 2, 3, 4, 5, 6};
  const std::vector<float> b = {0.5f, -0.5f};
  auto bytes = write_torch_save_dict({TensorToSave{"fc.weight", 7, {2, 3}, span(floats_bytes(w))},
                                      TensorToSave{"fc.bias", 7, {2}, span(floats_bytes(b))}});
  REQUIRE(bytes.ok());
  auto saved = read_torch_save(*bytes);
  REQUIRE(saved.ok());
  REQUIRE(saved->tensors.size() == 2);
  CHECK(saved->tensors[0].path == "fc.weight");
  CHECK(saved->tensors[0].strides == std::vector<int64_t>{3, 1});
  CHECK(saved->tensors[1].path == "fc.bias");
  CHECK(*read_torch_storage(*bytes, *saved, saved->tensors[1].storage_key) == floats_bytes(b));

  auto args = write_torch_save_args({TensorToSave{"x", 7, {1, 2}, span(floats_bytes(b))}});
  REQUIRE(args.ok());
  auto inputs = read_torch_save(*args);
  REQUIRE(inputs.ok());
  CHECK(inputs->root_type == "tuple");
  CHECK(inputs->root_items == 2);
  CHECK(inputs->tensors[0].path == "[0][0]");

  // Data that does not match the shape is the caller's mistake.
  CHECK(write_torch_save_dict({TensorToSave{"x", 7, {3}, span(floats_bytes(b))}}).error().kind == ErrorKind::kUsage);
}

TEST_CASE("zip: a write that fails is an i/o error, not a kernel failure", "[etrecord][zip]") {
  // libzip refuses a second entry of the same name.
  auto dup = write_zip({{"a", span("x")}, {"a", span("y")}});
  REQUIRE_FALSE(dup.ok());
  CHECK(dup.error().kind == ErrorKind::kIo);
  CHECK(dup.error().message.rfind("zip: cannot add 'a'", 0) == 0);
}

TEST_CASE("zip: corrupt, truncated and lying archives are refused", "[etrecord][zip]") {
  const std::string payload = "0123456789abcdef";
  auto good = write_zip({{"ETRECORD_V0", {}}, {"debug_handle_map", span(payload)}});
  REQUIRE(good.ok());
  REQUIRE(ZipReader::open(*good).ok());

  // Every truncation fails to open or to read; none crashes.
  for (size_t n = 0; n < good->size(); ++n) {
    const std::vector<uint8_t> prefix(good->begin(), good->begin() + static_cast<std::ptrdiff_t>(n));
    auto z = ZipReader::open(prefix);
    if (!z.ok()) continue;
    bool all_read = true;
    for (const auto& e : z->entries()) all_read = all_read && z->read(e).ok();
    CHECK_FALSE(all_read);
  }

  // A flipped data byte fails the CRC check.
  auto flipped = *good;
  const auto at = std::search(flipped.begin(), flipped.end(), payload.begin(), payload.end());
  REQUIRE(at != flipped.end());
  *at ^= 0x01;
  auto z = ZipReader::open(flipped);
  REQUIRE(z.ok());
  auto read = z->read(*z->find("debug_handle_map"));
  REQUIRE_FALSE(read.ok());
  CHECK(read.error().message.find("crc") != std::string::npos);

  CHECK_FALSE(ZipReader::open(span("not a zip at all")).ok());
  CHECK(ZipReader::open(ByteSpan{}).error().message.find("not a zip archive") != std::string::npos);

  // A central directory that declares a stored entry larger than the archive.
  auto lying = *good;
  // Central directory header of entry 2: "PK\1\2"; uncompressed size at +24, compressed at +20.
  const std::string cd = "PK\x01\x02";
  auto first = std::search(lying.begin(), lying.end(), cd.begin(), cd.end());
  auto second = std::search(first + 1, lying.end(), cd.begin(), cd.end());
  REQUIRE(second != lying.end());
  for (int k : {20, 24}) {
    for (int i = 0; i < 4; ++i) second[k + i] = 0x7f;
  }
  auto lie = ZipReader::open(lying);
  REQUIRE_FALSE(lie.ok());
  CHECK(lie.error().message.find("exceeds the archive size") != std::string::npos);
}

// The fuzz seeds in tests/fuzz/seeds/etrecord-pickle/ were written by
// CPython's own pickler (protocols 2, 4 and 5: FRAME, MEMOIZE, STACK_GLOBAL,
// SHORT_BINUNICODE) with stand-ins carrying torch's global names, as
// tests/fuzz/seeds/etrecord-pickle/README.md describes. What each holds is
// known from how it was built.
TEST_CASE("pickle: pickles written by CPython at protocols 2 4 and 5", "[etrecord][pickle]") {
  const std::filesystem::path dir = std::filesystem::path(ETKIT_FUZZ_DIR) / "seeds" / "etrecord-pickle";
  auto describe = [&](const char* name) {
    std::ifstream in(dir / name, std::ios::binary);
    const std::vector<uint8_t> bytes(std::istreambuf_iterator<char>(in), {});
    INFO(name);
    REQUIRE(!bytes.empty());
    auto p = unpickle(bytes);
    REQUIRE(p.ok());
    auto d = describe_pickle(*p);
    REQUIRE(d.ok());
    return *d;
  };
  {
    const TorchSave s = describe("state-dict-p2.pkl");
    CHECK(s.root_type == "OrderedDict");
    REQUIRE(s.tensors.size() == 2);
    CHECK(s.tensors[0].path == "fc.weight");
    CHECK(s.tensors[0].sizes == std::vector<int64_t>{3, 2});
    CHECK(s.tensors[0].strides == std::vector<int64_t>{2, 1});
    CHECK(s.tensors[0].storage_key == "0");
    CHECK(s.tensors[1].path == "fc.bias");
    CHECK(s.tensors[1].sizes == std::vector<int64_t>{3});
    CHECK(s.tensors[1].storage_key == "1");
    CHECK(s.tensors[1].dtype == 7);  // FloatStorage: float32 in the serde codes (etrecord_spec.md §4.2)
  }
  {
    const TorchSave s = describe("parameters-shared-storage-p2.pkl");
    REQUIRE(s.tensors.size() == 2);
    CHECK(s.tensors[0].requires_grad);  // _rebuild_parameter(..., True, ...)
    CHECK(s.tensors[1].storage_offset == 2);
    CHECK(s.tensors[0].storage_key == s.tensors[1].storage_key);
  }
  {
    const TorchSave s = describe("example-inputs-p4.pkl");
    CHECK(s.root_type == "tuple");
    REQUIRE(s.tensors.size() == 1);
    CHECK(s.tensors[0].strides == std::vector<int64_t>{1, 2});
    CHECK(s.tensors[0].dtype == 5);  // LongStorage: int64
  }
  {
    const TorchSave s = describe("untyped-storage-v3-p5.pkl");
    REQUIRE(s.tensors.size() == 1);
    CHECK(s.tensors[0].dtype == 7);  // the dtype global torch.float32 of _rebuild_tensor_v3
    CHECK(s.tensors[0].sizes == std::vector<int64_t>{4});
  }
  {
    const TorchSave s = describe("scalars-and-containers-p4.pkl");
    CHECK(s.root_type == "dict");
    CHECK(s.root_items == 6);
    CHECK(s.tensors.empty());
  }
}
