#include "npu/sim/experiment/sweep_clock_note.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "npu/hw_config/hw_config.hpp"

namespace npu::sim {

std::string sweep_clock_note(const SweepSpec& spec) {
  const std::string rate_key = "ddr.data_rate_mtps";
  std::vector<double> rates;
  bool timing_swept = false;
  for (const auto& axis : spec.axes)
    for (std::size_t p = 0; p < axis.paths.size(); ++p) {
      if (axis.paths[p].rfind("ddr.timing", 0) == 0) timing_swept = true;
      if (axis.paths[p] != rate_key) continue;
      for (const auto& v : axis.values)
        if (p < v.size()) {
          // Only a whole value: std::stod alone read '2400MT/s' as 2400, a value the config
          // check refuses (its cell is invalid), and the note named a rate no cell runs at.
          std::size_t used = 0;
          try {
            const double rate = std::stod(v[p], &used);
            if (used == v[p].size()) rates.push_back(rate);
          } catch (const std::exception&) {
          }
        }
    }
  for (const auto& [key, value] : spec.set)
    if (key.rfind("ddr.timing", 0) == 0) timing_swept = true;
  if (rates.empty() || timing_swept) return "";
  const HwConfig base = load_hw_config(spec.base);
  const DdrTimingCk& t = base.ddr.timing;
  if (t.t_refi <= 0) return "";
  const auto [lo, hi] = std::minmax_element(rates.begin(), rates.end());
  if (!(*lo > 0)) return "";
  const auto ns = [](int ck, double rate) { return double(ck) * 2000.0 / rate; };
  const std::string figures =
      *lo == *hi ? fmt::format("tREFI = {} tCK is {:.2f} us at {:g} MT/s, tRCD = {} tCK {:.2f} ns", t.t_refi,
                               ns(t.t_refi, *lo) / 1000.0, *lo, t.t_rcd, ns(t.t_rcd, *lo))
                 : fmt::format("tREFI = {} tCK is {:.2f} us at {:g} MT/s and {:.2f} us at {:g} MT/s, tRCD = {} tCK "
                               "{:.2f} ns and {:.2f} ns",
                               t.t_refi, ns(t.t_refi, *lo) / 1000.0, *lo, ns(t.t_refi, *hi) / 1000.0, *hi, t.t_rcd,
                               ns(t.t_rcd, *lo), ns(t.t_rcd, *hi));
  return fmt::format(
      "npu sweep: note: {} is swept with ddr.timing fixed in clocks (tCK = 2000 / data_rate_mtps ns, docs/config.md): "
      "{}, and every other timing scales alike\n  fix: to keep a device's ns timings, zip its ddr.timing keys (in tCK "
      "at each rate) with the rate (docs/sweep.md \"zip\")\n",
      rate_key, figures);
}

}  // namespace npu::sim
