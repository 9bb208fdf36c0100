// torch.save ZIP archives, as ETRecord side-cars hold them (etrecord_spec.md
// §6): <root>/data.pkl (a pickle, read with the restricted unpickler),
// <root>/data/<key> (raw storage bytes), <root>/byteorder, <root>/version.
// Reading checks every tensor against its storage record before it is
// reported; writing produces what torch.load reads for dicts and argument
// tuples of dense tensors.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "libcore/formats/etrecord/torch_pickle.h"
#include "libcore/formats/etrecord/zip_archive.h"
#include "libcore/support/bytes.h"
#include "libcore/support/result.h"

namespace etkit::etrecord {

struct StoredTensor {
  std::string path;  // where in the saved object: "fc1.weight" in a dict, "[0][1]" in tuples
  int64_t dtype = 0;  // serde ScalarType code
  std::vector<int64_t> sizes, strides;  // strides and offset in elements
  int64_t storage_offset = 0;
  bool requires_grad = false;
  std::string storage_key;  // the record <root>/data/<key>
  std::string device;       // storage location, e.g. "cpu"
};

struct TorchSave {
  std::string root;       // archive folder, e.g. "archive"
  std::string root_type;  // what data.pkl holds: "dict", "OrderedDict", "tuple", "list", "None", "tensor", ...
  size_t root_items = 0;  // entries of a root container
  std::vector<StoredTensor> tensors;  // in pickle order; a tensor reached twice is listed once
};

struct TorchSaveLimits {
  ZipLimits zip;
  PickleLimits pickle;
  uint64_t max_pickle_bytes = uint64_t{1} << 30;
  size_t max_nesting = 64;  // containers inside containers
};

// Reads the structure and tensor metadata; storage bytes stay in the archive.
Result<TorchSave> read_torch_save(ByteSpan archive, const TorchSaveLimits& limits = {});

// Describes what an unpickled value holds, as read_torch_save does for
// data.pkl: for plain pickles (pre-v1.3 reference outputs) too.
Result<TorchSave> describe_pickle(const Pickle& pickle, size_t max_nesting = 64);

// The bytes of the storage record `key` (numel x element size).
Result<std::vector<uint8_t>> read_torch_storage(ByteSpan archive, const TorchSave& saved, const std::string& key);

// A contiguous dense tensor to save.
struct TensorToSave {
  std::string name;  // dict key (ignored for argument tuples)
  int64_t dtype = 0;  // serde ScalarType code
  std::vector<int64_t> sizes;
  ByteSpan data;  // numel x element size bytes, row-major
};

// torch.save of {name: tensor, ...} (a state dict or constants; empty -> {}).
Result<std::vector<uint8_t>> write_torch_save_dict(const std::vector<TensorToSave>& tensors);
// torch.save of ((t0, t1, ...), {}): example inputs as ExecuTorch stores them.
Result<std::vector<uint8_t>> write_torch_save_args(const std::vector<TensorToSave>& tensors);

}  // namespace etkit::etrecord
