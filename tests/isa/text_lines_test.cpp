// getline_capped (npu/base/text_lines.hpp): std::getline's lines ('\r' kept, a last line
// without a newline returned, empty lines returned empty), never more than kMaxLineBytes + 1
// bytes a line: one byte more is refused with the file and line named. Lines longer than
// any internal read size, NUL bytes and the end of input are checked against the text they
// were cut from.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "npu/base/config_error.hpp"
#include "npu/base/text_lines.hpp"

namespace npu {
namespace {

std::vector<std::string> read_lines(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> lines;
  std::string line;
  for (std::size_t n = 1; getline_capped(in, line, "t.txt", n, "test text"); ++n) lines.push_back(line);
  EXPECT_TRUE(in.eof());
  return lines;
}

TEST(GetlineCapped, SplitsLinesLikeStdGetline) {
  EXPECT_EQ(read_lines(""), std::vector<std::string>{});
  EXPECT_EQ(read_lines("a"), std::vector<std::string>{"a"});
  EXPECT_EQ(read_lines("a\n"), std::vector<std::string>{"a"});
  EXPECT_EQ(read_lines("\n\nb\r\nc"), (std::vector<std::string>{"", "", "b\r", "c"}));
  EXPECT_EQ(read_lines(std::string("x\0y\nz", 5)), (std::vector<std::string>{std::string("x\0y", 3), "z"}));
}

TEST(GetlineCapped, LongLinesComeBackWhole) {
  // Lengths around any power-of-two read size: 4095, 4096, 4097, 10,000 and the cap's 65,537.
  for (std::size_t len : {4095u, 4096u, 4097u, 10000u, unsigned(kMaxLineBytes + 1)}) {
    const std::string a(len, 'a'), b(len / 3, 'b');
    EXPECT_EQ(read_lines(a + "\n" + b + "\n" + a), (std::vector<std::string>{a, b, a})) << len;
  }
}

TEST(GetlineCapped, OneByteOverTheCapIsRefusedWithTheFileAndLine) {
  const std::string over(kMaxLineBytes + 2, 'x');
  for (const std::string& text : {"ok\n" + over + "\nnext\n", "ok\n" + over}) {  // with and without its newline
    std::istringstream in(text);
    std::string line;
    ASSERT_TRUE(getline_capped(in, line, "t.txt", 1, "test text"));
    try {
      getline_capped(in, line, "t.txt", 2, "test text");
      ADD_FAILURE() << "a line of " << over.size() << " bytes was accepted";
    } catch (const ConfigError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("t.txt:2: error: line 2 is longer than the limit of 65536 bytes"), std::string::npos) << msg;
      EXPECT_NE(msg.find("fix: the test text must be a text file of shorter lines"), std::string::npos) << msg;
    }
  }
}

}  // namespace
}  // namespace npu
