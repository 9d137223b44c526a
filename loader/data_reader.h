// Byte sources for the .param and .bin parsers (ncnn's DataReader).
//
// Three kinds: a caller's memory buffer, a memory-mapped file and a FILE* stream. The
// memory kinds can hand out zero-copy pointers (reference()), which ModelBin uses to
// wrap raw fp32 weights in place; such weights stay valid only while the buffer or the
// MappedFile lives (the Net keeps the MappedFile alive for that reason).
#pragma once
#include <cstddef>
#include <cstdio>
#include <memory>
#include <string>

namespace jitconv {

constexpr size_t kUnknownSize = static_cast<size_t>(-1);

class DataReader {
 public:
  virtual ~DataReader() = default;

  // Copies up to size bytes to buf and returns how many were copied (fewer only at the
  // end of the data or on a read error).
  virtual size_t read(void* buf, size_t size) = 0;
  // Zero copy: points *buf at the next size bytes, consumes them and returns size; or
  // returns 0 and consumes nothing when the source is not in memory, fewer than size
  // bytes remain, or vector code could not safely read past the end of the range.
  virtual size_t reference(size_t size, const void** buf);
  // Bytes consumed so far (for error messages).
  virtual size_t offset() const = 0;
  // Bytes left to read, or kUnknownSize when the source cannot tell (a pipe).
  virtual size_t remaining() const { return kUnknownSize; }
  // Reads through the next '\n' (or to the end) and stores the line without its line
  // break; a trailing '\r' stays (the text parser treats it as white space). Returns
  // false, with line empty, only when nothing was left to read.
  virtual bool read_line(std::string& line);
  // Consumes size bytes (the padding after fp16/int8 data); returns how many were skipped.
  size_t skip(size_t size);
};

// Reads a caller's buffer; never reads past size bytes. readable_after_end says how many
// bytes after the buffer vector code may touch: reference() only succeeds for ranges
// followed by kOverreadBytes readable bytes, so referenced weights behave like Mats
// from the allocator (which over-allocates for the same reason).
class DataReaderFromMemory : public DataReader {
 public:
  DataReaderFromMemory(const void* data, size_t size, size_t readable_after_end = 0);

  size_t read(void* buf, size_t size) override;
  size_t reference(size_t size, const void** buf) override;
  size_t offset() const override { return pos_; }
  size_t remaining() const override { return size_ - pos_; }
  bool read_line(std::string& line) override;

 private:
  const unsigned char* data_;
  size_t size_;
  size_t readable_after_end_;
  size_t pos_ = 0;
};

// A whole file mapped read-only (private copy-on-write pages, so a layer that writes to
// its zero-copy weights changes neither the file nor other mappings). At least
// kOverreadBytes readable bytes follow the last byte of the file. A file that cannot be
// mapped (a pipe, a FIFO, /dev/stdin) is read to its end into memory laid out the same
// way; a directory is an error. Move-only.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const unsigned char* data() const { return data_; }
  size_t size() const { return size_; }
  const std::string& path() const { return path_; }
  // Readable bytes after data() + size().
  size_t readable_after_end() const { return readable_after_end_; }

 private:
  void unmap();
  void copy_stream(int fd);  // reads a non-mappable file to its end, closes fd
  std::string path_;
  unsigned char* data_ = nullptr;
  size_t size_ = 0;
  void* region_ = nullptr;  // the whole reservation, file pages first
  size_t region_size_ = 0;
  size_t readable_after_end_ = 0;
};

// Reads a MappedFile and shares its ownership, so Mats referencing the mapping stay
// valid for as long as someone holds mapping().
class DataReaderFromMappedFile final : public DataReaderFromMemory {
 public:
  explicit DataReaderFromMappedFile(std::shared_ptr<const MappedFile> file);
  const std::shared_ptr<const MappedFile>& mapping() const { return file_; }

 private:
  std::shared_ptr<const MappedFile> file_;
};

// Reads a FILE* from its current position (the caller keeps ownership). Never references.
class DataReaderFromStdio final : public DataReader {
 public:
  explicit DataReaderFromStdio(FILE* fp);

  size_t read(void* buf, size_t size) override;
  size_t offset() const override { return pos_; }
  size_t remaining() const override;
  bool read_line(std::string& line) override;

 private:
  FILE* fp_;
  size_t pos_ = 0;
  size_t total_ = kUnknownSize;  // bytes from the start position to the end, when seekable
};

// A FILE* that closes itself.
struct FileCloser {
  void operator()(FILE* fp) const {
    if (fp) fclose(fp);
  }
};
using UniqueFile = std::unique_ptr<FILE, FileCloser>;
// fopen(path, mode) or a jitconv::Error naming the path and the system's reason.
UniqueFile open_file(const std::string& path, const char* mode);

}  // namespace jitconv
