// The DDR trace targets: TraceReader reads a file, so each input is written to one scratch
// file per process (in TMPDIR, else /tmp) and read back through the real reader, ordering
// checks included.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "fuzz_common.hpp"
#include "npu/hw/ddr/ddr_trace_file.hpp"

namespace npu::fuzz {

inline const std::string& scratch_path(const char* name) {
  static const std::string path = [name] {
    const char* dir = std::getenv("TMPDIR");
    return std::string(dir && *dir ? dir : "/tmp") + "/npu-fuzz-" + name + "-" + std::to_string(::getpid());
  }();
  return path;
}

inline int read_trace(const std::uint8_t* data, std::size_t size, npu::hw::TraceFormat format, const char* name) {
  const std::string& path = scratch_path(name);
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  return run_one([&] {
    npu::hw::TraceReader reader(path, format);
    npu::hw::TraceRequest r;
    npu::hw::Tick last = 0;
    while (reader.next(r)) {
      if (format == npu::hw::TraceFormat::Dramsim3 && (r.cycle < last || r.cycle > npu::hw::kMaxTraceCycle))
        fuzz_fail("a DRAMSim3 cycle stamp out of order or out of range was accepted", std::to_string(r.cycle));
      last = r.cycle;
    }
  });
}

}  // namespace npu::fuzz
