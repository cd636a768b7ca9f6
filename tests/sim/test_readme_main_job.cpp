// The README's "What the main job prints" table against what the main job prints: the
// README's first command is run as written (its --out replaced by a fresh folder) and every
// row the README shows must appear in the output with the same fields. A change that moves a
// figure of the main job fails here until the README is updated with it.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "tool_runner.hpp"
#include "under_sanitizer.hpp"

namespace {

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> w;
  for (std::string s; in >> s;) w.push_back(s);
  return w;
}

/// The README's first command from `./build/npu ` on: "experiment --model ... --out results -j 2".
std::string main_job_args(const std::string& readme) {
  const auto at = readme.find("./build/npu experiment");
  if (at == std::string::npos) return "";
  const auto start = at + std::string("./build/npu ").size();
  return readme.substr(start, readme.find('\n', start) - start);
}

/// The lines of the code block under "## What the main job prints", without the "..." lines:
/// the table (up to the first empty line) when `table` is true, else the lines after it (the
/// notes under the table).
std::vector<std::string> readme_block(const std::string& readme, bool table) {
  std::vector<std::string> lines;
  const auto section = readme.find("## What the main job prints");
  if (section == std::string::npos) return lines;
  const auto open = readme.find("```\n", section);
  const auto close = readme.find("\n```", open + 4);
  std::istringstream in(readme.substr(open + 4, close - open - 4));
  bool in_table = true;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) in_table = false;
    else if (line != "..." && in_table == table) lines.push_back(line);
  }
  return lines;
}

}  // namespace

TEST(ReadmeMainJob, TheTableShowsWhatTheMainJobPrints) {
  // 12 simulations, 30 s on 2 cores; ten times that under AddressSanitizer, whose builds
  // check memory, not figures.
  if (npu::test::kUnderAddressSanitizer) GTEST_SKIP() << "the main job takes minutes under AddressSanitizer";
  const std::string readme = npu::test::read_file(std::string(NPU_SOURCE_DIR) + "/README.md");
  std::string args = main_job_args(readme);
  const auto out_flag = args.find("--out results");
  ASSERT_NE(out_flag, std::string::npos) << "README's first command: " << args;
  const std::string out = npu::test::fresh_dir("readme-main-job");
  args.replace(out_flag, std::string("--out results").size(), "--out '" + out + "'");
  const auto r = npu::test::run_shell(std::string("cd '") + NPU_SOURCE_DIR + "' && '" + NPU_TOOL_PATH + "' " + args);
  ASSERT_EQ(r.status, 0) << r.output;

  const std::vector<std::string> table = readme_block(readme, true);
  ASSERT_GE(table.size(), 2u) << "no table under '## What the main job prints'";
  std::vector<std::vector<std::string>> printed;
  std::istringstream in(r.output);
  for (std::string line; std::getline(in, line);) printed.push_back(words(line));
  for (const auto& line : table) {
    const auto want = words(line);
    ASSERT_GE(want.size(), 3u) << line;
    // The header by its words; a row by its model, hw and strategy (the first three words).
    const std::vector<std::string>* got = nullptr;
    for (const auto& p : printed)
      if (p.size() >= 3 && std::equal(want.begin(), want.begin() + 3, p.begin())) got = &p;
    ASSERT_NE(got, nullptr) << "README row not printed by the main job: " << line << "\n" << r.output;
    std::string printed_row;
    for (const auto& w : *got) printed_row += w + " ";
    EXPECT_EQ(*got, want) << "README.md, 'What the main job prints', differs from the main job's output: update it\n"
                          << "README:  " << line << "\nprinted: " << printed_row;
  }
  // The notes under the table, each printed as written up to a "(...)" the README shortens.
  for (const auto& line : readme_block(readme, false)) {
    const std::string shown = line.substr(0, line.find(" (...)"));
    EXPECT_NE(r.output.find(shown), std::string::npos)
        << "README.md, 'What the main job prints': this line is not printed by the main job: update it\n" << shown;
  }
}
