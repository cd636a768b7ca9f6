#include "npu/sim/run/run_with_data.hpp"
#include "npu/isa/cost/precision.hpp"

#include <stdexcept>

#include "npu/compiler/backend/emit/ddr_image.hpp"

namespace npu::sim {

void load_ddr_image(hw::BackingStore& ddr, const std::vector<compiler::DdrSegment>& image) {
  for (const compiler::DdrSegment& s : image) {
    try {
      ddr.write(s.ddr_addr, s.bytes.data(), s.bytes.size());
    } catch (const std::out_of_range& e) {
      throw ConfigError("error: DDR image segment '" + s.what + "': " + e.what());
    }
  }
}

std::vector<float> read_output(const hw::BackingStore& ddr, const compiler::TensorPlacement& p) {
  if (!p.int8) return ddr.read_f32(p.ddr_addr, p.bytes / 4);
  std::vector<float> v;
  for (std::int8_t q : read_output_int8(ddr, p)) v.push_back(float(double(int(q) - p.zero_point) * p.scale));
  return v;
}

std::vector<std::int8_t> read_output_int8(const hw::BackingStore& ddr, const compiler::TensorPlacement& p) {
  std::vector<std::int8_t> v(p.bytes);
  ddr.read(p.ddr_addr, v.data(), p.bytes);
  return v;
}

DataRunResult run_with_data(const compiler::CompileResult& compiled, const HwConfig& hw,
                            const std::map<std::string, std::vector<float>>& inputs, RunOptions opt) {
  if (const std::string why = isa::data_run_refusal(hw.mac_array); !why.empty())
    throw ConfigError(hw.source + ": error: " + why);
  const std::vector<compiler::DdrSegment> image = compiler::ddr_image(compiled, inputs);
  const std::vector<compiler::TensorPlacement> outs = compiler::output_placements(compiled);
  const std::uint64_t cap = hw.ddr.capacity_bytes() > 0 ? hw.ddr.capacity_bytes() : ~std::uint64_t(0);
  hw::BackingStore ddr("DDR", cap);
  load_ddr_image(ddr, image);
  opt.ddr_data = &ddr;
  DataRunResult r;
  r.run = run_program(compiled.program, hw, opt);
  for (const compiler::TensorPlacement& p : outs) {
    r.outputs[p.name] = read_output(ddr, p);
    if (p.int8) r.outputs_int8[p.name] = read_output_int8(ddr, p);
    r.output_shapes[p.name] = p.shape;
  }
  r.ddr_pages_touched = ddr.pages_touched();
  r.ddr_resident_bytes = ddr.resident_bytes();
  return r;
}

}  // namespace npu::sim
