// npu llm's output files: steps/<hw>__<strategy>.csv and llm.{csv,json,md} (docs/llm.md).
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "npu/base/config_error.hpp"
#include "npu/base/files.hpp"
#include "npu/base/safe_file_name.hpp"
#include "npu/base/text_table.hpp"
#include "npu/sim/llm/llm_report.hpp"

namespace npu::sim {
namespace {

namespace fs = std::filesystem;

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) throw ConfigError(path.string() + ": error: cannot write; check the --out folder's permissions");
}

const char* const kLlmHeader =
    "model,hw,strategy,prompt,generate,batch,ttft_ms,tpot_first_ms,tpot_mean_ms,tpot_last_ms,tokens_per_s,"
    "weight_bytes_per_token,kv_read_bytes_per_token,kv_write_bytes_per_token,activation_bytes_per_token,"
    "ddr_bytes_per_token,over_compulsory,mac_utilisation,ddr_bw_utilisation,energy_per_token_mj,ddr_roofline_ms,"
    "tpot_over_roofline,held_back_by,decode_method,status,error";

std::string csv_quote(const std::string& s) {
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// Mean time per output token over the DDR roofline (1.00 = DDR-bound at peak); 0 without one.
double over_roofline(const LlmFigures& f) { return f.roofline_ms > 0 ? f.tpot_mean_ms / f.roofline_ms : 0; }

// A pair that did not finish: its names and lengths, empty figures, its status and error.
std::string failed_csv_row(const LlmFigures& f) {
  return fmt::format("{},{},{},{},{},{},,,,,,,,,,,,,,,,,,{},{},{}\n", f.model, f.hw, f.strategy, f.prompt, f.generate,
                     f.batch, csv_quote(f.decode_method), f.status, csv_quote(f.error));
}

std::string csv_row(const LlmFigures& f) {
  if (f.status != "ok") return failed_csv_row(f);
  const auto& b = f.bytes_per_token;
  return fmt::format("{},{},{},{},{},{},{:.6f},{:.6f},{:.6f},{:.6f},{:.3f},{:.1f},{:.1f},{:.1f},{:.1f},{:.1f},{:.4f},"
                     "{:.6f},{:.6f},{},{:.6f},{:.4f},{},{},ok,\n",
                     f.model, f.hw, f.strategy, f.prompt, f.generate, f.batch, f.ttft_ms, f.tpot_first_ms,
                     f.tpot_mean_ms, f.tpot_last_ms, f.tokens_per_s, b.weights, b.kv_read, b.kv_write, b.activations,
                     b.total(), f.over_compulsory, f.mac_utilisation, f.ddr_bw_utilisation,
                     f.energy_per_token_mj ? fmt::format("{:.6f}", *f.energy_per_token_mj) : std::string(),
                     f.roofline_ms, over_roofline(f), csv_quote(f.held_back_by), csv_quote(f.decode_method));
}

// steps/<hw>__<strategy>.csv: one pair's decode steps (write_steps_csv), relative to the folder.
std::string steps_csv_name(const std::string& hw_label, const std::string& strategy) {
  return "steps/" + npu::safe_file_name(hw_label + "__" + strategy) + ".csv";
}

nlohmann::ordered_json json_row(const LlmFigures& f) {
  nlohmann::ordered_json j;
  j["model"] = f.model, j["hw"] = f.hw, j["strategy"] = f.strategy;
  j["prompt"] = f.prompt, j["generate"] = f.generate, j["batch"] = f.batch;
  j["status"] = f.status;
  if (f.status != "ok") {  // no figures: the error says which run did not finish and why
    j["error"] = f.error;
    j["decode_method"] = f.decode_method;
    return j;
  }
  j["ttft_ms"] = f.ttft_ms;
  j["tpot_ms"] = {{"first", f.tpot_first_ms}, {"mean", f.tpot_mean_ms}, {"last", f.tpot_last_ms}};
  j["tokens_per_s"] = f.tokens_per_s;
  const auto& b = f.bytes_per_token;
  j["ddr_bytes_per_token"] = {{"weights", b.weights}, {"kv_read", b.kv_read}, {"kv_write", b.kv_write},
                              {"activations", b.activations}, {"total", b.total()}};
  j["over_compulsory"] = f.over_compulsory;
  j["mac_utilisation"] = f.mac_utilisation;
  j["ddr_bw_utilisation"] = f.ddr_bw_utilisation;
  j["energy_per_token_mj"] = f.energy_per_token_mj ? nlohmann::ordered_json(*f.energy_per_token_mj) : nullptr;
  j["ddr_roofline_ms"] = f.roofline_ms;
  j["tpot_over_roofline"] = over_roofline(f);
  j["held_back_by"] = f.held_back_by;
  j["decode_method"] = f.decode_method;
  j["steps_csv"] = steps_csv_name(f.hw, f.strategy);  // this run's steps: what scripts/plot_llm.py draws
  return j;
}

// One table row (text and Markdown share the cells).
// A pair that did not finish: its names, then "FAILED: run: why" running to the end of the line.
std::vector<std::string> table_cells(const LlmFigures& f) {
  if (f.status != "ok")
    return {f.hw, f.strategy, (f.status == "interrupted" ? "INTERRUPTED: " : "FAILED: ") + f.error};
  const auto& b = f.bytes_per_token;
  return {f.hw, f.strategy, fmt::format("{:.4f}", f.ttft_ms),
          fmt::format("{:.4f} / {:.4f} / {:.4f}", f.tpot_first_ms, f.tpot_mean_ms, f.tpot_last_ms),
          fmt::format("{:.1f}", f.tokens_per_s),
          fmt::format("{:.0f} / {:.0f} / {:.0f} / {:.0f}", b.weights, b.kv_read, b.kv_write, b.activations),
          fmt::format("{:.2f}", f.over_compulsory),
          fmt::format("{:.1f}% / {:.1f}%", 100 * f.mac_utilisation, 100 * f.ddr_bw_utilisation),
          f.energy_per_token_mj ? fmt::format("{:.4f}", *f.energy_per_token_mj) : std::string("-"),
          fmt::format("{:.2f}x ({})", over_roofline(f), f.held_back_by)};
}

const std::vector<std::string> kTableHeads = {"hw", "strategy", "TTFT ms", "TPOT ms first/mean/last", "tokens/s",
                                              "B/token weights/KV read/KV write/act", "x compulsory",
                                              "MAC/DDR util", "mJ/token", "TPOT / DDR roofline (busiest)"};

}  // namespace

void write_steps_csv(const std::string& out_dir, const std::string& hw_label, const std::string& strategy,
                     const std::vector<LlmStep>& steps) {
  create_output_folder((fs::path(out_dir) / "steps").string());
  std::string text = "context,simulated,latency_ms,weight_bytes,kv_read_bytes,kv_write_bytes,activation_bytes,"
                     "compulsory_bytes\n";
  for (const auto& s : steps)
    text += fmt::format("{},{},{:.6f},{:.1f},{:.1f},{:.1f},{:.1f},{:.1f}\n", s.context, s.simulated ? 1 : 0,
                        s.latency_ms, s.bytes.weights, s.bytes.kv_read, s.bytes.kv_write, s.bytes.activations,
                        s.compulsory_bytes);
  write_text(fs::path(out_dir) / steps_csv_name(hw_label, strategy), text);
}

std::string write_llm_summary(const std::string& out_dir, const std::vector<LlmFigures>& rows) {
  std::string csv = std::string(kLlmHeader) + "\n";
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  std::ostringstream md, txt;
  md << "| " << fmt::format("{}", fmt::join(kTableHeads, " | ")) << " |\n|"
     << fmt::format("{}", fmt::join(std::vector<std::string>(kTableHeads.size(), "---"), "|")) << "|\n";
  std::vector<std::vector<std::string>> table;
  for (const auto& f : rows) {
    csv += csv_row(f);
    all.push_back(json_row(f));
    const auto cells = table_cells(f);
    md << "| " << fmt::format("{}", fmt::join(cells, " | ")) << " |\n";
    table.push_back(cells);
  }
  std::vector<TextColumn> columns;
  for (std::size_t i = 0; i < kTableHeads.size(); ++i)
    columns.push_back({kTableHeads[i], i >= 2 && i + 1 < kTableHeads.size() ? TextAlign::Right : TextAlign::Left});
  txt << format_text_table(columns, table, "  |  ");
  if (!rows.empty()) {
    const std::string method = "decode: " + rows.front().decode_method + "\n";
    md << "\n" << method;
    txt << method;
  }
  write_text(fs::path(out_dir) / "llm.csv", csv);
  write_text(fs::path(out_dir) / "llm.json", all.dump(2) + "\n");
  write_text(fs::path(out_dir) / "llm.md", md.str());
  return txt.str();
}

}  // namespace npu::sim
