// A restricted unpickler for what torch.save writes for plain tensors
// (etrecord_spec.md §6): containers and Python scalars, storages named by
// persistent id, and tensors rebuilt by torch._utils._rebuild_tensor_v2/_v3
// and _rebuild_parameter. Like torch.load(weights_only=True) it executes
// nothing: any other global, callable or opcode is refused with a message
// that says the payload needs Python. Values live in an arena and refer to
// each other by index, so shared or cyclic references (which pickles can
// express) cost nothing and cannot leak; walks over them must be bounded.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "libcore/support/bytes.h"
#include "libcore/support/result.h"

namespace etkit::etrecord {

struct PickleValue {
  enum class Kind : uint8_t {
    kNone, kBool, kInt, kFloat, kString, kBytes, kList, kTuple, kDict, kGlobal, kStorage, kTensor
  };
  Kind kind = Kind::kNone;
  bool ordered = false;  // kDict built as collections.OrderedDict
  bool untyped = false;  // kStorage: torch.UntypedStorage, counted in bytes
  int64_t i = 0;         // kBool, kInt; kStorage: element count; kTensor: storage offset (elements)
  double f = 0;          // kFloat
  // kString/kBytes: the text; kGlobal: "module.name"; kStorage: the record key
  // (the data/<key> entry); kTensor: unused.
  std::string s;
  std::string location;  // kStorage: device, e.g. "cpu"
  // kList/kTuple: items; kDict: key, value, key, value, ...; kTensor: the storage.
  std::vector<uint32_t> items;
  int64_t dtype = 0;  // kStorage/kTensor: ETRecord serde ScalarType code (etrecord_spec.md §4.2)
  std::vector<int64_t> sizes, strides;  // kTensor
  bool requires_grad = false;           // kTensor
};

struct Pickle {
  std::vector<PickleValue> values;
  uint32_t root = 0;
  // What is left of PickleLimits' copy budget after unpickling: walks that
  // copy out of the values (describe_pickle) spend the rest.
  uint64_t copy_budget = 0;
  const PickleValue& at(uint32_t index) const { return values[index]; }
};

struct PickleLimits {
  size_t max_stack = 1 << 20;   // values on the stack, marks included
  size_t max_memo = 1 << 20;    // memo entries
  uint32_t max_memo_index = 1u << 24;
  size_t max_list_items = 1 << 24;  // items of one list, tuple or dict
  size_t max_tensor_dims = 64;
  // A memoized tuple or string costs a pickle 2 bytes per further use, so
  // bytes copied out of shared values (tensor sizes, storage keys, paths) are
  // capped at this many per pickle byte, plus a base.
  uint64_t copy_bytes_per_input_byte = 64;
  uint64_t copy_bytes_base = uint64_t{1} << 20;
};

// Unpickles protocol 0-5 pickles that use only: PROTO, FRAME, STOP, MARK,
// POP, POP_MARK, DUP, NONE, NEWTRUE, NEWFALSE, BININT, BININT1, BININT2,
// LONG1, BINFLOAT, BINUNICODE, SHORT_BINUNICODE, BINBYTES, SHORT_BINBYTES,
// EMPTY_DICT, EMPTY_LIST, EMPTY_TUPLE, TUPLE, TUPLE1-3, LIST, DICT, APPEND,
// APPENDS, SETITEM, SETITEMS, BINPUT, LONG_BINPUT, MEMOIZE, BINGET,
// LONG_BINGET, GLOBAL, STACK_GLOBAL, BINPERSID, REDUCE, BUILD (on an
// OrderedDict). Globals: collections.OrderedDict, torch._utils.
// _rebuild_tensor_v2/_rebuild_tensor_v3/_rebuild_parameter, the typed
// storage classes of plain dtypes and torch.UntypedStorage with a dtype
// global (torch.float32, torch.uint16, torch.float8_e5m2, ...). A persistent
// id must be ('storage', <storage class>, key, location, count). Refusals are
// ErrorKind::kUnsupported; malformed pickles kBadInput.
Result<Pickle> unpickle(ByteSpan bytes, const PickleLimits& limits = {});

// The legacy typed storage class torch.save names for a serde dtype
// ("FloatStorage"), or empty when the dtype has none (uint16, float8).
std::string_view storage_class_for_dtype(int64_t dtype);

}  // namespace etkit::etrecord
