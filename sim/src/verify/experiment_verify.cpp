// `npu experiment --verify` (experiment_verify.hpp).
#include "npu/sim/verify/experiment_verify.hpp"
#include "npu/base/user_text.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "npu/base/csv.hpp"
#include "npu/base/text_table.hpp"

namespace npu::sim {

VerifyFigures summarise_rows(const std::vector<VerifyRow>& rows) {
  VerifyFigures f;
  if (rows.empty()) return f;
  const VerifyRow& r = rows.front();
  f.sim_status = r.sim_status;
  f.bit_exact = r.bit_exact;
  f.pass = r.pass;
  auto worst = [](const std::vector<OutputError>& v, std::optional<double>& rel, std::optional<double>& sqnr,
                  std::optional<bool>& top1) {
    for (const auto& e : v) {
      if (!rel || e.rel > *rel) rel = e.rel;
      if (!sqnr || e.sqnr_db < *sqnr) sqnr = e.sqnr_db;
      if (e.top1) top1 = top1.value_or(true) && *e.top1;
    }
  };
  std::optional<double> unused;
  worst(r.sim, f.rel_error, f.sqnr_db, f.top1);
  worst(r.quant, unused, f.quant_sqnr_db, f.quant_top1);
  return f;
}

int add_verify_figures(std::vector<RunSummary>& runs, const VerifyOptions& base) {
  std::set<std::pair<std::string, std::string>> cells;
  for (const auto& r : runs) cells.insert({r.job.model, r.job.hw});
  int failed = 0;
  for (const auto& [model, hw] : cells) {
    VerifyOptions o = base;
    o.model = model;
    o.hw = hw;
    std::optional<VerifyInputs> in;
    std::string why;
    try {
      in = prepare_verify(o);
    } catch (const std::exception& e) {
      why = e.what();
      why = "not run: " + summary_line(why);
    }
    for (auto& r : runs) {
      if (r.job.model != model || r.job.hw != hw) continue;
      VerifyFigures f;
      if (!in) {
        f.sim_status = f.bit_exact = why;
        f.pass = false;
      } else if (in->fp32 && r.earlier_run && !std::filesystem::exists(std::filesystem::path(r.job.run_dir) / "outputs")) {
        // Kept from an earlier experiment that ran without --verify: there are no values to check.
        f.sim_status = "not run: kept from an earlier experiment without --verify (no outputs/)";
        f.bit_exact = "n/a (fp32 config)";
      } else {
        try {
          f = summarise_rows(verify_strategy(*in, r.job.strategy, r.job.run_dir, r.ok ? "" : r.error, o,
                                             r.job.run_dir + "/verify"));
        } catch (const std::exception& e) {
          const std::string m = e.what();
          f.sim_status = "failed: " + summary_line(m);
          f.bit_exact = in->fp32 ? "n/a (fp32 config)" : "not run: " + summary_line(m);
          f.pass = false;
        }
      }
      failed += f.pass ? 0 : 1;
      r.verify = f;
    }
  }
  return failed;
}

namespace {

std::string num(const std::optional<double>& v, const char* format) {
  if (!v) return "-";
  if (std::isinf(*v)) return *v > 0 ? "inf" : "-inf";
  return fmt::format(fmt::runtime(format), *v);
}

std::string yes_no(const std::optional<bool>& v) { return v ? (*v ? "yes" : "no") : "n/a"; }

}  // namespace

const char* const kVerifyCsvHeader =
    ",verify_status,verify_rel_error,verify_sqnr_db,verify_top1,quant_sqnr_db,quant_top1,bit_exact,verify_pass";

std::string verify_csv_fields(const RunSummary& r) {
  if (!r.verify) return ",,,,,,,,";
  const VerifyFigures& f = *r.verify;
  auto opt = [](const std::optional<double>& v) { return v ? num(v, "{:.6g}") : std::string(); };
  auto b = [](const std::optional<bool>& v) { return v ? std::string(*v ? "1" : "0") : std::string(); };
  return fmt::format(",{},{},{},{},{},{},{},{}", csv_field(f.sim_status), opt(f.rel_error), opt(f.sqnr_db), b(f.top1),
                     opt(f.quant_sqnr_db), b(f.quant_top1), csv_field(f.bit_exact), f.pass ? 1 : 0);
}

nlohmann::json verify_json(const VerifyFigures& f) {
  auto n = [](const std::optional<double>& v) {
    if (!v) return nlohmann::json(nullptr);
    if (std::isinf(*v)) return nlohmann::json(*v > 0 ? "inf" : "-inf");
    return nlohmann::json(*v);
  };
  auto b = [](const std::optional<bool>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  return {{"sim_status", f.sim_status}, {"rel_error", n(f.rel_error)},         {"sqnr_db", n(f.sqnr_db)},
          {"top1_agree", b(f.top1)},    {"quant_sqnr_db", n(f.quant_sqnr_db)}, {"quant_top1_agree", b(f.quant_top1)},
          {"bit_exact", f.bit_exact},   {"pass", f.pass}};
}

std::string verify_table(const std::vector<RunSummary>& runs, bool markdown) {
  if (std::none_of(runs.begin(), runs.end(), [](const RunSummary& r) { return r.verify.has_value(); })) return "";
  std::ostringstream s;
  s << "\nverification against the fp32 reference interpreter (docs/functional.md, \"What verify reports\"):\n";
  if (markdown)
    s << "\n| model | hw | strategy | simulator | rel error | SQNR dB | top-1 | int8 model SQNR dB | int8 top-1 | "
         "bit-exact |\n|---|---|---|---|---:|---:|---|---:|---|---|\n";
  std::vector<std::vector<std::string>> cells;
  for (const auto& r : runs) {
    if (!r.verify) continue;
    const VerifyFigures& f = *r.verify;
    const std::string status = f.sim_status + (f.pass ? "" : " (FAIL)");
    std::vector<std::string> row = {stem_of(r.job.model),      stem_of(r.job.hw),       strategy_label(r.job.strategy),
                                    status,                    num(f.rel_error, "{:.3g}"), num(f.sqnr_db, "{:.2f}"),
                                    yes_no(f.top1),            num(f.quant_sqnr_db, "{:.2f}"), yes_no(f.quant_top1),
                                    f.bit_exact};
    if (markdown) s << fmt::format("| {} |\n", fmt::join(row, " | "));
    cells.push_back(std::move(row));
  }
  if (!markdown) {
    const auto R = TextAlign::Right;
    s << format_text_table({{"model"}, {"hw"}, {"strategy"}, {"simulator"}, {"rel error", R}, {"SQNR dB", R}, {"top-1", R},
                            {"int8 dB", R}, {"int8 top1", R}, {"bit-exact"}},
                           cells);
  }
  return s.str();
}

}  // namespace npu::sim
