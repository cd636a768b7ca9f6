// Subcommand registry of the `npu` tool. Each tool/cmd_*.cpp adds its subcommands with
// NPU_COMMAND(fn); main() calls them in name order, so adding a command touches one file.
//
// Exit statuses: 0 success, 1 bad input (a callback throws npu::ConfigError or calls
// set_exit_status(1)), 2 internal error (any other exception).
#pragma once

#include <CLI/CLI.hpp>

namespace npu::tool {

using CommandAdder = void (*)(CLI::App& app);

/// Registers `adder` under `name` (the sort key); returns true so it can run at static init.
bool register_command(const char* name, CommandAdder adder);

/// Exit status the tool returns when no exception escapes (e.g. 1 when some experiment
/// runs failed but the others completed).
void set_exit_status(int status);

}  // namespace npu::tool

#define NPU_COMMAND(name, fn) \
  static const bool npu_command_registered_##fn = ::npu::tool::register_command(name, fn)
