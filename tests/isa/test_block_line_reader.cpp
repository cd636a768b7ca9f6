// BlockLineReader (npu/base/line_reader.hpp) gives the lines getline_capped gives (its own test:
// text_lines_test.cpp): '\r' kept, a last line without a newline returned, none after a final
// newline, NUL bytes kept, and a line over kMaxLineBytes + 1 bytes refused with the same
// message. The reference here is std::getline on the same text, and the cases put lines and
// long lines across the reader's 1 MiB block boundary, where its own bookkeeping could slip.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "npu/base/config_error.hpp"
#include "npu/base/line_reader.hpp"
#include "npu/base/text_lines.hpp"

namespace npu {
namespace {

std::vector<std::string> block_lines(const std::string& text) {
  std::istringstream in(text);
  BlockLineReader reader(in, "t.txt", "test text");
  std::vector<std::string> lines;
  std::string_view line;
  for (std::size_t n = 1; reader.next(line, n); ++n) lines.emplace_back(line);
  return lines;
}

// std::getline's lines: a final newline ends the last line, it does not start an empty one.
std::vector<std::string> std_lines(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(BlockLineReader, SplitsLinesLikeStdGetline) {
  EXPECT_EQ(block_lines(""), std::vector<std::string>{});
  EXPECT_EQ(block_lines("a"), std::vector<std::string>{"a"});
  EXPECT_EQ(block_lines("a\n"), std::vector<std::string>{"a"});
  EXPECT_EQ(block_lines("\n"), std::vector<std::string>{""});
  EXPECT_EQ(block_lines("\n\nb\r\nc"), (std::vector<std::string>{"", "", "b\r", "c"}));
  EXPECT_EQ(block_lines(std::string("x\0y\nz", 5)), (std::vector<std::string>{std::string("x\0y", 3), "z"}));
}

TEST(BlockLineReader, LinesAcrossTheBlockBoundaryComeBackWhole) {
  // A run of 19-byte lines ("0x3c2a6d00 READ 12\n": a DRAMSim3 trace's) puts a line across the
  // 1 MiB boundary (2^20 is not a multiple of 19); the long lines of the cap's 65,537 bytes are
  // placed to start before it and end after it, and to end exactly on it.
  const std::string short_line = "0x3c2a6d00 READ 12";
  const std::string cap(kMaxLineBytes + 1, 'a');
  const std::size_t block = BlockLineReader::kBlockBytes;
  for (const std::size_t before : {block - 100, block - 1, block, block + 1, block - cap.size() - 1}) {
    std::string text;
    while (text.size() + short_line.size() + 1 <= before) text += short_line + "\n";
    text += std::string(before - text.size(), 'p') + "\n";  // lines up the next line at before + 1
    text += cap + "\n" + short_line + "\n" + cap;          // and the last line without a newline
    EXPECT_EQ(block_lines(text), std_lines(text)) << before;
  }
  std::string many;
  for (int i = 0; i < 200000; ++i) many += std::to_string(i) + " READ " + std::to_string(i % 7) + "\n";  // 2.5 MB
  EXPECT_EQ(block_lines(many), std_lines(many));
}

TEST(BlockLineReader, OneByteOverTheCapIsRefusedWithGetlineCappedsMessage) {
  const std::string over(kMaxLineBytes + 2, 'x');
  std::string filler;  // 1.2 MB of short lines: the long line starts in the second block
  while (filler.size() < BlockLineReader::kBlockBytes + 200000) filler += "0x40 READ 1\n";
  const std::size_t filler_lines = filler.size() / 12;
  struct Case {
    std::string text;
    std::size_t over_line;  // the long line's number
  };
  // With and without its newline, and after the first block was read.
  for (const Case& c : {Case{"ok\n" + over + "\nnext\n", 2}, Case{"ok\n" + over, 2},
                        Case{filler + over + "\nnext\n", filler_lines + 1}}) {
    std::istringstream in(c.text);
    BlockLineReader reader(in, "t.txt", "test text");
    std::string_view line;
    std::size_t n = 1;
    try {
      while (reader.next(line, n)) ++n;
      ADD_FAILURE() << "a line of " << over.size() << " bytes was accepted";
    } catch (const ConfigError& e) {
      EXPECT_EQ(n, c.over_line);
      const std::string msg = e.what(), where = "t.txt:" + std::to_string(n) + ": error: line " + std::to_string(n);
      EXPECT_NE(msg.find(where + " is longer than the limit of 65536 bytes"), std::string::npos) << msg;
      EXPECT_NE(msg.find("fix: the test text must be a text file of shorter lines"), std::string::npos) << msg;
    }
  }
}

}  // namespace
}  // namespace npu
