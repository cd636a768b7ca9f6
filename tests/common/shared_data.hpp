// The test data beside the checkout (../shared: the real ONNX models, the one-op cases, the
// SCALE-Sim anchors) and the one rule for a test that needs a file there and does not find it:
// the test skips with a message naming the file, or, when NPU_REQUIRE_SHARED is set (to
// anything but "" or "0"), fails. .ci/run sets it: CI has the data, so there a missing file is
// a broken setup, and a suite that skipped its real-model checks must not pass.
// Skips for other reasons (node/ONNX Runtime, Graphviz, matplotlib, Slurm, NPU_TORCHVISION_DIR)
// are not this rule's: a CI machine may lack those tools by design.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace npu::test {

/// `rel` in the shared folder beside the checkout: NPU_SOURCE_DIR/../shared/rel.
inline std::string shared_path(const std::string& rel) {
  return std::string(NPU_SOURCE_DIR) + "/../shared/" + rel;
}

/// Whether the value of NPU_REQUIRE_SHARED (nullptr: unset) asks that missing shared data fail
/// the test: set and neither "" nor "0".
inline bool shared_data_required(const char* env_value) {
  return env_value != nullptr && std::string(env_value) != "" && std::string(env_value) != "0";
}

/// The same, from the environment.
inline bool shared_data_required() { return shared_data_required(std::getenv("NPU_REQUIRE_SHARED")); }

/// What a test does about a shared file or folder it needs.
enum class SharedCheck { Present, Skip, Fail };

/// Present when `path` exists; otherwise Fail when `required`, else Skip.
inline SharedCheck shared_check(const std::string& path, bool required) {
  if (std::filesystem::exists(path)) return SharedCheck::Present;
  return required ? SharedCheck::Fail : SharedCheck::Skip;
}

/// The message for a missing `path`, saying why the test fails or skips.
inline std::string shared_missing_message(const std::string& path, bool required) {
  return path + " is absent (the shared test data beside the checkout)" +
         (required ? std::string(": NPU_REQUIRE_SHARED is set, so a missing file fails the test")
                   : std::string("; skipped (set NPU_REQUIRE_SHARED=1 to make this a failure)"));
}

/// Every .onnx file in ../shared/models/torchvision and, when set, in $NPU_TORCHVISION_DIR
/// (exports made with ../shared/models/export_torchvision.py), sorted.
inline std::vector<std::string> torchvision_exports() {
  std::vector<std::string> files;
  std::vector<std::string> dirs = {shared_path("models/torchvision")};
  if (const char* d = std::getenv("NPU_TORCHVISION_DIR")) dirs.push_back(d);
  for (const auto& d : dirs) {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(d, ec))
      if (e.path().extension() == ".onnx") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace npu::test

/// Returns from the enclosing void function (a test body or a helper it calls) when `path`
/// (a file or folder, usually from npu::test::shared_path) does not exist: as a skip, or as a
/// fatal failure under NPU_REQUIRE_SHARED. Does nothing when it exists.
#define NPU_REQUIRE_SHARED_OR_SKIP(path)                                                                    \
  do {                                                                                                      \
    const std::string npu_shared_path_ = (path);                                                            \
    const bool npu_shared_required_ = ::npu::test::shared_data_required();                                  \
    switch (::npu::test::shared_check(npu_shared_path_, npu_shared_required_)) {                           \
      case ::npu::test::SharedCheck::Present:                                                               \
        break;                                                                                              \
      case ::npu::test::SharedCheck::Fail:                                                                  \
        FAIL() << ::npu::test::shared_missing_message(npu_shared_path_, true);                              \
      case ::npu::test::SharedCheck::Skip:                                                                  \
        GTEST_SKIP() << ::npu::test::shared_missing_message(npu_shared_path_, false);                       \
    }                                                                                                       \
  } while (0)
