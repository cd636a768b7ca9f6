// The `npu` tool's own messages for command-line mistakes that CLI11 reports tersely: an
// unknown command, subcommand or option (with did-you-mean), an option given twice, a required
// option missing. Each names the command path and the fix.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace npu::tool {

/// Levenshtein distance (insert, delete, substitute each 1), O(|a| |b|) on short words.
std::size_t edit_distance(const std::string& word, const std::string& name);

/// For an unexpected argument (CLI11's ExtrasError): the first "--word" of argv that is no
/// long option of the chosen (sub)commands, named with the closest option, e.g. "unknown
/// option '--stratgy'; did you mean '--strategy'?". "" when no such word is found.
std::string unknown_option_message(CLI::App& app, int argc, char** argv);

/// For an option that takes one value given more than once (CLI11's ArgumentMismatch "--strategy:
/// At Most 1 required but received 2"). "" for CLI11's other argument-count errors.
std::string repeated_option_message(CLI::App& app, const std::string& what);

/// `npu validate scalesim`: a second word that is not a subcommand of a command that has them,
/// named with the allowed ones. "" when the words are fine.
std::string unknown_nested_command(CLI::App& app, int argc, char** argv);

/// For a required option left out (CLI11's RequiredError "--hw is required"): "npu asm check:
/// error: --hw is required: hardware config (YAML), e.g. configs/edge-npu-ddr4.yaml", with the
/// fix (the presets in configs/ for --hw) and the help command. "" when `what` names no option
/// of the chosen (sub)commands.
std::string required_option_message(CLI::App& app, const std::string& what);

/// For a value CLI11 cannot convert to the option's type (ConversionError "Could not convert:
/// --tolerance = abc"): "npu verify: error: --tolerance: 'abc' is not a NUMBER (Largest relative
/// error ...)", with the fix and the help command. "" when `what` names no option of the chosen
/// (sub)commands.
std::string conversion_message(CLI::App& app, const std::string& what);

}  // namespace npu::tool
