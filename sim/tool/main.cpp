// The `npu` command-line tool: subcommands are registered by tool/cmd_*.cpp.
#include <algorithm>
#include <exception>
#include <filesystem>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "cli_messages.hpp"
#include "command.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/base/user_text.hpp"
#include "npu/sim/experiment/child_signals.hpp"

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

namespace {

using npu::tool::edit_distance;
using npu::tool::repeated_option_message;
using npu::tool::required_option_message;
using npu::tool::unknown_nested_command;
using npu::tool::unknown_option_message;

int run_parsed(CLI::App& app, int argc, char** argv);

}  // namespace

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
      const std::size_t d = edit_distance(word, name);
      if (d < best_d) {
        best_d = d;
        best = name;
      }
    }
    if (!known) {
      std::string all;
      for (const auto& [name, adder] : reg) all += (all.empty() ? "" : ", ") + name;
      std::cerr << "npu: error: unknown command '" << npu::echo(word) << "'"
                << (best_d <= 3 ? "; did you mean '" + best + "'?" : std::string()) << "\n  commands: " << all
                << "\n  run `npu --help` for more\n";
      return 1;
    }
  }
  if (argc > 1 && argv[1][0] != '-') {
    const std::string msg = unknown_nested_command(app, argc, argv);
    if (!msg.empty()) {
      std::cerr << msg << "\n";
      return 1;
    }
  }
  const int status = run_parsed(app, argc, argv);
  // Whatever went to stdout must have been written: `npu config check --json C > F` on a full
  // disk would otherwise exit 0 with a truncated F.
  std::cout.flush();
  if (!std::cout) {
    std::cerr << "npu: error: writing the standard output failed (disk full, or a closed pipe?); the output is "
                 "incomplete\n";
    return status == 0 ? 1 : status;
  }
  return status;
}

namespace {

int run_parsed(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ExtrasError& e) {
    const std::string msg = unknown_option_message(app, argc, argv);
    if (msg.empty()) return app.exit(e) == 0 ? 0 : 1;
    std::cerr << msg << "\n";
    return 1;
  } catch (const CLI::ArgumentMismatch& e) {
    const std::string msg = repeated_option_message(app, e.what());
    if (msg.empty()) return app.exit(e) == 0 ? 0 : 1;
    std::cerr << msg << "\n";
    return 1;
  } catch (const CLI::RequiredError& e) {
    const std::string msg = required_option_message(app, e.what());
    if (msg.empty()) return app.exit(e) == 0 ? 0 : 1;
    std::cerr << msg << "\n";
    return 1;
  } catch (const CLI::ConversionError& e) {  // a value of the wrong type: name the option and its type
    const std::string msg = npu::tool::conversion_message(app, e.what());
    if (msg.empty()) return app.exit(e) == 0 ? 0 : 1;
    std::cerr << msg << "\n";
    return 1;
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 1;
  } catch (const npu::ConfigError& e) {
    std::cerr << e.what() << "\n";
    return 1;
  } catch (const npu::sim::Interrupted& e) {  // the children are gone; 130 for SIGINT, 143 for SIGTERM
    std::cerr << e.what() << "\n";
    return npu::sim::interrupted_exit_status(e.signal());
  } catch (const std::filesystem::filesystem_error& e) {
    // A path the tool could not create, read or write is the user's to fix (a file where a
    // folder should be, no permission, a full disk), not a bug: exit 1, naming the path.
    // Writers check their paths first (npu::create_output_folder); this is the net under them.
    std::cerr << (e.path1().empty() ? std::string("npu") : e.path1().string()) << ": error: " << e.code().message()
              << " (" << e.what() << ")\n  fix: check that every part of the path is a folder you can write, or "
              << "choose another --out folder\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "npu: internal error: " << e.what() << "\n";
    return 2;
  }
  return npu::tool::g_exit_status;
}

}  // namespace
