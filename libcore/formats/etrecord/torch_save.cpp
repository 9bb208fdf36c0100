#include "libcore/formats/etrecord/torch_save.h"

#include "libcore/formats/etrecord/serde_types.h"

namespace etkit::etrecord {
namespace {

using Kind = PickleValue::Kind;

std::string_view kind_name(const PickleValue& v) {
  switch (v.kind) {
    case Kind::kNone: return "None";
    case Kind::kBool: return "bool";
    case Kind::kInt: return "int";
    case Kind::kFloat: return "float";
    case Kind::kString: return "str";
    case Kind::kBytes: return "bytes";
    case Kind::kList: return "list";
    case Kind::kTuple: return "tuple";
    case Kind::kDict: return v.ordered ? "OrderedDict" : "dict";
    case Kind::kGlobal: return "global";
    case Kind::kStorage: return "storage";
    case Kind::kTensor: return "tensor";
  }
  return "?";
}

// Lists the tensors reachable from the root with their paths. Each value is
// visited once, so shared and cyclic references end the walk. Paths, sizes
// and storage names are copied out of values a pickle may share cheaply, so
// every copied byte is charged to what is left of the unpickler's budget.
class TensorWalker {
 public:
  TensorWalker(const Pickle& pickle, size_t max_nesting, TorchSave& out)
      : p_(pickle), max_nesting_(max_nesting), out_(out), visited_(pickle.values.size(), false),
        budget_(pickle.copy_budget) {}

  Status walk(uint32_t index, const std::string& path, size_t depth) {
    if (visited_[index]) return {};
    const PickleValue& v = p_.at(index);
    switch (v.kind) {
      case Kind::kTensor: {
        visited_[index] = true;
        const PickleValue& storage = p_.at(v.items[0]);
        ETKIT_TRY(charge((v.sizes.size() + v.strides.size()) * sizeof(int64_t) + storage.s.size() +
                         storage.location.size()));
        out_.tensors.push_back(
            StoredTensor{path, v.dtype, v.sizes, v.strides, v.i, v.requires_grad, storage.s, storage.location});
        return {};
      }
      case Kind::kList:
      case Kind::kTuple:
      case Kind::kDict: {
        visited_[index] = true;
        if (depth >= max_nesting_) {
          return unsupported("pickled containers nested deeper than " + std::to_string(max_nesting_));
        }
        const bool dict = v.kind == Kind::kDict;
        for (size_t i = 0; i < v.items.size(); i += dict ? 2 : 1) {
          // Charged before the copies are made; an index or int key takes at most 22 bytes.
          std::string child;
          if (dict) {
            const PickleValue& key = p_.at(v.items[i]);
            ETKIT_TRY(charge(path.size() + 1 + (key.kind == Kind::kString ? key.s.size() : 22)));
            const std::string text = key.kind == Kind::kString ? key.s
                                     : key.kind == Kind::kInt  ? std::to_string(key.i)
                                                               : "<" + std::string(kind_name(key)) + ">";
            child = path.empty() ? text : path + "." + text;
          } else {
            ETKIT_TRY(charge(path.size() + 22));
            child = path + "[" + std::to_string(i) + "]";
          }
          ETKIT_TRY(walk(v.items[dict ? i + 1 : i], child, depth + 1));
        }
        return {};
      }
      default: return {};
    }
  }

 private:
  Status charge(uint64_t bytes) {
    if (bytes > budget_) return bad_input("pickled tensor paths and sizes exceed the pickle's copy budget");
    budget_ -= bytes;
    return {};
  }

  const Pickle& p_;
  size_t max_nesting_;
  TorchSave& out_;
  std::vector<bool> visited_;
  uint64_t budget_;
};

}  // namespace

Result<TorchSave> describe_pickle(const Pickle& pickle, size_t max_nesting) {
  TorchSave out;
  const PickleValue& root = pickle.at(pickle.root);
  out.root_type = kind_name(root);
  out.root_items = root.kind == Kind::kDict ? root.items.size() / 2 : root.items.size();
  if (root.kind == Kind::kTensor) out.root_items = 0;
  ETKIT_TRY(TensorWalker(pickle, max_nesting, out).walk(pickle.root, "", 0));
  return out;
}

Result<TorchSave> read_torch_save(ByteSpan archive, const TorchSaveLimits& limits) {
  ETKIT_ASSIGN_OR_RETURN(ZipReader zip, ZipReader::open(archive, limits.zip));
  if (zip.entries().empty()) return bad_input("torch.save archive without entries");
  const std::string& first = zip.entries().front().name;
  const size_t slash = first.find('/');
  if (slash == std::string::npos) return bad_input("not a torch.save archive: entry '" + first + "' is outside a folder");
  const std::string root = first.substr(0, slash);

  const ZipEntry* pkl = zip.find(root + "/data.pkl");
  if (pkl == nullptr) return bad_input("torch.save archive without " + root + "/data.pkl");
  if (pkl->size > limits.max_pickle_bytes) {
    return bad_input(root + "/data.pkl of " + std::to_string(pkl->size) + " bytes exceeds the limit of " +
                     std::to_string(limits.max_pickle_bytes));
  }
  if (const ZipEntry* order = zip.find(root + "/byteorder")) {
    ETKIT_ASSIGN_OR_RETURN(auto text, zip.read(*order));
    if (std::string(text.begin(), text.end()) != "little") {
      return unsupported("torch.save archive with byte order '" + std::string(text.begin(), text.end()) + "'");
    }
  }
  ETKIT_ASSIGN_OR_RETURN(auto pickle_bytes, zip.read(*pkl));
  auto pickle = unpickle(pickle_bytes, limits.pickle);
  if (!pickle) return std::move(pickle).error().in(root + "/data.pkl");

  // Every storage the pickle names must be a record of exactly its size.
  for (const PickleValue& v : pickle->values) {
    if (v.kind != Kind::kStorage) continue;
    const std::string record = root + "/data/" + v.s;
    const ZipEntry* data = zip.find(record);
    if (data == nullptr) return bad_input("storage record " + record + " is missing");
    uint64_t expected = 0;
    const uint64_t element = v.untyped ? 1 : serde_dtype_size(v.dtype);
    if (__builtin_mul_overflow(static_cast<uint64_t>(v.i), element, &expected) || data->size != expected) {
      return bad_input("storage record " + record + " holds " + std::to_string(data->size) + " bytes, expected " +
                       std::to_string(v.i) + " x " + std::to_string(element));
    }
  }
  ETKIT_ASSIGN_OR_RETURN(TorchSave out, describe_pickle(*pickle, limits.max_nesting));
  out.root = root;
  return out;
}

Result<std::vector<uint8_t>> read_torch_storage(ByteSpan archive, const TorchSave& saved, const std::string& key) {
  ETKIT_ASSIGN_OR_RETURN(ZipReader zip, ZipReader::open(archive));
  const ZipEntry* data = zip.find(saved.root + "/data/" + key);
  if (data == nullptr) return bad_input("storage record " + saved.root + "/data/" + key + " is missing");
  return zip.read(*data);
}

namespace {

// Emits protocol-2 pickles the way torch.save lays out plain tensors.
class PickleWriter {
 public:
  void op(uint8_t c) { out_.push_back(c); }
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) out_.push_back(uint8_t(v >> (8 * i)));
  }
  void string(std::string_view s) {
    op('X');  // BINUNICODE
    u32(static_cast<uint32_t>(s.size()));
    out_.insert(out_.end(), s.begin(), s.end());
  }
  void integer(int64_t v) {
    if (v >= 0 && v < 256) {
      op('K');
      op(static_cast<uint8_t>(v));
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
      op('J');
      u32(static_cast<uint32_t>(static_cast<int32_t>(v)));
    } else {
      op(0x8a);  // LONG1, 8 bytes two's complement
      op(8);
      for (int i = 0; i < 8; ++i) op(uint8_t(static_cast<uint64_t>(v) >> (8 * i)));
    }
  }
  void global(std::string_view module, std::string_view name) {
    op('c');
    out_.insert(out_.end(), module.begin(), module.end());
    op('\n');
    out_.insert(out_.end(), name.begin(), name.end());
    op('\n');
  }
  void int_tuple(const std::vector<int64_t>& values) {
    op('(');
    for (int64_t v : values) integer(v);
    op('t');
  }
  // _rebuild_tensor_v2(storage, 0, sizes, strides, False, OrderedDict())
  void tensor(const std::string& key, std::string_view storage_class, const std::vector<int64_t>& sizes, int64_t numel) {
    global("torch._utils", "_rebuild_tensor_v2");
    op('(');
    op('(');
    string("storage");
    global("torch", storage_class);
    string(key);
    string("cpu");
    integer(numel);
    op('t');
    op('Q');  // BINPERSID
    integer(0);
    int_tuple(sizes);
    std::vector<int64_t> strides(sizes.size(), 1);
    for (size_t d = sizes.size(); d-- > 1;) strides[d - 1] = strides[d] * sizes[d];
    int_tuple(strides);
    op(0x89);  // NEWFALSE
    global("collections", "OrderedDict");
    op(')');
    op('R');
    op('t');
    op('R');
  }
  std::vector<uint8_t>& bytes() { return out_; }

 private:
  std::vector<uint8_t> out_;
};

Result<int64_t> checked_numel(const TensorToSave& t) {
  int64_t numel = 1;
  for (int64_t s : t.sizes) {
    if (s < 0 || __builtin_mul_overflow(numel, s, &numel)) return Error{ErrorKind::kUsage, {}, t.name, "bad sizes"};
  }
  const size_t element = serde_dtype_size(t.dtype);
  if (storage_class_for_dtype(t.dtype).empty()) {
    return Error{ErrorKind::kUsage, {}, t.name, "dtype " + std::to_string(t.dtype) + " has no torch storage class"};
  }
  if (t.data.size() != static_cast<uint64_t>(numel) * element) {
    return Error{ErrorKind::kUsage, {}, t.name,
                 std::to_string(t.data.size()) + " data bytes for " + std::to_string(numel) + " elements"};
  }
  return numel;
}

Result<std::vector<uint8_t>> write_archive(const std::vector<TensorToSave>& tensors, bool as_args) {
  PickleWriter w;
  w.op(0x80);  // PROTO 2
  w.op(2);
  if (as_args) {
    w.op('(');  // ((t0, ...), {})
    w.op('(');
  } else {
    w.op('}');  // EMPTY_DICT
    w.op('(');
  }
  for (size_t i = 0; i < tensors.size(); ++i) {
    ETKIT_ASSIGN_OR_RETURN(int64_t numel, checked_numel(tensors[i]));
    if (!as_args) w.string(tensors[i].name);
    w.tensor(std::to_string(i), storage_class_for_dtype(tensors[i].dtype), tensors[i].sizes, numel);
  }
  if (as_args) {
    w.op('t');
    w.op('}');
    w.op('t');
  } else {
    w.op('u');  // SETITEMS
  }
  w.op('.');

  static constexpr std::string_view kLittle = "little", kVersion = "3\n";
  std::vector<std::pair<std::string, ByteSpan>> entries;
  entries.emplace_back("archive/data.pkl", ByteSpan(w.bytes()));
  entries.emplace_back("archive/byteorder", ByteSpan(reinterpret_cast<const uint8_t*>(kLittle.data()), kLittle.size()));
  for (size_t i = 0; i < tensors.size(); ++i) entries.emplace_back("archive/data/" + std::to_string(i), tensors[i].data);
  entries.emplace_back("archive/version", ByteSpan(reinterpret_cast<const uint8_t*>(kVersion.data()), kVersion.size()));
  return write_zip(entries);
}

}  // namespace

Result<std::vector<uint8_t>> write_torch_save_dict(const std::vector<TensorToSave>& tensors) {
  return write_archive(tensors, false);
}

Result<std::vector<uint8_t>> write_torch_save_args(const std::vector<TensorToSave>& tensors) {
  return write_archive(tensors, true);
}

}  // namespace etkit::etrecord
