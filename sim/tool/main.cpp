// The `npu` command-line tool: subcommands are registered by tool/cmd_*.cpp.
#include <algorithm>
#include <exception>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "command.hpp"
#include "npu/isa/hw_config.hpp"

namespace npu::tool {
namespace {
std::vector<std::pair<std::string, CommandAdder>>& registry() {
  static std::vector<std::pair<std::string, CommandAdder>> r;
  return r;
}
int g_exit_status = 0;
}  // namespace

bool register_command(const char* name, CommandAdder adder) {
  registry().emplace_back(name, adder);
  return true;
}

void set_exit_status(int status) { g_exit_status = std::max(g_exit_status, status); }

}  // namespace npu::tool

int main(int argc, char** argv) {
  CLI::App app{"npu-sim: a cycle-approximate NPU simulator with a fusion-aware compiler"};
  app.set_version_flag("--version", std::string("npu ") + NPU_VERSION);
  app.require_subcommand(1);
  auto& reg = npu::tool::registry();
  std::sort(reg.begin(), reg.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [name, adder] : reg) adder(app);
  // An unknown first word: name it and suggest the closest subcommand (CLI11 would only say
  // "A subcommand is required").
  if (argc > 1 && argv[1][0] != '-') {
    const std::string word = argv[1];
    bool known = false;
    std::string best;
    std::size_t best_d = std::string::npos;
    for (const auto& [name, adder] : reg) {
      known = known || name == word;
      // Levenshtein distance, O(|a| |b|) on short words.
      std::vector<std::size_t> row(name.size() + 1);
      for (std::size_t j = 0; j <= name.size(); ++j) row[j] = j;
      for (std::size_t i = 1; i <= word.size(); ++i) {
        std::size_t diag = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= name.size(); ++j) {
          const std::size_t up = row[j];
          row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (word[i - 1] == name[j - 1] ? 0 : 1)});
          diag = up;
        }
      }
      if (row[name.size()] < best_d) {
        best_d = row[name.size()];
        best = name;
      }
    }
    if (!known) {
      std::string all;
      for (const auto& [name, adder] : reg) all += (all.empty() ? "" : ", ") + name;
      std::cerr << "npu: error: unknown command '" << word.substr(0, 64) << "'"
                << (best_d <= 3 ? "; did you mean '" + best + "'?" : std::string()) << "\n  commands: " << all
                << "\n  run `npu --help` for more\n";
      return 1;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 1;
  } catch (const npu::ConfigError& e) {
    std::cerr << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "npu: internal error: " << e.what() << "\n";
    return 2;
  }
  return npu::tool::g_exit_status;
}
