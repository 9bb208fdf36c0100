#include "libcore/formats/etrecord/zip_archive.h"

#include <zip.h>

#include "libcore/formats/etrecord/zip_damage.h"

namespace etkit::etrecord {

struct ZipReader::Handle {
  zip_t* archive = nullptr;
  ~Handle() {
    if (archive != nullptr) zip_discard(archive);
  }
};

ZipReader::ZipReader(std::unique_ptr<Handle> handle) : handle_(std::move(handle)) {}
ZipReader::ZipReader(ZipReader&&) noexcept = default;
ZipReader& ZipReader::operator=(ZipReader&&) noexcept = default;
ZipReader::~ZipReader() = default;

namespace {

std::string describe(zip_error_t* error) {
  // libzip capitalises its messages; ours are lowercase.
  std::string message = zip_error_strerror(error);
  for (char& c : message) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return message;
}

// Deflate cannot expand data by more than about 1032:1; a larger declared
// size is a lie, refused before allocating it.
constexpr uint64_t kMaxDeflateRatio = 1032;

}  // namespace

Result<ZipReader> ZipReader::open(ByteSpan bytes, const ZipLimits& limits) {
  // libzip opens an empty buffer as an empty archive; Python's zipfile and
  // we call it what it is. 22 bytes is the end record alone.
  if (bytes.size() < 22) return bad_input("not a zip archive (" + std::to_string(bytes.size()) + " bytes)");
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* source = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &error);
  if (source == nullptr) {
    Error e = bad_input("zip: " + describe(&error));
    zip_error_fini(&error);
    return e;
  }
  zip_t* archive = zip_open_from_source(source, ZIP_RDONLY, &error);
  if (archive == nullptr) {
    zip_source_free(source);
    // libzip 1.7 says "not a zip archive" or "inconsistent" for most
    // damage; say where it is when our own walk finds it.
    const auto damage = describe_zip_damage(bytes);
    Error e = damage ? bad_input("damaged zip archive: " + *damage)
                     : bad_input("not a readable zip archive: " + describe(&error));
    zip_error_fini(&error);
    return e;
  }
  zip_error_fini(&error);
  auto handle = std::make_unique<Handle>();
  handle->archive = archive;
  ZipReader reader(std::move(handle));
  reader.bytes_ = bytes;

  const zip_int64_t count = zip_get_num_entries(archive, 0);
  if (count < 0 || static_cast<uint64_t>(count) > limits.max_entries) {
    return bad_input("zip: " + std::to_string(count) + " entries exceed the limit of " +
                     std::to_string(limits.max_entries));
  }
  reader.entries_.reserve(static_cast<size_t>(count));
  for (zip_uint64_t i = 0; i < static_cast<zip_uint64_t>(count); ++i) {
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(archive, i, ZIP_FL_ENC_RAW, &st) != 0) {
      return bad_input("zip: entry " + std::to_string(i) + ": " + describe(zip_get_error(archive)));
    }
    const zip_uint64_t needed = ZIP_STAT_NAME | ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_COMP_METHOD;
    if ((st.valid & needed) != needed) return bad_input("zip: entry " + std::to_string(i) + " has no size");
    ZipEntry entry;
    entry.name = st.name;
    entry.index = i;
    entry.size = st.size;
    entry.compressed_size = st.comp_size;
    entry.method = st.comp_method;
    const std::string where = "zip entry '" + entry.name + "'";
    if ((st.valid & ZIP_STAT_ENCRYPTION_METHOD) != 0 && st.encryption_method != ZIP_EM_NONE) {
      return unsupported(where + " is encrypted");
    }
    if (entry.method != ZIP_CM_STORE && entry.method != ZIP_CM_DEFLATE) {
      return unsupported(where + " uses compression method " + std::to_string(entry.method) +
                         " (only stored and deflated are read)");
    }
    if (entry.compressed_size > bytes.size()) {
      return bad_input(where + ": compressed size " + std::to_string(entry.compressed_size) +
                       " exceeds the archive size " + std::to_string(bytes.size()));
    }
    const uint64_t bound =
        entry.method == ZIP_CM_STORE ? entry.compressed_size : entry.compressed_size * kMaxDeflateRatio + 64;
    if (entry.size > bound) {
      return bad_input(where + ": size " + std::to_string(entry.size) + " is impossible for " +
                       std::to_string(entry.compressed_size) + " compressed bytes");
    }
    if (entry.size > limits.max_entry_bytes) {
      return bad_input(where + ": size " + std::to_string(entry.size) + " exceeds the limit of " +
                       std::to_string(limits.max_entry_bytes));
    }
    reader.entries_.push_back(std::move(entry));
  }
  return reader;
}

const ZipEntry* ZipReader::find(std::string_view name) const {
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    if (it->name == name) return &*it;
  }
  return nullptr;
}

// libzip checks an entry's local header only when the entry is opened.
Error ZipReader::entry_error(const ZipEntry& entry, zip_error_t* error) const {
  const std::string where = "zip entry '" + entry.name + "'";
  // Damage in the data itself (CRC, deflate stream) is libzip's to name; a
  // structural failure (libzip 1.7 says "invalid argument" for a local
  // header beyond the file) is described by our own walk.
  const int code = zip_error_code_zip(error);
  const bool data_error = code == ZIP_ER_CRC || code == ZIP_ER_ZLIB || code == ZIP_ER_COMPRESSED_DATA ||
                          code == ZIP_ER_MEMORY || code == ZIP_ER_COMPNOTSUPP || code == ZIP_ER_ENCRNOTSUPP;
  if (!data_error) {
    const auto damage = describe_zip_damage(bytes_);
    if (damage && damage->rfind(where, 0) == 0) return bad_input("damaged zip archive: " + *damage);
  }
  return bad_input(where + ": " + describe(error));
}

Result<std::vector<uint8_t>> ZipReader::read(const ZipEntry& entry) const {
  const std::string where = "zip entry '" + entry.name + "'";
  zip_file_t* file = zip_fopen_index(handle_->archive, entry.index, 0);
  if (file == nullptr) return entry_error(entry, zip_get_error(handle_->archive));
  std::vector<uint8_t> data(static_cast<size_t>(entry.size));
  uint64_t done = 0;
  while (done < entry.size) {
    const zip_int64_t n = zip_fread(file, data.data() + done, entry.size - done);
    if (n < 0) {
      Error e = entry_error(entry, zip_file_get_error(file));
      zip_fclose(file);
      return e;
    }
    if (n == 0) break;
    done += static_cast<uint64_t>(n);
  }
  // Reading past the declared size once more makes libzip check the CRC.
  uint8_t extra = 0;
  const zip_int64_t tail = zip_fread(file, &extra, 1);
  Error tail_error;
  const bool tail_failed = tail < 0;
  if (tail_failed) tail_error = bad_input(where + ": " + describe(zip_file_get_error(file)));
  zip_fclose(file);
  if (tail_failed) return tail_error;
  if (done != entry.size || tail != 0) {
    return bad_input(where + ": data length differs from the declared size " + std::to_string(entry.size));
  }
  return data;
}

Result<std::vector<uint8_t>> write_zip(const std::vector<std::pair<std::string, ByteSpan>>& entries) {
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* sink = zip_source_buffer_create(nullptr, 0, 0, &error);
  if (sink == nullptr) {
    zip_error_fini(&error);
    return Error{ErrorKind::kIo, {}, {}, "zip: cannot create a memory buffer"};
  }
  zip_source_keep(sink);  // survives zip_close, which would otherwise free it
  zip_t* archive = zip_open_from_source(sink, ZIP_TRUNCATE, &error);
  zip_error_fini(&error);
  const auto fail = [&](const std::string& what) {
    Error e{ErrorKind::kIo, {}, {}, "zip: " + what};
    if (archive != nullptr) zip_discard(archive);
    zip_source_free(sink);
    return e;
  };
  if (archive == nullptr) return fail("cannot start an archive");
  for (const auto& [name, bytes] : entries) {
    zip_source_t* source = zip_source_buffer(archive, bytes.data(), bytes.size(), 0);
    if (source == nullptr) return fail("cannot add '" + name + "'");
    const zip_int64_t index = zip_file_add(archive, name.c_str(), source, ZIP_FL_ENC_UTF_8);
    if (index < 0) {
      zip_source_free(source);
      return fail("cannot add '" + name + "': " + describe(zip_get_error(archive)));
    }
    const auto i = static_cast<zip_uint64_t>(index);
    // DOS date 1980-01-01 (day 1, month 1 << 5, year 0 << 9), time 00:00.
    if (zip_set_file_compression(archive, i, ZIP_CM_STORE, 0) != 0 || zip_file_set_dostime(archive, i, 0, 0x21, 0) != 0) {
      return fail("cannot store '" + name + "'");
    }
  }
  if (zip_close(archive) != 0) {
    const std::string why = describe(zip_get_error(archive));
    return fail("cannot finish the archive: " + why);
  }
  archive = nullptr;
  std::vector<uint8_t> out;
  if (zip_source_open(sink) != 0) return fail("cannot read the archive back");
  zip_source_seek(sink, 0, SEEK_END);
  const zip_int64_t size = zip_source_tell(sink);
  zip_source_seek(sink, 0, SEEK_SET);
  if (size > 0) {
    out.resize(static_cast<size_t>(size));
    if (zip_source_read(sink, out.data(), out.size()) != size) {
      zip_source_close(sink);
      return fail("cannot read the archive back");
    }
  }
  zip_source_close(sink);
  zip_source_free(sink);
  return out;
}

}  // namespace etkit::etrecord
