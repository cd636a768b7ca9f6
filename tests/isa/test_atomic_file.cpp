// AtomicOutputFile (base/atomic_file.hpp): the stream outputs (traces, VCD, generated traces)
// and every whole-text output (write_file_atomic) appear only complete, never truncated.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "npu/base/atomic_file.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu {
namespace {

namespace fs = std::filesystem;

std::string dir() {
  const fs::path d = fs::temp_directory_path() / ("npu-atomic-" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d.string();
}

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(AtomicOutputFile, UncommittedLeavesThePreviousFileAndNoTemporary) {
  const std::string path = dir() + "/trace.csv";
  std::ofstream(path) << "previous\n";
  {
    AtomicOutputFile f(path, "trace file");
    f.stream() << "half a trace";
    EXPECT_TRUE(fs::exists(f.temp_path()));
    EXPECT_EQ(slurp(path), "previous\n");  // not visible before commit
  }  // e.g. the run threw
  EXPECT_EQ(slurp(path), "previous\n");
  EXPECT_FALSE(fs::exists(path + ".tmp." + std::to_string(::getpid())));
}

TEST(AtomicOutputFile, CommitReplacesTheFile) {
  const std::string path = dir() + "/run.json";
  std::ofstream(path) << "old";
  AtomicOutputFile f(path, "run.json");
  f.stream() << "new";
  f.commit();
  EXPECT_EQ(slurp(path), "new");
  EXPECT_FALSE(fs::exists(f.temp_path()));
}

TEST(AtomicOutputFile, MissingFolderIsAClearError) {
  try {
    AtomicOutputFile f("/nonexistent-npu-dir/x.trace", "trace");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "/nonexistent-npu-dir/x.trace: error: cannot write the trace (missing folder or no permission)\n"
                 "  fix: choose a writable path");
  }
}

}  // namespace
}  // namespace npu
