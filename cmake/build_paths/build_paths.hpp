// Folders and files of this build tree, for its tests, tools and benchmarks (never an
// installed consumer). Force-included (-include) by the targets that link npu_build_paths.
//
// The paths live in one object, build_paths.cpp, compiled with them; every other file sees
// only these declarations. Two checkouts in different folders therefore compile every other
// file to the same preprocessed text and share compiler-cache entries (.ci/run's ccache;
// docs/validation.md), where a -DNPU_SOURCE_DIR="/abs/path" on each file made each checkout
// recompile the tests and the simulator from scratch.
#pragma once

/// Absolute path of the source tree (the folder with the top-level CMakeLists.txt).
const char* npu_build_source_dir();
/// Absolute path of the build tree.
const char* npu_build_binary_dir();
/// Absolute path of the built `npu` tool.
const char* npu_build_tool_path();

#define NPU_SOURCE_DIR (npu_build_source_dir())
#define NPU_BINARY_DIR (npu_build_binary_dir())
#define NPU_TOOL_PATH (npu_build_tool_path())
