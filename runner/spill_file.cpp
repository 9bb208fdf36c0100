#include "runner/spill_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

namespace etkit::rt {

std::unique_ptr<SpillFile> SpillFile::create() {
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir && *dir ? dir : "/tmp") + "/etkit-events-XXXXXX";
  const int fd = mkostemp(path.data(), O_CLOEXEC);
  if (fd < 0) return nullptr;
  unlink(path.c_str());
  return std::unique_ptr<SpillFile>(new SpillFile(fd));
}

SpillFile::~SpillFile() { close(fd_); }

bool SpillFile::append(const void* data, size_t size) {
  const auto* p = static_cast<const char*>(data);
  size_t done = 0;
  while (done < size) {
    const ssize_t n = pwrite(fd_, p + done, size - done, off_t(size_ + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      (void)ftruncate(fd_, off_t(size_));
      return false;
    }
    done += size_t(n);
  }
  size_ += size;
  return true;
}

bool SpillFile::read(uint64_t offset, void* data, size_t size) const {
  if (offset > size_ || size > size_ - offset) return false;
  auto* p = static_cast<char*>(data);
  size_t done = 0;
  while (done < size) {
    const ssize_t n = pread(fd_, p + done, size - done, off_t(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += size_t(n);
  }
  return true;
}

}  // namespace etkit::rt
