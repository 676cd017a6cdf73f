#include "service/cli/completion.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>

namespace tc::cli {
namespace {

// What a script needs to know of one option or positional argument.
struct Argument {
  std::vector<std::string> names;  // "-o", "--output"; empty for a positional
  std::string label;               // the value's name: "WxH", "FILE", "INPUT"
  std::string help;
  bool takes_value = false;
  bool repeatable = false;
  std::string values;  // "@files", "@commands", "@presets", "bash zsh" or "" (free text)
};

constexpr const char* kPresets = "@presets";  // asked of `transcode presets --names` at TAB

// A command, or a command's subcommand ("tenants create": the two words). A command with
// subcommands ("tenants") has their names as its first positional's values.
struct Command {
  std::string name;  // "" for the program itself
  std::string help;
  std::vector<Argument> options;
  std::vector<Argument> positionals;
  std::vector<std::string> subcommands;  // their names, when it has some
};

std::map<const CLI::Option*, std::vector<std::string>>& offered() {
  static std::map<const CLI::Option*, std::vector<std::string>> values;
  return values;
}

std::string join(const std::vector<std::string>& words);

// What a value completes to, from its label: files, command names, or the words of "a|b".
std::string values_for(const std::string& label) {
  if (label == "FILE" || label == "PATH" || label == "INPUT" || label == "OUTPUT") return "@files";
  if (label == "COMMAND") return "@commands";
  // Words of a fixed set ("bar|json"), not the shapes of a free value ("N|N/D").
  if (label.find('|') == std::string::npos ||
      std::any_of(label.begin(), label.end(), [](char c) { return std::isupper(c); }))
    return "";
  std::string words = label;
  for (char& c : words) c = c == '|' ? ' ' : c;
  return words;
}

Argument describe_option(const CLI::Option& option) {
  Argument argument;
  for (const std::string& name : option.get_snames()) argument.names.push_back("-" + name);
  for (const std::string& name : option.get_lnames()) argument.names.push_back("--" + name);
  argument.label = option.get_type_name().empty() ? option.get_name() : option.get_type_name();
  argument.help = option.get_description();
  argument.takes_value = option.get_expected_max() > 0;  // flags expect 0 values
  argument.repeatable = option.get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll;
  argument.values = argument.takes_value ? values_for(argument.label) : "";
  if (auto values = offered().find(&option); values != offered().end() && argument.takes_value)
    argument.values = join(values->second);
  return argument;
}

Command describe_command(const CLI::App& app, const std::string& name) {
  Command command{name, app.get_description(), {}, {}};
  for (const CLI::Option* option : app.get_options())
    (option->get_positional() ? command.positionals : command.options)
        .push_back(describe_option(*option));
  return command;
}

std::vector<const CLI::App*> subcommands_of(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App*) { return true; });
}

// The program, its commands, and their subcommands (one level: `transcode tenants create`; the
// scripts know no deeper one, and the CLI has none).
std::vector<Command> describe(const CLI::App& root) {
  std::vector<Command> commands{describe_command(root, "")};
  for (const CLI::App* sub : subcommands_of(root)) {
    Command command = describe_command(*sub, sub->get_name());
    std::vector<Command> children;
    for (const CLI::App* child : subcommands_of(*sub)) {
      command.subcommands.push_back(child->get_name());
      children.push_back(describe_command(*child, sub->get_name() + " " + child->get_name()));
    }
    if (!command.subcommands.empty())
      command.positionals.insert(
          command.positionals.begin(),
          Argument{{}, "SUBCOMMAND", "", true, false, join(command.subcommands)});
    commands.push_back(std::move(command));
    commands.insert(commands.end(), children.begin(), children.end());
  }
  return commands;
}

bool is_subcommand(const Command& command) {
  return command.name.find(' ') != std::string::npos;
}

// The commands that have subcommands, space-separated.
std::string parent_names(const std::vector<Command>& commands) {
  std::vector<std::string> names;
  for (const Command& command : commands)
    if (!command.subcommands.empty()) names.push_back(command.name);
  return join(names);
}

std::string join_with(const std::vector<std::string>& words, const char* separator) {
  std::string text;
  for (const std::string& word : words) text += (text.empty() ? "" : separator) + word;
  return text;
}

std::string join(const std::vector<std::string>& words) {
  return join_with(words, " ");
}

std::string command_names(const std::vector<Command>& commands) {
  std::vector<std::string> names;
  for (const Command& command : commands)
    if (!command.name.empty() && !is_subcommand(command)) names.push_back(command.name);
  return join(names);
}

// Option names that satisfy `keep`, space-separated.
template <typename Keep>
std::string option_names(const Command& command, Keep keep) {
  std::vector<std::string> names;
  for (const Argument& option : command.options)
    if (keep(option)) names.insert(names.end(), option.names.begin(), option.names.end());
  return join(names);
}

// What made the script, and how to install it.
std::string script_header(const std::string& shell, const std::string& install) {
  return "# " + shell + " completion for transcode, generated by `transcode completion " + shell +
         "`\n# from its own options. " + install + "\n";
}

std::string bash_positional(const Command& command, const std::string& all_commands) {
  for (const Argument& positional : command.positionals) {
    if (positional.values == "@commands") return all_commands;
    if (!positional.values.empty()) return positional.values;
  }
  return "";
}

// A command's options with a fixed set of values: `choices` is the set of the option before the
// word being completed.
std::string bash_choices(const Command& command) {
  std::ostringstream out;
  out << "      case $prev in\n";
  for (const Argument& option : command.options)
    if (option.values == kPresets)
      out << "        " << join_with(option.names, "|")
          << ") choices=$(\"${COMP_WORDS[0]}\" presets --names 2>/dev/null) ;;\n";
    else if (option.takes_value && !option.values.empty() && option.values[0] != '@')
      out << "        " << join_with(option.names, "|") << ") choices='" << option.values
          << "' ;;\n";
  out << "      esac";
  return out.str();
}

std::string bash_script(const std::vector<Command>& commands) {
  const std::string names = command_names(commands);
  std::ostringstream out;
  out << script_header("bash",
                       "Now: source <(transcode completion bash); for every shell:\n"
                       "#   transcode completion bash > /etc/bash_completion.d/transcode")
      << "_transcode() {\n"
         "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
         "  local options values files positional choices\n"
         "  if [[ $COMP_CWORD -eq 1 ]]; then\n"
         "    COMPREPLY=($(compgen -W '"
      << names << " " << option_names(commands.front(), [](const Argument&) { return true; })
      << "' -- \"$cur\"))\n"
         "    return\n"
         "  fi\n"
         "  local command=${COMP_WORDS[1]}  # and its subcommand's name, once typed\n"
         "  if [[ $COMP_CWORD -gt 2 && ' "
      << parent_names(commands)
      << " ' == *\" $command \"* ]]; then\n"
         "    command=\"$command ${COMP_WORDS[2]}\"\n"
         "  fi\n"
         "  case $command in\n";
  for (const Command& command : commands) {
    if (command.name.empty()) continue;
    out << "    '" << command.name << "')\n"
        << "      options='" << option_names(command, [](const Argument&) { return true; }) << "'\n"
        << "      values='"
        << option_names(command, [](const Argument& a) { return a.takes_value; }) << "'\n"
        << "      files='"
        << option_names(command, [](const Argument& a) { return a.values == "@files"; }) << "'\n"
        << "      positional='" << bash_positional(command, names) << "'\n"
        << bash_choices(command) << " ;;\n";
  }
  out << "    *) return ;;\n"
         "  esac\n"
         "  if [[ -n $choices ]]; then  # the value of an option with a fixed set\n"
         "    COMPREPLY=($(compgen -W \"$choices\" -- \"$cur\"))\n"
         "    return\n"
         "  fi\n"
         "  if [[ \" $values \" == *\" $prev \"* ]]; then  # the value of an option\n"
         "    [[ \" $files \" == *\" $prev \"* ]] && COMPREPLY=($(compgen -f -- \"$cur\"))\n"
         "    return\n"
         "  fi\n"
         "  if [[ $cur == -* ]]; then\n"
         "    COMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))\n"
         "  elif [[ $positional == @files ]]; then\n"
         "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
         "  else\n"
         "    COMPREPLY=($(compgen -W \"$positional\" -- \"$cur\"))\n"
         "  fi\n"
         "}\n"
         "complete -o filenames -F _transcode transcode\n";
  return out.str();
}

// Text inside a single-quoted zsh word, with a backslash before each of `special`: brackets in an
// _arguments [explanation], colons in a message or a _describe name.
std::string zsh_quoted(const std::string& text, const std::string& special = "") {
  std::string quoted;
  for (char c : text) {
    if (c == '\'')
      quoted += "'\\''";
    else if (special.find(c) != std::string::npos)
      quoted += std::string("\\") + c;
    else
      quoted += c;
  }
  return quoted;
}
const char* const kExplanation = "[]";
const char* const kMessage = ":";

std::string zsh_action(const Argument& argument, const std::string& all_commands) {
  if (argument.values == "@files") return "_files";
  if (argument.values == "@commands") return "(" + all_commands + ")";
  if (argument.values == kPresets) return "_transcode_presets";
  if (!argument.values.empty()) return "(" + argument.values + ")";
  return " ";
}

// One _arguments spec: '*'{-o+,--output=}'[an output]:FILE:_files'
std::string zsh_option_spec(const Argument& option, const std::string& all_commands) {
  std::vector<std::string> names;
  for (const std::string& name : option.names)
    names.push_back(name + (option.takes_value ? (name.size() == 2 ? "+" : "=") : ""));
  std::string spec = option.repeatable ? "'*'" : "";
  spec += names.size() == 1 ? names.front() : "{" + join(names) + "}";
  for (char& c : spec)
    if (c == ' ') c = ',';
  spec += "'[" + zsh_quoted(option.help, kExplanation) + "]";
  if (option.takes_value)
    spec += ":" + zsh_quoted(option.label, kMessage) + ":" + zsh_action(option, all_commands);
  return spec + "'";
}

std::string zsh_script(const std::vector<Command>& commands) {
  const std::string names = command_names(commands);
  std::ostringstream out;
  out << "#compdef transcode\n"
      << script_header("zsh",
                       "Install: transcode completion zsh > \"${fpath[1]}/_transcode\"; compinit")
      << "# The preset names, asked of the program typed (`tc_program`, set by _transcode).\n"
         "_transcode_presets() {\n"
         "  compadd -- ${(f)\"$(${tc_program:-transcode} presets --names 2>/dev/null)\"}\n"
         "}\n"
         "_transcode() {\n"
         "  local -a commands root_options\n"
         "  local tc_program=$words[1]\n"
         "  commands=(\n";
  for (const Command& command : commands)
    if (!command.name.empty() && !is_subcommand(command))
      out << "    '" << zsh_quoted(command.name, kMessage) << ":" << zsh_quoted(command.help)
          << "'\n";
  out << "  )\n  root_options=(\n";
  for (const Argument& option : commands.front().options)
    for (const std::string& name : option.names)
      out << "    '" << zsh_quoted(name, kMessage) << ":" << zsh_quoted(option.help) << "'\n";
  out << "  )\n"
         "  if (( CURRENT == 2 )); then\n"
         "    _describe -t commands 'transcode command' commands\n"
         "    _describe -t options 'option' root_options\n"
         "    return\n"
         "  fi\n"
         "  local command=$words[2]\n"
         "  shift words\n"
         "  (( CURRENT-- ))\n"
         "  if (( CURRENT > 2 )) && [[ ' "
      << parent_names(commands)
      << " ' == *\" $command \"* ]]; then  # and its subcommand's name\n"
         "    command=\"$command $words[2]\"\n"
         "    shift words\n"
         "    (( CURRENT-- ))\n"
         "  fi\n"
         "  case $command in\n";
  for (const Command& command : commands) {
    if (command.name.empty()) continue;
    out << "    '" << command.name << "')\n      _arguments -s -S";
    for (const Argument& option : command.options)
      out << " \\\n        " << zsh_option_spec(option, names);
    int position = 0;
    for (const Argument& positional : command.positionals)
      out << " \\\n        '" << ++position << ":" << zsh_quoted(positional.label, kMessage) << ":"
          << zsh_action(positional, names) << "'";
    out << " ;;\n";
  }
  out << "  esac\n"
         "}\n"
         "_transcode \"$@\"\n";
  return out.str();
}

// Text inside a single-quoted fish word.
std::string fish_quoted(const std::string& text) {
  std::string quoted;
  for (char c : text) quoted += c == '\'' || c == '\\' ? std::string("\\") + c : std::string(1, c);
  return quoted;
}

// The `complete` flags for an option's names and its value: -s/-l, then -x -a WORDS (a fixed
// set, in its order: -k), -r -F (a file) or -x (free text), or nothing for a flag.
std::string fish_option(const Argument& option, const std::string& all_commands) {
  std::string line;
  for (const std::string& name : option.names)
    line += name.size() == 2 ? " -s " + name.substr(1) : " -l " + name.substr(2);
  if (option.values == "@files")
    line += " -r -F";
  else if (option.values == "@commands")
    line += " -x -k -a '" + all_commands + "'";
  else if (option.values == kPresets)
    line += " -x -a '(__transcode_presets)'";
  else if (!option.values.empty())
    line += " -x -k -a '" + fish_quoted(option.values) + "'";
  else if (option.takes_value)
    line += " -x";
  return line + " -d '" + fish_quoted(option.help) + "'";
}

// When a command's completions apply: its name (and its subcommand's) typed, and for a command
// with subcommands, none of them yet.
std::string fish_condition(const Command& command) {
  std::string words = command.name;
  std::string when = " -n '__fish_seen_subcommand_from " + words.substr(0, words.find(' '));
  if (is_subcommand(command))
    when += "; and __fish_seen_subcommand_from " + words.substr(words.find(' ') + 1);
  else if (!command.subcommands.empty())
    when += "; and not __fish_seen_subcommand_from " + join(command.subcommands);
  return when + "'";
}

const Command& parent_of(const std::vector<Command>& commands, const Command& sub) {
  const std::string parent = sub.name.substr(0, sub.name.find(' '));
  for (const Command& command : commands)
    if (command.name == parent) return command;
  return sub;  // not reached: describe() lists each parent before its subcommands
}

std::string fish_script(const std::vector<Command>& commands) {
  const std::string names = command_names(commands);
  std::ostringstream out;
  out << script_header("fish",
                       "Install: transcode completion fish > "
                       "~/.config/fish/completions/transcode.fish")
      << "complete -c transcode -f\n"
      << "# The preset names, asked of the program typed.\n"
         "function __transcode_presets\n"
         "    set -l program (commandline -opc)[1]\n"
         "    $program presets --names 2>/dev/null\n"
         "end\n";
  for (const Command& command : commands) {
    if (command.name.empty()) {
      for (const Argument& option : command.options)
        out << "complete -c transcode -n __fish_use_subcommand" << fish_option(option, names)
            << "\n";
      continue;
    }
    const std::string when = fish_condition(command);
    if (is_subcommand(command))
      out << "complete -c transcode" << fish_condition(parent_of(commands, command)) << " -a "
          << command.name.substr(command.name.find(' ') + 1) << " -d '" << fish_quoted(command.help)
          << "'\n";
    else
      out << "complete -c transcode -n __fish_use_subcommand -a " << command.name << " -d '"
          << fish_quoted(command.help) << "'\n";
    for (const Argument& option : command.options)
      out << "complete -c transcode" << when << fish_option(option, names) << "\n";
    for (const Argument& positional : command.positionals) {
      if (!command.subcommands.empty()) break;  // its subcommands are offered with their help
      if (positional.values == "@files")
        out << "complete -c transcode" << when << " -F\n";
      else if (positional.values == "@commands")
        out << "complete -c transcode" << when << " -a '" << names << "'\n";
      else if (!positional.values.empty())
        out << "complete -c transcode" << when << " -a '" << fish_quoted(positional.values)
            << "'\n";
    }
  }
  return out.str();
}

struct Generator {
  const char* shell;
  std::string (*script)(const std::vector<Command>& commands);
};
constexpr Generator kGenerators[] = {
    {"bash", bash_script}, {"zsh", zsh_script}, {"fish", fish_script}};

}  // namespace

void offer_values(const CLI::Option* option, std::vector<std::string> values) {
  offered()[option] = std::move(values);
}

void offer_preset_names(const CLI::Option* option) {
  offer_values(option, {kPresets});
}

const std::vector<std::string>& completion_shells() {
  static const std::vector<std::string> shells = [] {
    std::vector<std::string> names;
    for (const Generator& generator : kGenerators) names.push_back(generator.shell);
    return names;
  }();
  return shells;
}

Result<std::string> completion_script(const CLI::App& root, const std::string& shell) {
  for (const Generator& generator : kGenerators)
    if (shell == generator.shell) return generator.script(describe(root));
  return Status(Code::kInvalidArgument,
                "completion: '" + shell + "' is not one of: " + join(completion_shells()));
}

}  // namespace tc::cli
