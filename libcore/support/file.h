// Reading whole input files (mmap, or stdin for "-") and writing output files
// atomically (a temp file beside the target, renamed on commit), so a failed
// run never leaves a half-written output behind.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "libcore/support/bytes.h"
#include "libcore/support/result.h"

namespace etkit {

// Read-only bytes of a file. The data is at least 64-byte aligned (mmap'd or
// copied into an aligned buffer), which FlatBuffers and the runtime expect.
class InputFile {
 public:
  // How the caller will read the bytes: kSequential (one pass, e.g. decoding)
  // lets the kernel read ahead and drop pages behind; kRandom (programs,
  // whose constants are read on every execution) keeps them.
  enum class Access { kRandom, kSequential };

  // "-" reads standard input.
  static Result<std::shared_ptr<const InputFile>> open(const std::string& path, Access access = Access::kRandom);
  // Wraps bytes already in memory (copied into aligned storage).
  static std::shared_ptr<const InputFile> from_bytes(ByteSpan bytes, std::string name);

  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  ByteSpan bytes() const { return {data_, size_}; }
  const std::string& path() const { return path_; }

 private:
  InputFile() = default;
  std::string path_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  void* mapping_ = nullptr;  // munmap'd on destruction when set
  uint8_t* owned_ = nullptr;  // free'd on destruction when set
};

// An output file that appears under its final name only on commit().
// "-" writes to standard output (then commit() only flushes); so do paths
// that exist and are not regular files (/dev/stdout, /dev/null, FIFOs), which
// are written in place: renaming over them would replace the device entry.
class OutputFile {
 public:
  static Result<std::unique_ptr<OutputFile>> create(const std::string& path);
  ~OutputFile();  // discards the temp file unless committed
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  std::FILE* stream() { return stream_; }
  Status write(ByteSpan bytes);
  Status write_text(std::string_view text);
  // Whether write_at() works: the temporary file of a regular file, not
  // standard output, a device or a FIFO.
  bool positional() const { return !in_place_; }
  // Writes at `offset` (a file built out of order, like a FlatBuffer, back
  // to front); not mixed with write().
  Status write_at(uint64_t offset, ByteSpan bytes);
  // Offsets, sizes and addresses of write_at() under O_DIRECT are multiples
  // of this (the page size, a multiple of any block size in use).
  static constexpr size_t kDirectAlignment = 4096;
  // Makes write_at() bypass the page cache (O_DIRECT); false where the file
  // system does not take it. A write it refuses all the same is written
  // through the page cache, and so are the ones after it.
  bool use_direct_io();
  bool direct_io() const { return direct_; }
  // For tests of the fallback above (the file systems at hand take
  // O_DIRECT): the `n`th write_at() under O_DIRECT from now on, counting
  // from 1, is refused with EINVAL as such a file system would refuse it.
  void refuse_direct_write_for_testing(size_t n) { refuse_direct_in_ = n; }
  Status set_size(uint64_t size);
  Status commit();
  const std::string& path() const { return path_; }

 private:
  OutputFile() = default;
  Error write_error() const;
  std::string path_;
  std::string temp_path_;
  std::FILE* stream_ = nullptr;
  bool committed_ = false;
  bool in_place_ = false;  // stdout or a non-regular file: no temp file
  bool direct_ = false;
  size_t refuse_direct_in_ = 0;  // see refuse_direct_write_for_testing
};

// Writes `bytes` (or `text`) to `path` atomically.
Status write_file(const std::string& path, ByteSpan bytes);
Status write_text_file(const std::string& path, std::string_view text);

struct NamedBytes {
  std::string name;  // a plain file name, no directory part
  std::vector<uint8_t> bytes;
};
// Writes a set of files into directory `dir`, all or none: a directory that
// does not exist yet appears (renamed from a temporary one) only with every
// file in it; into an existing one, every file is written to a temporary
// name first and renamed into place only once all of them are written.
Status write_files(const std::string& dir, const std::vector<NamedBytes>& files);

}  // namespace etkit
