// `npu scalesim TOPOLOGY.csv --config FILE.cfg [--out DIR] [--format auto|conv|gemm]`:
// SCALE-Sim's compute figures from our systolic model (ideal memory, as SCALE-Sim's CALC
// mode): per-layer cycles, mapping efficiency, utilisation and the total; DIR/<run>.csv.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "npu/base/files.hpp"
#include "command.hpp"
#include "npu/compiler/frontend/scalesim/config.hpp"
#include "npu/compiler/frontend/scalesim/topology.hpp"
#include "npu/sim/run/scalesim.hpp"
#include "npu/sim/io/output_files.hpp"

namespace npu::tool {
namespace {

struct ScaleSimArgs {
  std::string topology, config, out, format = "auto";
};

void run(const ScaleSimArgs& a) {
  compiler::TopologyFormat fmt_kind = compiler::TopologyFormat::Auto;
  if (a.format == "conv") fmt_kind = compiler::TopologyFormat::Conv;
  else if (a.format == "gemm") fmt_kind = compiler::TopologyFormat::Gemm;
  else if (a.format != "auto") throw ConfigError("--format: error: '" + a.format + "' is not one of auto, conv, gemm");
  const compiler::ScaleSimConfig cfg = compiler::read_scalesim_config(a.config);
  const auto layers = compiler::read_scalesim_topology(a.topology, fmt_kind);
  const auto results = sim::scalesim_compute(layers, cfg);
  if (cfg.interface_bandwidth != "CALC") {
    std::cerr << a.config << ": note: InterfaceBandwidth " << cfg.interface_bandwidth
              << ": memory stalls are not modelled here (figures are CALC-mode compute cycles)\n";
  }
  if (cfg.sparsity_support)  // SCALE-Sim v3 skips pruned weight blocks; every layer here runs dense
    std::cerr << a.config << ": note: SparsitySupport true: sparsity is not modelled here (every layer runs dense, "
              << "as with SparsitySupport false)\n";
  std::cout << fmt::format("{} on {}x{} {} ({})\n", a.topology, cfg.array_height, cfg.array_width, to_string(cfg.dataflow),
                           a.config);
  std::size_t w = 5;
  for (const auto& r : results) w = std::max(w, r.layer.name.size());
  std::cout << fmt::format("{:>4}  {:<{}}  {:>14}  {:>12}  {:>9}  {:>9}  {:>9}\n", "id", "layer", w, "MACs", "cycles",
                           "map eff%", "comp ut%", "overall%");
  std::int64_t total = 0;
  std::uint64_t macs = 0;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    total += r.cycles;
    macs += r.layer.macs();
    std::cout << fmt::format("{:>4}  {:<{}}  {:>14}  {:>12}  {:>9.2f}  {:>9.2f}  {:>9.2f}\n", i, r.layer.name, w,
                             r.layer.macs(), r.cycles, r.mapping_efficiency_pct, r.compute_util_pct, r.overall_util_pct);
  }
  std::cout << fmt::format("total  {} layers, {} MACs, {} cycles, overall utilisation {:.2f} %\n", results.size(), macs,
                           total, 100.0 * double(macs) / (double(total) * cfg.array_height * cfg.array_width));
  if (!a.out.empty()) {
    namespace fs = std::filesystem;
    create_output_folder(a.out);
    const std::string stem = fs::path(a.topology).stem().string() + "__" + fs::path(a.config).stem().string();
    const std::string path = (fs::path(a.out) / (stem + ".csv")).string();
    sim::write_file_atomic(path, sim::scalesim_csv(results));
    std::cout << "wrote " << path << "\n";
  }
}

void add_scalesim(CLI::App& app) {
  auto args = std::make_shared<ScaleSimArgs>();
  CLI::App* cmd = app.add_subcommand("scalesim", "per-layer compute cycles of a SCALE-Sim topology on a SCALE-Sim config "
                                                 "(our systolic model, ideal memory)");
  cmd->add_option("topology", args->topology, "SCALE-Sim topology CSV")->required();
  cmd->add_option("--config", args->config, "SCALE-Sim .cfg (ArrayHeight, ArrayWidth, Dataflow)")->required();
  cmd->add_option("--out", args->out, "folder for <topology>__<config>.csv");
  cmd->add_option("--format", args->format, "topology format: auto (from the header), conv or gemm");
  cmd->callback([args] { run(*args); });
}

}  // namespace

NPU_COMMAND("scalesim", add_scalesim);

}  // namespace npu::tool
