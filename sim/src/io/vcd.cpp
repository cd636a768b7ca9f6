// VCD helpers: the waveforms themselves come from sc_trace of NpuTop's busy and bandwidth
// signals (hw_models/src/npu_top.cpp), driven once per transaction.
#include <fstream>
#include <sstream>

#include <cstdio>
#include "npu/sim/io/output_files.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/sim/io/timeline.hpp"

namespace npu::sim {

std::string vcd_base_name(const std::string& path) {
  const std::string ext = ".vcd";
  if (path.size() > ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0) {
    return path.substr(0, path.size() - ext.size());
  }
  return path;
}

void make_vcd_reproducible(const std::string& written, const std::string& path) {
  std::ifstream in(written, std::ios::binary);
  if (!in) throw ConfigError(written + ": error: cannot read the VCD file SystemC wrote");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  in.close();
  const std::size_t d = text.find("$date");
  if (d != std::string::npos) {
    const std::size_t e = text.find("$end", d);
    if (e != std::string::npos) text.replace(d, e - d, "$date\n     (omitted: reproducible output)\n");
  }
  write_file_atomic(path, text);
  std::remove(written.c_str());
}

}  // namespace npu::sim
