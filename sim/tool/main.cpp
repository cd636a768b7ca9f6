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
