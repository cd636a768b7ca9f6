// Subcommand registry of the `npu` tool. Each tool/cmd_*.cpp adds its subcommands with
// NPU_COMMAND(fn); main() calls them in name order, so adding a command touches one file.
//
// Exit statuses: 0 success, 1 bad input (a callback throws npu::ConfigError or calls
// set_exit_status(1)), 2 internal error (any other exception).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "npu/base/config_error.hpp"
#include "npu/base/user_text.hpp"
#include "npu/sim/run/trace_kinds.hpp"
#include "integer_option.hpp"

namespace npu::tool {

using CommandAdder = void (*)(CLI::App& app);

/// Registers `adder` under `name` (the sort key); returns true so it can run at static init.
bool register_command(const char* name, CommandAdder adder);

/// `-q, --quiet` with one meaning in every command that runs work (simulate, experiment,
/// sweep, verify, llm): print nothing on success -- no table, no progress line, no note. Errors,
/// and the line saying that a run failed, still go to stderr; the exit status is unchanged.
/// (`npu compile -q` keeps what --explain asks for.)
inline void add_quiet_flag(CLI::App* cmd, bool& target) {
  cmd->add_flag("-q,--quiet", target,
                "Print nothing on success: no table, progress or notes (errors and failures still go to stderr)");
}

/// `--allow-nonfinite` (simulate, verify): run with NaN or Inf in --input files, with a
/// warning; without it such a file is refused (NaN compares equal to NaN: "all pass" would lie).
inline void add_allow_nonfinite_flag(CLI::App* cmd, bool& target) {
  cmd->add_flag("--allow-nonfinite", target,
                "Accept NaN/Inf in --input files (warns); by default they are refused");
}

/// True when `v` is a whole decimal integer (no trailing characters, no fraction, no overflow) in
/// [lo, hi]: the shared test of the integer options below.
inline bool is_integer_in(const std::string& v, long long lo, long long hi) {
  std::size_t used = 0;
  long long n = 0;
  try {
    n = std::stoll(v, &used);
  } catch (const std::exception&) {
    return false;
  }
  return !v.empty() && used == v.size() && n >= lo && n <= hi;
}

/// `--dynamic-size N` (compile, simulate, experiment): the worst case for dimensions known
/// only at run time. N must be an integer from 1 to 2^31; anything else is refused with that.
inline void add_dynamic_size_option(CLI::App* cmd, std::int64_t& target) {
  cmd->add_option("--dynamic-size", target,
                  "Size for dimensions known only at run time (e.g. detections after NMS): compile for this worst case")
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            if (!is_integer_in(v, 1, 1LL << 31))
              return "'" + v.substr(0, 32) + "' is not an integer from 1 to 2147483648 (2^31); give the largest "
                     "run-time size to compile for, e.g. --dynamic-size 100";
            return "";
          },
          "INT in [1, 2^31]"));
}

/// Largest -j: simulations run at a time. Each child is a whole simulation process (hundreds
/// of MB for a large model), so more than this would exhaust any machine's memory first.
inline constexpr int kMaxJobs = 1024;

/// `-j, --jobs N` (experiment, sweep, verify, llm): simulations run at a time, an integer
/// from 1 to kMaxJobs; anything else (0, -1, 1.5, 99999999999) is refused naming that range.
inline void add_jobs_option(CLI::App* cmd, int& target) {
  cmd->add_option("-j,--jobs", target, "Simulations run at a time (processes, 1 to 1024)")
      ->default_val(1)
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            if (!is_integer_in(v, 1, kMaxJobs))
              return "'" + v.substr(0, 32) + "' is not an integer from 1 to " + std::to_string(kMaxJobs) +
                     " (simulations run at a time; e.g. -j 2, or the number of cores: nproc)";
            return "";
          },
          "INT in [1, 1024]"));
}

/// `--max-instructions N` (compile, simulate, experiment, llm): code generation refuses a program
/// past N instructions (memory bound; default compiler::kMaxProgramInstructions, 2 x 10^6).
/// `target` keeps 0 for the default when the option is absent.
inline void add_max_instructions_option(CLI::App* cmd, std::uint64_t& target) {
  add_integer_option(cmd, "--max-instructions", target,
                     "Refuse a program past this many instructions (default 2000000), with an estimate of its full "
                     "size (memory bound: about 0.3 KB each; small SRAMs and long prompts multiply them)",
                     1, 1ULL << 40, "instructions a program may hold, e.g. --max-instructions 6000000");
}

/// `--dropout-as-identity` (compile, simulate, verify, experiment): run a Dropout left in
/// training mode by its export as the identity, as inference does (refused without it).
inline void add_dropout_option(CLI::App* cmd, bool& target) {
  cmd->add_flag("--dropout-as-identity", target,
                "Run a Dropout whose training_mode is true (an export left in train() mode) as the identity, as "
                "inference does; without it such a model is refused");
}

/// The items of comma-separated option values, in order, empty items dropped
/// (["a,b", "c"] -> a, b, c).
inline std::vector<std::string> split_list(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const auto& item : items) {
    std::stringstream ss(item);
    std::string part;
    while (std::getline(ss, part, ','))
      if (!part.empty()) out.push_back(part);
  }
  return out;
}

/// The strategies of a `--strategies` option, each value checked: an empty value or entry
/// (`""`, `a,,b`, `,a`) is refused rather than taken as "the default list".
/// @throws npu::ConfigError naming the value and the fix.
inline std::vector<std::string> strategy_list(const std::vector<std::string>& items) {
  for (const auto& item : items)
    if (npu::has_empty_entry(item))
      throw npu::ConfigError("--strategies '" + item +
                             "': error: empty entry in the list; separate names with single commas, or leave the "
                             "option out for the default list");
  return split_list(items);
}

/// The trace kinds of `--trace` values, each value and kind checked (npu::sim::check_trace_kind:
/// an empty value or entry, `--trace ""` or `ddr,,vcd`, is refused rather than taken as no
/// trace; an unknown kind gets a did-you-mean).
/// @throws npu::ConfigError naming the value and the fix.
inline std::vector<std::string> trace_list(const std::vector<std::string>& items) {
  for (const auto& item : items) npu::sim::check_trace_value(item);
  std::vector<std::string> kinds = split_list(items);
  for (const auto& k : kinds) npu::sim::check_trace_kind(k);  // values checked: no empty kind
  return kinds;
}

/// Exit status the tool returns when no exception escapes (e.g. 1 when some experiment
/// runs failed but the others completed).
void set_exit_status(int status);

}  // namespace npu::tool

#define NPU_COMMAND(name, fn) \
  static const bool npu_command_registered_##fn = ::npu::tool::register_command(name, fn)
