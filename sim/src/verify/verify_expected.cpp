// `npu verify --expected`: which comparisons with the outside reference fail (verify.hpp).
#include <fmt/format.h>

#include "npu/sim/verify/verify.hpp"

namespace npu::sim {

namespace {

// "WHO vs --expected 'NAME': max abs A, relative R > tolerance T" when R is above T or NaN.
void add_if_beyond(std::vector<std::string>& out, const std::string& who, const OutputError& e, double tolerance) {
  if (e.rel <= tolerance) return;
  out.push_back(fmt::format("{} vs --expected '{}': max abs {:.3g}, relative {:.3g} > tolerance {:g}", who, e.output,
                            e.max_abs, e.rel, tolerance));
}

}  // namespace

std::vector<std::string> expected_mismatches(const VerifyReport& r, double tolerance) {
  std::vector<std::string> out;
  for (const auto& e : r.reference_vs_expected) add_if_beyond(out, "our fp32 reference", e, tolerance);
  for (const auto& row : r.rows)
    for (const auto& e : row.sim_vs_expected)
      add_if_beyond(out, "strategy " + row.strategy + (row.variant.empty() ? "" : " (" + row.variant + ")") +
                             ": simulator",
                    e, tolerance);
  return out;
}

}  // namespace npu::sim
