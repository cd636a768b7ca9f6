// tests/common/shared_data.hpp: the rule for tests that need ../shared. Without
// NPU_REQUIRE_SHARED a missing file skips the test; with it, the test fails; a present file
// lets the test go on. The macro is run under gtest's own result spy (gtest-spi.h), so what is
// checked is the result gtest would record for a real test.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "shared_data.hpp"

namespace {

const char* const kMissing = "/nonexistent/npu-shared-data-test/model.onnx";

/// Sets NPU_REQUIRE_SHARED to `value` (nullptr: unsets it) for one scope, then restores it.
class ScopedRequireShared {
 public:
  explicit ScopedRequireShared(const char* value) {
    if (const char* old = std::getenv("NPU_REQUIRE_SHARED")) old_ = old, had_ = true;
    if (value) ::setenv("NPU_REQUIRE_SHARED", value, 1);
    else ::unsetenv("NPU_REQUIRE_SHARED");
  }
  ~ScopedRequireShared() {
    if (had_) ::setenv("NPU_REQUIRE_SHARED", old_.c_str(), 1);
    else ::unsetenv("NPU_REQUIRE_SHARED");
  }

 private:
  std::string old_;
  bool had_ = false;
};

// A test body that needs `path`; `reached` tells whether it went on past the check.
void needs(const std::string& path, bool& reached) {
  reached = false;
  NPU_REQUIRE_SHARED_OR_SKIP(path);
  reached = true;
}

/// Records in `results` what gtest records for needs(path) with NPU_REQUIRE_SHARED = `env`.
void run_needs(const char* env, const std::string& path, bool& reached, testing::TestPartResultArray& results) {
  ScopedRequireShared scoped(env);
  testing::ScopedFakeTestPartResultReporter spy(testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD,
                                                &results);
  needs(path, reached);
}

TEST(SharedData, EnvironmentValueDecidesWhetherMissingDataFails) {
  EXPECT_FALSE(npu::test::shared_data_required(nullptr));  // unset: a developer's machine
  EXPECT_FALSE(npu::test::shared_data_required(""));
  EXPECT_FALSE(npu::test::shared_data_required("0"));
  EXPECT_TRUE(npu::test::shared_data_required("1"));  // what .ci/run exports
  EXPECT_TRUE(npu::test::shared_data_required("yes"));
}

TEST(SharedData, CheckIsPresentSkipOrFail) {
  using npu::test::SharedCheck;
  EXPECT_EQ(npu::test::shared_check(NPU_SOURCE_DIR, false), SharedCheck::Present);
  EXPECT_EQ(npu::test::shared_check(NPU_SOURCE_DIR, true), SharedCheck::Present);
  EXPECT_EQ(npu::test::shared_check(kMissing, false), SharedCheck::Skip);
  EXPECT_EQ(npu::test::shared_check(kMissing, true), SharedCheck::Fail);
}

TEST(SharedData, MissingFileFailsTheTestWhenRequired) {
  bool reached = true;
  testing::TestPartResultArray results;
  run_needs("1", kMissing, reached, results);
  ASSERT_EQ(results.size(), 1);
  EXPECT_TRUE(results.GetTestPartResult(0).fatally_failed());
  EXPECT_NE(std::string(results.GetTestPartResult(0).message()).find(kMissing), std::string::npos);
  EXPECT_NE(std::string(results.GetTestPartResult(0).message()).find("NPU_REQUIRE_SHARED is set"), std::string::npos);
  EXPECT_FALSE(reached);
}

TEST(SharedData, MissingFileSkipsTheTestOtherwise) {
  for (const char* env : {static_cast<const char*>(nullptr), "0"}) {
    bool reached = true;
    testing::TestPartResultArray results;
    run_needs(env, kMissing, reached, results);
    ASSERT_EQ(results.size(), 1) << (env ? env : "unset");
    EXPECT_TRUE(results.GetTestPartResult(0).skipped());
    EXPECT_NE(std::string(results.GetTestPartResult(0).message()).find(kMissing), std::string::npos);
    EXPECT_FALSE(reached);
  }
}

TEST(SharedData, PresentFileLetsTheTestGoOn) {
  bool reached = false;
  testing::TestPartResultArray results;
  run_needs("1", NPU_SOURCE_DIR, reached, results);
  EXPECT_EQ(results.size(), 0);
  EXPECT_TRUE(reached);
}

TEST(SharedData, PathIsBesideTheCheckout) {
  EXPECT_EQ(npu::test::shared_path("models/cases"), std::string(NPU_SOURCE_DIR) + "/../shared/models/cases");
}

}  // namespace
