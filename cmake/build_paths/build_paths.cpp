// The one object compiled with this build tree's paths (build_paths.hpp).
#include "build_paths.hpp"

const char* npu_build_source_dir() { return NPU_BUILD_SOURCE_DIR; }
const char* npu_build_binary_dir() { return NPU_BUILD_BINARY_DIR; }
const char* npu_build_tool_path() { return NPU_BUILD_TOOL_PATH; }
