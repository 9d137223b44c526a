#include "loader/data_reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "runtime/allocator.h"
#include "runtime/error.h"

namespace jitconv {

size_t DataReader::reference(size_t, const void**) { return 0; }

bool DataReader::read_line(std::string& line) {
  line.clear();
  bool any = false;
  char ch;
  while (read(&ch, 1) == 1) {
    any = true;
    if (ch == '\n') return true;
    line.push_back(ch);
  }
  return any;
}

size_t DataReader::skip(size_t size) {
  unsigned char scratch[256];
  size_t skipped = 0;
  while (skipped < size) {
    const size_t chunk = std::min(size - skipped, sizeof(scratch));
    const size_t got = read(scratch, chunk);
    skipped += got;
    if (got != chunk) break;
  }
  return skipped;
}

// ---- memory ----

DataReaderFromMemory::DataReaderFromMemory(const void* data, size_t size, size_t readable_after_end)
    : data_(static_cast<const unsigned char*>(data)), size_(data ? size : 0), readable_after_end_(readable_after_end) {}

size_t DataReaderFromMemory::read(void* buf, size_t size) {
  const size_t n = std::min(size, size_ - pos_);
  if (n) memcpy(buf, data_ + pos_, n);
  pos_ += n;
  return n;
}

size_t DataReaderFromMemory::reference(size_t size, const void** buf) {
  if (size > size_ - pos_) return 0;
  // Bytes that may be touched past the range: the rest of the buffer plus its slack.
  const size_t after = size_ - pos_ - size + readable_after_end_;
  if (after < kOverreadBytes) return 0;
  *buf = data_ + pos_;
  pos_ += size;
  return size;
}

bool DataReaderFromMemory::read_line(std::string& line) {
  line.clear();
  if (pos_ >= size_) return false;
  const unsigned char* start = data_ + pos_;
  const void* newline = memchr(start, '\n', size_ - pos_);
  const size_t len = newline ? static_cast<size_t>(static_cast<const unsigned char*>(newline) - start) : size_ - pos_;
  line.assign(reinterpret_cast<const char*>(start), len);
  pos_ += newline ? len + 1 : len;
  return true;
}

// ---- memory-mapped file ----

MappedFile::MappedFile(const std::string& path) : path_(path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("cannot open ", path, ": ", strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    fail("cannot stat ", path, ": ", strerror(err));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    fail("cannot read ", path, ": a directory, not a file");
  }
  if (!S_ISREG(st.st_mode)) {  // a pipe, FIFO or character device: nothing to map
    copy_stream(fd);
    return;
  }
  size_ = static_cast<size_t>(st.st_size);
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t file_pages = align_size(size_, page);
  // One reservation of the file's pages plus a trailing zero page, so vector code may
  // read past the last weight; the file is then mapped over the front of it.
  region_size_ = file_pages + align_size(kOverreadBytes, page);
  region_ = mmap(nullptr, region_size_, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region_ == MAP_FAILED) {
    const int err = errno;
    region_ = nullptr;
    ::close(fd);
    fail("cannot map ", path, " (", size_, " bytes): ", strerror(err));
  }
  if (size_ > 0 &&
      mmap(region_, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
    const int err = errno;
    ::close(fd);
    unmap();
    fail("cannot map ", path, " (", size_, " bytes): ", strerror(err));
  }
  ::close(fd);
  data_ = static_cast<unsigned char*>(region_);
  readable_after_end_ = region_size_ - size_;
}

// A stream (`jitconv run <(zcat m.param.gz) ...`, /dev/stdin) is read to its end into an
// anonymous region laid out like a mapping: the same zero trailing bytes, and weights
// referenced in place. ncnn's load_param / load_model by path read
// such files with stdio.
void MappedFile::copy_stream(int fd) {
  std::vector<unsigned char> bytes;
  unsigned char chunk[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd, chunk, sizeof(chunk));
    if (got == 0) break;
    if (got < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      fail("cannot read ", path_, ": ", strerror(err));
    }
    bytes.insert(bytes.end(), chunk, chunk + got);
  }
  ::close(fd);
  size_ = bytes.size();
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  region_size_ = align_size(size_, page) + align_size(kOverreadBytes, page);
  region_ = mmap(nullptr, region_size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region_ == MAP_FAILED) {
    const int err = errno;
    region_ = nullptr;
    fail("cannot hold ", path_, " (", size_, " bytes): ", strerror(err));
  }
  if (size_ > 0) memcpy(region_, bytes.data(), size_);
  // As a mapped file: its pages writable (private), the zero pages after them read-only.
  const size_t file_pages = align_size(size_, page);
  mprotect(static_cast<unsigned char*>(region_) + file_pages, region_size_ - file_pages, PROT_READ);
  data_ = static_cast<unsigned char*>(region_);
  readable_after_end_ = region_size_ - size_;
}

MappedFile::~MappedFile() { unmap(); }

MappedFile::MappedFile(MappedFile&& other) noexcept { *this = std::move(other); }

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this == &other) return *this;
  unmap();
  path_ = std::move(other.path_);
  data_ = std::exchange(other.data_, nullptr);
  size_ = std::exchange(other.size_, 0);
  region_ = std::exchange(other.region_, nullptr);
  region_size_ = std::exchange(other.region_size_, 0);
  readable_after_end_ = std::exchange(other.readable_after_end_, 0);
  return *this;
}

void MappedFile::unmap() {
  if (region_) munmap(region_, region_size_);
  region_ = nullptr;
  data_ = nullptr;
  region_size_ = 0;
}

DataReaderFromMappedFile::DataReaderFromMappedFile(std::shared_ptr<const MappedFile> file)
    : DataReaderFromMemory(file ? file->data() : nullptr, file ? file->size() : 0,
                           file ? file->readable_after_end() : 0),
      file_(std::move(file)) {}

// ---- FILE* ----

DataReaderFromStdio::DataReaderFromStdio(FILE* fp) : fp_(fp) {
  if (!fp_) fail("DataReaderFromStdio: null FILE*");
  struct stat st;
  const off_t start = ftello(fp_);
  if (start >= 0 && fstat(fileno(fp_), &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= start)
    total_ = static_cast<size_t>(st.st_size - start);
}

size_t DataReaderFromStdio::read(void* buf, size_t size) {
  const size_t n = size ? fread(buf, 1, size, fp_) : 0;
  pos_ += n;
  return n;
}

size_t DataReaderFromStdio::remaining() const {
  if (total_ == kUnknownSize) return kUnknownSize;
  return pos_ <= total_ ? total_ - pos_ : 0;
}

bool DataReaderFromStdio::read_line(std::string& line) {
  line.clear();
  bool any = false;
  int ch;
  while ((ch = getc(fp_)) != EOF) {
    any = true;
    pos_++;
    if (ch == '\n') return true;
    line.push_back(static_cast<char>(ch));
  }
  return any;
}

UniqueFile open_file(const std::string& path, const char* mode) {
  FILE* fp = fopen(path.c_str(), mode);
  if (!fp) fail("cannot open ", path, ": ", strerror(errno));
  return UniqueFile(fp);
}

}  // namespace jitconv
