// Data readers: bounds, lines, zero-copy rules, memory-mapped and FILE* sources.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "loader/data_reader.h"
#include "runtime/allocator.h"
#include "tests/loader_test_util.h"

namespace jitconv {
namespace {

using test::error_of;

TEST(LoaderDataReader, MemoryNeverReadsPastTheEnd) {
  const std::string data = "abcdefg";
  DataReaderFromMemory reader(data.data(), data.size());
  char buf[16] = {};
  EXPECT_EQ(reader.read(buf, 3), 3u);
  EXPECT_EQ(std::string(buf, 3), "abc");
  EXPECT_EQ(reader.offset(), 3u);
  EXPECT_EQ(reader.remaining(), 4u);
  EXPECT_EQ(reader.skip(1), 1u);
  EXPECT_EQ(reader.read(buf, 10), 3u);
  EXPECT_EQ(std::string(buf, 3), "efg");
  EXPECT_EQ(reader.read(buf, 1), 0u);
  EXPECT_EQ(reader.skip(5), 0u);
  EXPECT_EQ(reader.offset(), 7u);
  DataReaderFromMemory empty(nullptr, 100);
  EXPECT_EQ(empty.remaining(), 0u);
  EXPECT_EQ(empty.read(buf, 1), 0u);
}

TEST(LoaderDataReader, ReferenceNeedsRoomForOverread) {
  std::vector<unsigned char> data(200);
  for (size_t i = 0; i < data.size(); i++) data[i] = static_cast<unsigned char>(i);
  DataReaderFromMemory reader(data.data(), data.size());
  const void* p = nullptr;
  EXPECT_EQ(reader.reference(8, &p), 8u);
  EXPECT_EQ(p, data.data());
  EXPECT_EQ(reader.offset(), 8u);
  // 200 - 8 - 130 = 62 bytes would follow: fewer than kOverreadBytes, refused.
  EXPECT_EQ(reader.reference(130, &p), 0u);
  EXPECT_EQ(reader.offset(), 8u);
  EXPECT_EQ(reader.reference(128, &p), 128u);
  EXPECT_EQ(p, data.data() + 8);
  EXPECT_EQ(reader.reference(100, &p), 0u);  // more than is left
  DataReaderFromMemory with_slack(data.data(), data.size(), kOverreadBytes);
  EXPECT_EQ(with_slack.reference(200, &p), 200u);
}

TEST(LoaderDataReader, LinesFromMemoryStdioAndTheGenericReader) {
  const std::string text = "first\r\n\nthird line\nlast";
  const std::vector<std::string> expected = {"first\r", "", "third line", "last"};
  test::TempDir dir;
  test::write_file(dir.file("t.txt"), text.data(), text.size());

  // A reader with only read(): exercises DataReader's own read_line.
  class ByteReader final : public DataReader {
   public:
    explicit ByteReader(const std::string& s) : s_(s) {}
    size_t read(void* buf, size_t size) override {
      const size_t n = std::min(size, s_.size() - pos_);
      memcpy(buf, s_.data() + pos_, n);
      pos_ += n;
      return n;
    }
    size_t offset() const override { return pos_; }

   private:
    std::string s_;
    size_t pos_ = 0;
  };

  DataReaderFromMemory memory(text.data(), text.size());
  UniqueFile fp = open_file(dir.file("t.txt"), "rb");
  DataReaderFromStdio stdio(fp.get());
  ByteReader bytes(text);
  for (DataReader* reader : std::vector<DataReader*>{&memory, &stdio, &bytes}) {
    std::vector<std::string> lines;
    std::string line;
    while (reader->read_line(line)) lines.push_back(line);
    EXPECT_EQ(lines, expected);
    EXPECT_TRUE(line.empty());
    EXPECT_EQ(reader->offset(), text.size());
  }
}

TEST(LoaderDataReader, StdioKnowsTheSizeOfRegularFiles) {
  test::TempDir dir;
  const std::string data(1000, 'x');
  test::write_file(dir.file("f"), data.data(), data.size());
  UniqueFile fp = open_file(dir.file("f"), "rb");
  fseek(fp.get(), 100, SEEK_SET);
  DataReaderFromStdio reader(fp.get());
  EXPECT_EQ(reader.remaining(), 900u);
  char buf[64];
  EXPECT_EQ(reader.read(buf, 64), 64u);
  EXPECT_EQ(reader.remaining(), 836u);
  const void* p = nullptr;
  EXPECT_EQ(reader.reference(4, &p), 0u);
  EXPECT_NE(error_of([&] { open_file(dir.file("nope"), "rb"); }).find("nope"), std::string::npos);
}

TEST(LoaderDataReader, MappedFileHasSlackAndMoves) {
  test::TempDir dir;
  std::vector<unsigned char> data(4096 * 2);  // ends exactly on a page boundary
  for (size_t i = 0; i < data.size(); i++) data[i] = static_cast<unsigned char>(i * 7);
  test::write_file(dir.file("m"), data.data(), data.size());
  MappedFile file(dir.file("m"));
  ASSERT_EQ(file.size(), data.size());
  EXPECT_EQ(memcmp(file.data(), data.data(), data.size()), 0);
  EXPECT_GE(file.readable_after_end(), kOverreadBytes);
  for (size_t i = 0; i < kOverreadBytes; i++) EXPECT_EQ(file.data()[file.size() + i], 0) << i;
  MappedFile moved(std::move(file));
  EXPECT_EQ(file.data(), nullptr);
  EXPECT_EQ(moved.size(), data.size());
  EXPECT_EQ(moved.data()[5], data[5]);
  EXPECT_EQ(moved.path(), dir.file("m"));

  test::write_file(dir.file("empty"), "", 0);
  MappedFile empty(dir.file("empty"));
  EXPECT_EQ(empty.size(), 0u);
  DataReaderFromMappedFile reader(std::make_shared<MappedFile>(dir.file("empty")));
  char c;
  EXPECT_EQ(reader.read(&c, 1), 0u);

  EXPECT_NE(error_of([&] { MappedFile(dir.file("missing")); }).find("cannot open"), std::string::npos);
  EXPECT_NE(error_of([&] { MappedFile(std::filesystem::path(dir.file("m")).parent_path().string()); })
                .find("a directory, not a file"),
            std::string::npos);
}

// A FIFO (process substitution, a pipe from zcat) cannot be mapped: it is read to its end
// into memory laid out like a mapping, as ncnn reads such paths with stdio.
TEST(LoaderDataReader, MappedFileReadsAFifoToItsEnd) {
  test::TempDir dir;
  const std::string fifo = dir.file("pipe");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0) << strerror(errno);
  std::vector<unsigned char> data(200000);  // several pipe buffers
  for (size_t i = 0; i < data.size(); i++) data[i] = static_cast<unsigned char>(i * 13 + 1);
  std::thread writer([&] {
    FILE* f = fopen(fifo.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(fwrite(data.data(), 1, data.size(), f), data.size());
    fclose(f);
  });
  MappedFile file(fifo);
  writer.join();
  ASSERT_EQ(file.size(), data.size());
  EXPECT_EQ(memcmp(file.data(), data.data(), data.size()), 0);
  EXPECT_GE(file.readable_after_end(), kOverreadBytes);
  for (size_t i = 0; i < kOverreadBytes; i++) ASSERT_EQ(file.data()[file.size() + i], 0) << i;
  // Its bytes are private and writable, as a mapped file's (layers may scribble on their
  // zero-copy weights).
  const_cast<unsigned char*>(file.data())[0] = 0xAB;
  EXPECT_EQ(file.data()[0], 0xAB);
}

}  // namespace
}  // namespace jitconv
