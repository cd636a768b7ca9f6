#include "cli_messages.hpp"

#include <algorithm>
#include <vector>

#include "npu/base/user_text.hpp"

namespace npu::tool {

std::size_t edit_distance(const std::string& word, const std::string& name) {
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
  return row[name.size()];
}

std::string unknown_option_message(CLI::App& app, int argc, char** argv) {
  std::vector<std::string> known;
  std::string path = "npu";
  for (CLI::App* cur = &app; cur;) {
    for (const CLI::Option* o : cur->get_options())
      for (const std::string& n : o->get_lnames()) known.push_back("--" + n);
    if (cur != &app) path += " " + cur->get_name();
    const auto subs = cur->get_subcommands();
    cur = subs.empty() ? nullptr : subs.front();
  }
  for (int i = 1; i < argc; ++i) {
    std::string word = argv[i];
    if (word.rfind("--", 0) != 0 || word == "--") continue;
    word = word.substr(0, word.find('='));
    if (std::find(known.begin(), known.end(), word) != known.end()) continue;
    std::string best;
    std::size_t best_d = std::string::npos;
    for (const std::string& k : known) {
      const std::size_t d = edit_distance(word, k);
      if (d < best_d) best_d = d, best = k;
    }
    const bool close = best_d <= std::max<std::size_t>(2, word.size() / 3);
    return path + ": error: unknown option '" + npu::echo(word) + "'" +
           (close ? "; did you mean '" + best + "'?" : std::string()) + "\n  run `" + path +
           " --help` for the options";
  }
  return "";
}

std::string repeated_option_message(CLI::App& app, const std::string& what) {
  const std::string marker = ": At Most 1 required but received ";
  const std::size_t at = what.find(marker);
  if (at == std::string::npos) return "";
  std::string path = "npu", name = what.substr(0, at);
  for (CLI::App* cur = &app; cur;) {
    if (cur != &app) path += " " + cur->get_name();
    for (const CLI::Option* o : cur->get_options())
      if (o->get_name() == name) name = o->get_name(false, true);  // all its spellings: "-o,--output"
    const auto subs = cur->get_subcommands();
    cur = subs.empty() ? nullptr : subs.front();
  }
  return path + ": error: " + name + " is given " + what.substr(at + marker.size()) +
         " times; it takes one value: give it once\n  run `" + path + " --help` for the options";
}

std::string unknown_nested_command(CLI::App& app, int argc, char** argv) {
  CLI::App* cmd = nullptr;
  try {
    cmd = app.get_subcommand(argv[1]);
  } catch (const CLI::OptionNotFound&) {
    return "";
  }
  const auto subs = cmd->get_subcommands({});
  if (subs.empty()) return "";
  std::string all;
  for (const auto* sub : subs) all += (all.empty() ? "" : ", ") + sub->get_name();
  const std::string path = "npu " + cmd->get_name();
  if (argc < 3 || argv[2][0] == '-') {
    if (argc >= 3 && (std::string(argv[2]) == "--help" || std::string(argv[2]) == "-h")) return "";
    return path + ": error: give a subcommand: " + all + "\n  run `" + path + " --help` for more";
  }
  const std::string word = argv[2];
  std::string best;
  std::size_t best_d = std::string::npos;
  for (const auto* sub : subs) {
    if (sub->get_name() == word) return "";
    const std::size_t d = edit_distance(word, sub->get_name());
    if (d < best_d) best_d = d, best = sub->get_name();
  }
  return path + ": error: unknown subcommand '" + npu::echo(word) + "'" +
         (best_d <= 3 ? "; did you mean '" + best + "'?" : std::string()) + "\n  subcommands: " + all +
         "\n  run `" + path + " --help` for more";
}

namespace {
/// The chosen command path ("npu asm check") and its deepest (sub)command.
std::string command_path(CLI::App& app, CLI::App** deepest) {
  std::string path = "npu";
  CLI::App* cur = &app;
  for (;;) {
    const auto subs = cur->get_subcommands();
    if (subs.empty()) break;
    cur = subs.front();
    path += " " + cur->get_name();
  }
  *deepest = cur;
  return path;
}
}  // namespace

std::string required_option_message(CLI::App& app, const std::string& what) {
  const std::string marker = " is required";
  const std::size_t at = what.find(marker);
  if (at == std::string::npos) return "";
  const std::string name = what.substr(0, at);
  CLI::App* cmd = nullptr;
  const std::string path = command_path(app, &cmd);
  for (const CLI::Option* o : cmd->get_options()) {
    if (o->get_name() != name) continue;
    const std::string desc = o->get_description();
    std::string fix = "give " + name + (o->get_type_size() != 0 ? " " + o->get_type_name() : std::string());
    if (name == "--hw") fix = "give --hw CONFIG: a hardware config YAML, e.g. --hw configs/edge-npu-ddr4.yaml (the presets are configs/*.yaml)";
    const bool say_desc = !desc.empty() && name != "--hw";  // --hw's fix says it all
    return path + ": error: " + name + " is required" + (say_desc ? " (" + desc + ")" : std::string()) +
           "\n  fix: " + fix + "\n  run `" + path + " --help` for the options";
  }
  return "";
}

std::string conversion_message(CLI::App& app, const std::string& what) {
  const std::string head = "Could not convert: ";
  const std::size_t eq = what.find(" = ");
  if (what.rfind(head, 0) != 0 || eq == std::string::npos) return "";
  const std::string name = what.substr(head.size(), eq - head.size()), value = what.substr(eq + 3);
  CLI::App* cmd = nullptr;
  const std::string path = command_path(app, &cmd);
  for (const CLI::Option* o : cmd->get_options()) {
    if (o->get_name() != name) continue;
    const std::string type = o->get_type_name(), desc = o->get_description();
    const std::string kind = type == "FLOAT" ? "number" : type == "INT" || type == "UINT" ? "whole number"
                             : type.empty()  ? "valid value"
                                             : type;
    return path + ": error: " + name + ": '" + value + "' is not a " + kind +
           (desc.empty() ? std::string() : " (" + desc + ")") + "\n  fix: give " + name + " " +
           (type.empty() ? "VALUE" : type) + "\n  run `" + path + " --help` for the options";
  }
  return "";
}

}  // namespace npu::tool
