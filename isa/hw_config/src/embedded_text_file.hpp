// Text files of the source tree built into the library (cmake/embed_text_files.cmake).
#pragma once

#include <cstddef>

namespace npu::detail {

struct EmbeddedTextFile {
  const char* name;  ///< e.g. "ddr4-3200"
  const char* path;  ///< relative to the source tree, e.g. "configs/ddr/ddr4-3200.yaml"
  const char* text;  ///< the file's bytes
};

/// configs/ddr/<name>.yaml for each DDR preset, in the order of NPU_DDR_PRESETS
/// (isa/hw_config/CMakeLists.txt); generated into the build tree as ddr_preset_files.cpp.
extern const EmbeddedTextFile kDdrPresetFiles[];
extern const std::size_t kDdrPresetFiles_count;

}  // namespace npu::detail
