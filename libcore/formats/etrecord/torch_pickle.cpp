#include "libcore/formats/etrecord/torch_pickle.h"

#include <bit>
#include <cstring>
#include <optional>
#include <unordered_map>

#include "libcore/formats/etrecord/serde_types.h"

namespace etkit::etrecord {
namespace {

using Kind = PickleValue::Kind;

// The legacy typed storage classes torch.save names (torch/storage.py) and
// their dtypes, as ETRecord serde codes.
struct StorageClass {
  std::string_view name;
  int64_t dtype;
};
constexpr StorageClass kStorageClasses[] = {
    {"FloatStorage", 7}, {"DoubleStorage", 8}, {"HalfStorage", 6}, {"BFloat16Storage", 13},
    {"LongStorage", 5},  {"IntStorage", 4},    {"ShortStorage", 3}, {"CharStorage", 2},
    {"ByteStorage", 1},  {"BoolStorage", 12},
};
constexpr std::string_view kUntypedStorage = "torch.UntypedStorage";
// The dtype an untyped storage counts in: bytes.
constexpr int64_t kByteDtype = 1;

std::optional<int64_t> storage_class_dtype(std::string_view global) {
  if (global.substr(0, 6) != "torch.") return std::nullopt;
  for (const StorageClass& c : kStorageClasses) {
    if (global.substr(6) == c.name) return c.dtype;
  }
  return std::nullopt;
}

bool allowed_global(std::string_view g) {
  return g == "collections.OrderedDict" || g == "torch._utils._rebuild_tensor_v2" ||
         g == "torch._utils._rebuild_tensor_v3" || g == "torch._utils._rebuild_parameter" || g == kUntypedStorage ||
         storage_class_dtype(g).has_value() ||
         (g.substr(0, 6) == "torch." && serde_dtype_from_name(g.substr(6)) >= 0);
}

class Unpickler {
 public:
  Unpickler(ByteSpan bytes, const PickleLimits& limits) : b_(bytes), limits_(limits) {
    uint64_t scaled = 0;
    if (__builtin_mul_overflow(static_cast<uint64_t>(bytes.size()), limits.copy_bytes_per_input_byte, &scaled) ||
        __builtin_add_overflow(scaled, limits.copy_bytes_base, &budget_)) {
      budget_ = UINT64_MAX;
    }
  }

  Result<Pickle> run() {
    while (true) {
      op_pos_ = pos_;
      if (pos_ >= b_.size()) return bad("truncated pickle (no STOP)");
      const uint8_t op = b_[pos_++];
      if (op == '.') {  // STOP
        if (stack_.empty()) return bad("STOP with an empty stack");
        Pickle out;
        out.root = stack_.back();
        out.values = std::move(values_);
        out.copy_budget = budget_;
        return out;
      }
      Status s = step(op);
      if (!s) return std::move(s).error();
    }
  }

 private:
  Error bad(const std::string& message) const {
    return bad_input("pickle: " + message + " at offset " + std::to_string(op_pos_));
  }
  Error refuse(const std::string& message) const {
    return unsupported("not readable without Python: " + message + " (pickle offset " + std::to_string(op_pos_) + ")");
  }

  // Spends `bytes` of the copy budget on copying out of shared values.
  Status charge(uint64_t bytes) {
    if (bytes > budget_) {
      return bad("copies of shared values exceed " + std::to_string(limits_.copy_bytes_per_input_byte) +
                 " bytes per pickle byte");
    }
    budget_ -= bytes;
    return {};
  }

  // Reading operands.
  bool take(size_t n, const uint8_t** out) {
    if (b_.size() - pos_ < n) return false;
    *out = b_.data() + pos_;
    pos_ += n;
    return true;
  }
  std::optional<uint64_t> uint_le(size_t n) {
    const uint8_t* p = nullptr;
    if (!take(n, &p)) return std::nullopt;
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= uint64_t(p[i]) << (8 * i);
    return v;
  }

  // The stack.
  Status push(uint32_t index) {
    if (stack_.size() + marks_.size() >= limits_.max_stack) {
      return bad("stack deeper than " + std::to_string(limits_.max_stack));
    }
    stack_.push_back(index);
    return {};
  }
  Status push_new(PickleValue v) {
    values_.push_back(std::move(v));
    return push(static_cast<uint32_t>(values_.size() - 1));
  }
  std::optional<uint32_t> pop() {
    if (stack_.size() <= (marks_.empty() ? 0 : marks_.back())) return std::nullopt;
    const uint32_t v = stack_.back();
    stack_.pop_back();
    return v;
  }
  // The items above the last MARK, which is removed.
  std::optional<std::vector<uint32_t>> pop_mark() {
    if (marks_.empty()) return std::nullopt;
    const size_t mark = marks_.back();
    marks_.pop_back();
    std::vector<uint32_t> items(stack_.begin() + static_cast<std::ptrdiff_t>(mark), stack_.end());
    stack_.resize(mark);
    return items;
  }
  PickleValue* top() {
    if (stack_.size() <= (marks_.empty() ? 0 : marks_.back())) return nullptr;
    return &values_[stack_.back()];
  }

  Status push_string(Kind kind, size_t length_bytes) {
    const auto n = uint_le(length_bytes);
    const uint8_t* p = nullptr;
    if (!n || *n > b_.size() || !take(static_cast<size_t>(*n), &p)) return bad("truncated string");
    PickleValue v;
    v.kind = kind;
    v.s.assign(reinterpret_cast<const char*>(p), static_cast<size_t>(*n));
    return push_new(std::move(v));
  }

  Status push_int(int64_t i) {
    PickleValue v;
    v.kind = Kind::kInt;
    v.i = i;
    return push_new(std::move(v));
  }

  Status memo_put(uint64_t index) {
    if (stack_.empty() || stack_.size() <= (marks_.empty() ? 0 : marks_.back())) return bad("memo put with an empty stack");
    if (index > limits_.max_memo_index) {
      return bad("memo index " + std::to_string(index) + " exceeds the limit of " + std::to_string(limits_.max_memo_index));
    }
    if (memo_.size() >= limits_.max_memo && memo_.find(static_cast<uint32_t>(index)) == memo_.end()) {
      return bad("more than " + std::to_string(limits_.max_memo) + " memo entries");
    }
    memo_[static_cast<uint32_t>(index)] = stack_.back();
    return {};
  }
  Status memo_get(uint64_t index) {
    const auto it = index > UINT32_MAX ? memo_.end() : memo_.find(static_cast<uint32_t>(index));
    if (it == memo_.end()) return bad("memo index " + std::to_string(index) + " was never stored");
    return push(it->second);
  }

  Status global(const std::string& module, const std::string& name) {
    ETKIT_TRY(charge(module.size() + name.size()));
    std::string g = module + "." + name;
    if (!allowed_global(g)) return refuse("pickle global '" + g + "' is not a plain-tensor building block");
    PickleValue v;
    v.kind = Kind::kGlobal;
    v.s = std::move(g);
    return push_new(std::move(v));
  }

  Status check_items(size_t count) const {
    if (count > limits_.max_list_items) {
      return bad("container of more than " + std::to_string(limits_.max_list_items) + " items");
    }
    return {};
  }

  Status container(Kind kind, std::vector<uint32_t> items) {
    if (kind == Kind::kDict && items.size() % 2 != 0) return bad("odd number of items for a dict");
    ETKIT_TRY(check_items(items.size()));
    PickleValue v;
    v.kind = kind;
    v.items = std::move(items);
    return push_new(std::move(v));
  }

  Status append(const std::vector<uint32_t>& items) {
    PickleValue* list = top();
    if (list == nullptr || list->kind != Kind::kList) return bad("APPEND to something that is not a list");
    ETKIT_TRY(check_items(list->items.size() + items.size()));
    list->items.insert(list->items.end(), items.begin(), items.end());
    return {};
  }
  Status set_items(const std::vector<uint32_t>& items) {
    PickleValue* dict = top();
    if (dict == nullptr || dict->kind != Kind::kDict) return bad("SETITEM on something that is not a dict");
    if (items.size() % 2 != 0) return bad("odd number of items for SETITEMS");
    ETKIT_TRY(check_items(dict->items.size() + items.size()));
    dict->items.insert(dict->items.end(), items.begin(), items.end());
    return {};
  }

  // ('storage', <storage class>, key, location, count[, None]).
  Status persistent_load(uint32_t pid_index) {
    const PickleValue& pid = values_[pid_index];
    if (pid.kind != Kind::kTuple || pid.items.size() < 5 || pid.items.size() > 6) {
      return refuse("persistent id is not a ('storage', type, key, location, count) tuple");
    }
    const PickleValue& tag = values_[pid.items[0]];
    const PickleValue& type = values_[pid.items[1]];
    const PickleValue& key = values_[pid.items[2]];
    const PickleValue& location = values_[pid.items[3]];
    const PickleValue& count = values_[pid.items[4]];
    if (tag.kind != Kind::kString || tag.s != "storage") return refuse("persistent id of kind other than 'storage'");
    if (type.kind != Kind::kGlobal) return bad("persistent id names no storage class");
    std::optional<int64_t> dtype = type.s == kUntypedStorage ? std::optional<int64_t>(kByteDtype) : storage_class_dtype(type.s);
    if (!dtype) return refuse("storage class '" + type.s + "'");
    if (key.kind != Kind::kString || location.kind != Kind::kString || count.kind != Kind::kInt || count.i < 0) {
      return bad("malformed storage persistent id");
    }
    if (pid.items.size() == 6 && values_[pid.items[5]].kind != Kind::kNone) return refuse("storage view metadata");
    ETKIT_TRY(charge(key.s.size() + location.s.size()));
    PickleValue v;
    v.kind = Kind::kStorage;
    v.dtype = *dtype;
    v.s = key.s;
    v.location = location.s;
    v.i = count.i;
    v.untyped = type.s == kUntypedStorage;
    return push_new(std::move(v));
  }

  std::optional<std::vector<int64_t>> int_tuple(uint32_t index) const {
    const PickleValue& t = values_[index];
    if (t.kind != Kind::kTuple) return std::nullopt;
    std::vector<int64_t> out;
    out.reserve(t.items.size());
    for (uint32_t item : t.items) {
      const PickleValue& v = values_[item];
      if (v.kind != Kind::kInt || v.i < 0) return std::nullopt;
      out.push_back(v.i);
    }
    return out;
  }

  bool empty_dict(uint32_t index) const {
    const PickleValue& v = values_[index];
    return v.kind == Kind::kDict && v.items.empty();
  }

  // _rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks[, metadata])
  // _rebuild_tensor_v3(storage, offset, size, stride, requires_grad, hooks, dtype[, metadata])
  Status rebuild_tensor(const std::vector<uint32_t>& a, bool v3) {
    const size_t base = v3 ? 7 : 6;
    if (a.size() != base && a.size() != base + 1) {
      return bad("tensor rebuild with " + std::to_string(a.size()) + " arguments");
    }
    for (uint32_t dims_index : {a[2], a[3]}) {
      const PickleValue& dims = values_[dims_index];
      if (dims.kind == Kind::kTuple && dims.items.size() > limits_.max_tensor_dims) {
        return bad("tensor of " + std::to_string(dims.items.size()) + " dimensions exceeds the limit of " +
                   std::to_string(limits_.max_tensor_dims));
      }
      ETKIT_TRY(charge(dims.items.size() * sizeof(int64_t)));
    }
    const PickleValue& storage = values_[a[0]];
    const PickleValue& offset = values_[a[1]];
    const auto sizes = int_tuple(a[2]);
    const auto strides = int_tuple(a[3]);
    const PickleValue& requires_grad = values_[a[4]];
    if (storage.kind != Kind::kStorage) return bad("tensor rebuild without a storage");
    if (offset.kind != Kind::kInt || offset.i < 0) return bad("tensor storage offset is not a non-negative int");
    if (!sizes || !strides || sizes->size() != strides->size()) return bad("tensor sizes/strides are not int tuples of one length");
    if (requires_grad.kind != Kind::kBool) return bad("tensor requires_grad is not a bool");
    if (!empty_dict(a[5])) return refuse("tensor with backward hooks");
    if (a.size() == base + 1 && values_[a[base]].kind != Kind::kDict) return bad("tensor metadata is not a dict");

    int64_t dtype = storage.dtype;
    int64_t numel = storage.i;
    if (v3) {
      const PickleValue& d = values_[a[6]];
      const int64_t code = d.kind == Kind::kGlobal && d.s.substr(0, 6) == "torch." ? serde_dtype_from_name(d.s.substr(6)) : -1;
      if (code < 0) return refuse("tensor dtype '" + d.s + "'");
      if (!storage.untyped) return bad("_rebuild_tensor_v3 needs an untyped storage");
      const auto size = static_cast<int64_t>(serde_dtype_size(code));
      if (storage.i % size != 0) return bad("storage of " + std::to_string(storage.i) + " bytes does not hold whole elements");
      dtype = code;
      numel = storage.i / size;
    } else if (storage.untyped) {
      return bad("_rebuild_tensor_v2 with an untyped storage");
    }
    // The furthest element must lie inside the storage.
    bool empty = false;
    uint64_t last = static_cast<uint64_t>(offset.i);
    for (size_t d = 0; d < sizes->size(); ++d) {
      if ((*sizes)[d] == 0) empty = true;
    }
    for (size_t d = 0; d < sizes->size() && !empty; ++d) {
      uint64_t step = 0;
      if (__builtin_mul_overflow(static_cast<uint64_t>((*sizes)[d] - 1), static_cast<uint64_t>((*strides)[d]), &step) ||
          __builtin_add_overflow(last, step, &last)) {
        return bad("tensor extent overflows");
      }
    }
    if (!empty && last >= static_cast<uint64_t>(numel)) {
      return bad("tensor reaches element " + std::to_string(last) + " of a storage of " + std::to_string(numel) +
                 " elements");
    }
    PickleValue t;
    t.kind = Kind::kTensor;
    t.items = {a[0]};
    t.dtype = dtype;
    t.i = offset.i;
    t.sizes = *sizes;
    t.strides = *strides;
    t.requires_grad = requires_grad.i != 0;
    return push_new(std::move(t));
  }

  Status reduce(uint32_t callable_index, uint32_t args_index) {
    const PickleValue& callable = values_[callable_index];
    const PickleValue& args = values_[args_index];
    if (callable.kind != Kind::kGlobal) return refuse("pickle calls something that is not an allowed global");
    if (args.kind != Kind::kTuple) return bad("REDUCE arguments are not a tuple");
    const std::string& g = callable.s;
    // Not copied: a memoized argument tuple may be named by many REDUCEs.
    const std::vector<uint32_t>& a = args.items;
    if (g == "collections.OrderedDict") {
      if (!a.empty()) return refuse("OrderedDict built from arguments");
      PickleValue v;
      v.kind = Kind::kDict;
      v.ordered = true;
      return push_new(std::move(v));
    }
    if (g == "torch._utils._rebuild_tensor_v2") return rebuild_tensor(a, false);
    if (g == "torch._utils._rebuild_tensor_v3") return rebuild_tensor(a, true);
    if (g == "torch._utils._rebuild_parameter") {
      if (a.size() != 3 || values_[a[0]].kind != Kind::kTensor || values_[a[1]].kind != Kind::kBool) {
        return bad("malformed _rebuild_parameter arguments");
      }
      if (!empty_dict(a[2])) return refuse("parameter with backward hooks");
      const PickleValue& tensor = values_[a[0]];
      ETKIT_TRY(charge((tensor.sizes.size() + tensor.strides.size()) * sizeof(int64_t)));
      PickleValue p = tensor;
      p.requires_grad = values_[a[1]].i != 0;
      return push_new(std::move(p));
    }
    return refuse("pickle calls '" + g + "'");
  }

  Status step(uint8_t op) {
    switch (op) {
      case 0x80: {  // PROTO
        const auto v = uint_le(1);
        if (!v || *v > 5) return bad("unsupported pickle protocol");
        return {};
      }
      case 0x95:  // FRAME: a length hint only
        if (!uint_le(8)) return bad("truncated FRAME");
        return {};
      case '(':  // MARK
        if (stack_.size() + marks_.size() >= limits_.max_stack) return bad("stack deeper than " + std::to_string(limits_.max_stack));
        marks_.push_back(stack_.size());
        return {};
      case '0':  // POP
        if (!pop()) {
          if (marks_.empty()) return bad("POP from an empty stack");
          marks_.pop_back();  // Python's POP drops a mark when the stack above it is empty
        }
        return {};
      case '1':  // POP_MARK
        if (!pop_mark()) return bad("POP_MARK without a MARK");
        return {};
      case '2': {  // DUP
        if (top() == nullptr) return bad("DUP of an empty stack");
        return push(stack_.back());
      }
      case 'N': return push_new(PickleValue{});
      case 0x88:
      case 0x89: {  // NEWTRUE, NEWFALSE
        PickleValue v;
        v.kind = Kind::kBool;
        v.i = op == 0x88 ? 1 : 0;
        return push_new(std::move(v));
      }
      case 'J': {  // BININT
        const auto v = uint_le(4);
        if (!v) return bad("truncated BININT");
        return push_int(static_cast<int32_t>(static_cast<uint32_t>(*v)));
      }
      case 'K': {  // BININT1
        const auto v = uint_le(1);
        if (!v) return bad("truncated BININT1");
        return push_int(static_cast<int64_t>(*v));
      }
      case 'M': {  // BININT2
        const auto v = uint_le(2);
        if (!v) return bad("truncated BININT2");
        return push_int(static_cast<int64_t>(*v));
      }
      case 0x8a: {  // LONG1: little-endian two's complement of n bytes
        const auto n = uint_le(1);
        if (!n) return bad("truncated LONG1");
        if (*n > 8) return refuse("integer wider than 64 bits");
        const auto v = uint_le(static_cast<size_t>(*n));
        if (!v) return bad("truncated LONG1");
        uint64_t u = *v;
        if (*n > 0 && *n < 8 && (u >> (8 * *n - 1)) != 0) u |= ~uint64_t{0} << (8 * *n);  // sign-extend
        return push_int(static_cast<int64_t>(u));
      }
      case 'G': {  // BINFLOAT: big-endian IEEE double
        const uint8_t* p = nullptr;
        if (!take(8, &p)) return bad("truncated BINFLOAT");
        uint64_t bits = 0;
        for (int i = 0; i < 8; ++i) bits = bits << 8 | p[i];
        PickleValue v;
        v.kind = Kind::kFloat;
        v.f = std::bit_cast<double>(bits);
        return push_new(std::move(v));
      }
      case 'X': return push_string(Kind::kString, 4);     // BINUNICODE
      case 0x8c: return push_string(Kind::kString, 1);    // SHORT_BINUNICODE
      case 0x8d: return push_string(Kind::kString, 8);    // BINUNICODE8
      case 'B': return push_string(Kind::kBytes, 4);      // BINBYTES
      case 'C': return push_string(Kind::kBytes, 1);      // SHORT_BINBYTES
      case '}': return container(Kind::kDict, {});        // EMPTY_DICT
      case ']': return container(Kind::kList, {});        // EMPTY_LIST
      case ')': return container(Kind::kTuple, {});       // EMPTY_TUPLE
      case 't':
      case 'l':
      case 'd': {  // TUPLE, LIST, DICT
        auto items = pop_mark();
        if (!items) return bad("TUPLE/LIST/DICT without a MARK");
        return container(op == 't' ? Kind::kTuple : op == 'l' ? Kind::kList : Kind::kDict, std::move(*items));
      }
      case 0x85:
      case 0x86:
      case 0x87: {  // TUPLE1..3
        const size_t n = size_t(op - 0x84);
        std::vector<uint32_t> items(n);
        for (size_t i = n; i-- > 0;) {
          const auto v = pop();
          if (!v) return bad("TUPLE" + std::to_string(n) + " with too few values");
          items[i] = *v;
        }
        return container(Kind::kTuple, std::move(items));
      }
      case 'a': {  // APPEND
        const auto v = pop();
        if (!v) return bad("APPEND with an empty stack");
        return append({*v});
      }
      case 'e': {  // APPENDS
        auto items = pop_mark();
        if (!items) return bad("APPENDS without a MARK");
        return append(*items);
      }
      case 's': {  // SETITEM
        const auto value = pop();
        const auto key = pop();
        if (!value || !key) return bad("SETITEM with too few values");
        return set_items({*key, *value});
      }
      case 'u': {  // SETITEMS
        auto items = pop_mark();
        if (!items) return bad("SETITEMS without a MARK");
        return set_items(*items);
      }
      case 'q': {  // BINPUT
        const auto i = uint_le(1);
        if (!i) return bad("truncated BINPUT");
        return memo_put(*i);
      }
      case 'r': {  // LONG_BINPUT
        const auto i = uint_le(4);
        if (!i) return bad("truncated LONG_BINPUT");
        return memo_put(*i);
      }
      case 0x94: return memo_put(memo_.size());  // MEMOIZE
      case 'h': {                                // BINGET
        const auto i = uint_le(1);
        if (!i) return bad("truncated BINGET");
        return memo_get(*i);
      }
      case 'j': {  // LONG_BINGET
        const auto i = uint_le(4);
        if (!i) return bad("truncated LONG_BINGET");
        return memo_get(*i);
      }
      case 'c': {  // GLOBAL: "module\nname\n"
        std::string parts[2];
        for (std::string& part : parts) {
          const uint8_t* start = b_.data() + pos_;
          const void* nl = std::memchr(start, '\n', b_.size() - pos_);
          if (nl == nullptr) return bad("truncated GLOBAL");
          const auto n = static_cast<size_t>(static_cast<const uint8_t*>(nl) - start);
          part.assign(reinterpret_cast<const char*>(start), n);
          pos_ += n + 1;
        }
        return global(parts[0], parts[1]);
      }
      case 0x93: {  // STACK_GLOBAL
        const auto name = pop();
        const auto module = pop();
        if (!name || !module || values_[*name].kind != Kind::kString || values_[*module].kind != Kind::kString) {
          return bad("STACK_GLOBAL needs two strings");
        }
        return global(values_[*module].s, values_[*name].s);
      }
      case 'Q': {  // BINPERSID
        const auto pid = pop();
        if (!pid) return bad("BINPERSID with an empty stack");
        return persistent_load(*pid);
      }
      case 'R': {  // REDUCE
        const auto args = pop();
        const auto callable = pop();
        if (!args || !callable) return bad("REDUCE with too few values");
        return reduce(*callable, *args);
      }
      case 'b': {  // BUILD: only the attributes torch pickles on an OrderedDict (_metadata)
        const auto state = pop();
        PickleValue* target = top();
        if (!state || target == nullptr) return bad("BUILD with too few values");
        if (target->kind != Kind::kDict || !target->ordered) return refuse("BUILD on an object");
        return {};
      }
      default: {
        static constexpr char kHex[] = "0123456789abcdef";
        return refuse(std::string("pickle opcode 0x") + kHex[op >> 4] + kHex[op & 15]);
      }
    }
  }

  ByteSpan b_;
  const PickleLimits& limits_;
  size_t pos_ = 0;
  size_t op_pos_ = 0;
  std::vector<PickleValue> values_;
  std::vector<uint32_t> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint32_t, uint32_t> memo_;
  uint64_t budget_ = 0;  // bytes that copies out of shared values may still take
};

}  // namespace

Result<Pickle> unpickle(ByteSpan bytes, const PickleLimits& limits) { return Unpickler(bytes, limits).run(); }

std::string_view storage_class_for_dtype(int64_t dtype) {
  for (const StorageClass& c : kStorageClasses) {
    if (c.dtype == dtype) return c.name;
  }
  return {};
}

}  // namespace etkit::etrecord
