#include "npu/sim/experiment/sweep_clock_note.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "npu/hw_config/hw_config.hpp"

namespace npu::sim {

std::string sweep_clock_note(const SweepSpec& spec, const std::vector<ConfigPoint>& points) {
  const std::string rate_key = "ddr.data_rate_mtps";
  std::vector<double> rates;
  bool timing_swept = false;
  // Points are the axes' cartesian product, the first axis varying slowest (docs/sweep.md): the
  // value of axis a at point i is (i / the product of the later axes' lengths) mod its length.
  std::size_t later = 1;
  for (std::size_t a = spec.axes.size(); a-- > 0;) {
    const auto& axis = spec.axes[a];
    const std::size_t n = axis.values.size();
    for (std::size_t p = 0; p < axis.paths.size(); ++p) {
      if (axis.paths[p].rfind("ddr.timing", 0) == 0) timing_swept = true;
      if (axis.paths[p] != rate_key) continue;
      // Only rates some valid cell runs at: '2400MT/s', 0 or 100000 are invalid cells, and the
      // note named them (std::stod read '2400MT/s' as 2400; new-user findings).
      for (std::size_t v = 0; v < n; ++v) {
        bool runs = false;
        for (std::size_t i = 0; i < points.size() && !runs; ++i)
          runs = (i / later) % n == v && points[i].invalid.empty();
        if (!runs || p >= axis.values[v].size()) continue;
        try {
          rates.push_back(std::stod(axis.values[v][p]));
        } catch (const std::exception&) {  // a text the loader took as a number: no figure to give
        }
      }
    }
    later *= n;
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
