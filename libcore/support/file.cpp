#include "libcore/support/file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

namespace etkit {
namespace {

constexpr size_t kAlignment = 64;

uint8_t* aligned_copy(const uint8_t* data, size_t size) {
  auto* out = static_cast<uint8_t*>(std::aligned_alloc(kAlignment, align_up(size ? size : 1, kAlignment)));
  if (out != nullptr && size != 0) std::memcpy(out, data, size);
  return out;
}

std::string errno_text() { return std::strerror(errno); }

}  // namespace

InputFile::~InputFile() {
  if (mapping_ != nullptr) munmap(mapping_, size_);
  std::free(owned_);
}

std::shared_ptr<const InputFile> InputFile::from_bytes(ByteSpan bytes, std::string name) {
  std::shared_ptr<InputFile> file(new InputFile());
  file->path_ = std::move(name);
  file->owned_ = aligned_copy(bytes.data(), bytes.size());
  file->data_ = file->owned_;
  file->size_ = bytes.size();
  return file;
}

Result<std::shared_ptr<const InputFile>> InputFile::open(const std::string& path, Access access) {
  if (path == "-") {
    std::vector<uint8_t> buffer;
    uint8_t chunk[1 << 16];
    size_t n;
    while ((n = std::fread(chunk, 1, sizeof chunk, stdin)) > 0) buffer.insert(buffer.end(), chunk, chunk + n);
    if (std::ferror(stdin)) return io_error("<stdin>", "cannot read: " + errno_text());
    return from_bytes(buffer, "<stdin>");
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return io_error(path, "cannot open: " + errno_text());
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return io_error(path, "not a regular file");
  }
  std::shared_ptr<InputFile> file(new InputFile());
  file->path_ = path;
  file->size_ = static_cast<size_t>(st.st_size);
  if (file->size_ == 0) {
    file->owned_ = aligned_copy(nullptr, 0);
    file->data_ = file->owned_;
  } else {
    void* map = mmap(nullptr, file->size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) {
      ::close(fd);
      return io_error(path, "cannot map: " + errno_text());
    }
    if (access == Access::kSequential) madvise(map, file->size_, MADV_SEQUENTIAL);
    file->mapping_ = map;
    file->data_ = static_cast<const uint8_t*>(map);
  }
  ::close(fd);
  return std::shared_ptr<const InputFile>(std::move(file));
}

Result<std::unique_ptr<OutputFile>> OutputFile::create(const std::string& path) {
  std::unique_ptr<OutputFile> out(new OutputFile());
  out->path_ = path;
  if (path == "-") {
    out->stream_ = stdout;
    out->in_place_ = true;
    return out;
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    out->stream_ = std::fopen(path.c_str(), "wb");
    if (out->stream_ == nullptr) return io_error(path, "cannot open for writing: " + errno_text());
    out->in_place_ = true;
    return out;
  }
  out->temp_path_ = path + ".etkit-tmp-XXXXXX";
  int fd = mkstemp(out->temp_path_.data());
  if (fd < 0) return io_error(path, "cannot create: " + errno_text());
  out->stream_ = fdopen(fd, "wb");
  if (out->stream_ == nullptr) {
    ::close(fd);
    ::unlink(out->temp_path_.c_str());
    return io_error(path, "cannot open for writing: " + errno_text());
  }
  return out;
}

OutputFile::~OutputFile() {
  if (stream_ != nullptr && stream_ != stdout) {
    std::fclose(stream_);
    if (!committed_ && !in_place_) ::unlink(temp_path_.c_str());
  }
}

Status OutputFile::write(ByteSpan bytes) {
  if (bytes.empty()) return {};
  if (std::fwrite(bytes.data(), 1, bytes.size(), stream_) != bytes.size()) return write_error();
  return {};
}

Status OutputFile::write_at(uint64_t offset, ByteSpan bytes) {
  if (in_place_) return io_error(path_, "cannot write at an offset: not a regular file");
  const int fd = fileno(stream_);
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n;
    if (direct_ && refuse_direct_in_ != 0 && --refuse_direct_in_ == 0) {
      n = -1;
      errno = EINVAL;
    } else {
      n = pwrite(fd, bytes.data() + done, bytes.size() - done, off_t(offset + done));
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EINVAL && direct_) {
      // Alignment the device wants beyond kDirectAlignment, say.
      direct_ = false;
      fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_DIRECT);
      continue;
    }
    if (n < 0) return write_error();
    if (n == 0) return io_error(path_, "cannot write: no progress");
    done += size_t(n);
  }
  return {};
}

bool OutputFile::use_direct_io() {
  if (in_place_ || direct_) return direct_;
  const int fd = fileno(stream_);
  const int flags = fcntl(fd, F_GETFL);
  direct_ = flags >= 0 && fcntl(fd, F_SETFL, flags | O_DIRECT) == 0;
  return direct_;
}

Status OutputFile::set_size(uint64_t size) {
  if (in_place_) return io_error(path_, "cannot set the size: not a regular file");
  if (ftruncate(fileno(stream_), off_t(size)) != 0) return io_error(path_, "cannot write: " + errno_text());
  return {};
}

Status OutputFile::write_text(std::string_view text) {
  return write(ByteSpan(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

Error OutputFile::write_error() const {
  if (errno == EPIPE) return Error{ErrorKind::kBrokenPipe, path_, {}, "broken pipe"};
  return io_error(path_, "cannot write: " + errno_text());
}

Status OutputFile::commit() {
  if (in_place_) {
    if (std::fflush(stream_) != 0) return write_error();
    committed_ = true;
    return {};
  }
  if (std::fflush(stream_) != 0 || std::ferror(stream_)) return io_error(path_, "cannot write: " + errno_text());
  // mkstemp creates 0600; give the file the usual permissions.
  mode_t mask = umask(0);
  umask(mask);
  fchmod(fileno(stream_), 0666 & ~mask);
  if (std::fclose(stream_) != 0) {
    stream_ = nullptr;
    ::unlink(temp_path_.c_str());
    return io_error(path_, "cannot write: " + errno_text());
  }
  stream_ = nullptr;
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    ::unlink(temp_path_.c_str());
    return io_error(path_, "cannot rename into place: " + errno_text());
  }
  committed_ = true;
  return {};
}

Status write_file(const std::string& path, ByteSpan bytes) {
  ETKIT_ASSIGN_OR_RETURN(auto out, OutputFile::create(path));
  ETKIT_TRY(out->write(bytes));
  return out->commit();
}

Status write_text_file(const std::string& path, std::string_view text) {
  return write_file(path, ByteSpan(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

namespace {

Status write_all(const std::string& dir, const std::vector<NamedBytes>& files) {
  std::vector<std::unique_ptr<OutputFile>> outputs;
  for (const auto& file : files) {
    if (file.name.empty() || file.name.find('/') != std::string::npos || file.name == "." || file.name == "..") {
      return Error{ErrorKind::kUsage, {}, {}, "'" + file.name + "' is not a plain file name"};
    }
    ETKIT_ASSIGN_OR_RETURN(auto out, OutputFile::create(dir + "/" + file.name));
    ETKIT_TRY(out->write(file.bytes));
    outputs.push_back(std::move(out));
  }
  for (auto& out : outputs) ETKIT_TRY(out->commit());
  return {};
}

}  // namespace

Status write_files(const std::string& dir, const std::vector<NamedBytes>& files) {
  if (dir.empty() || dir == "-") return Error{ErrorKind::kUsage, {}, {}, "'" + dir + "' is not a directory name"};
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) return io_error(dir, "exists and is not a directory");
    return write_all(dir, files);
  }
  std::string trimmed = dir;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  std::string temp = trimmed + ".etkit-tmp-XXXXXX";
  if (mkdtemp(temp.data()) == nullptr) return io_error(dir, "cannot create directory: " + errno_text());
  Status written = write_all(temp, files);
  if (written) {
    // mkdtemp creates 0700; give the directory the usual permissions.
    mode_t mask = umask(0);
    umask(mask);
    ::chmod(temp.c_str(), 0777 & ~mask);
    if (std::rename(temp.c_str(), trimmed.c_str()) == 0) return {};
    written = io_error(dir, "cannot rename into place: " + errno_text());
  }
  std::error_code ignored;
  std::filesystem::remove_all(temp, ignored);
  return written;
}

}  // namespace etkit
