//===- BashCompletion.cpp - bash completion for streamlife ----------------===//
//
// A self-contained script (it does not need bash-completion's helpers, but
// hands a command after `streamlife run --` to bash-completion's
// _command_offset when that is loaded): the subcommand, each subcommand's
// options, their values (choices, files, directories, commands), files as
// operands of `check`, and the command and its own completion for `run`.
// Both `--opt value` and `--opt=value` are completed, whether or not '=' is in
// COMP_WORDBREAKS.
//
//===----------------------------------------------------------------------===//
#include "Renderers.h"

namespace streamlife::cli {
namespace {

/// A bash identifier from a subcommand name ("" for the driver).
std::string functionSuffix(const std::string &Subcommand) {
  std::string Out;
  for (char C : Subcommand)
    Out += (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') || (C >= '0' && C <= '9') ? C : '_';
  return Out;
}

std::string joined(const std::vector<std::string> &Words) {
  std::string Out;
  for (const std::string &Word : Words)
    Out += (Out.empty() ? "" : " ") + Word;
  return Out;
}

/// What the value of \p Option completes to, as the generated
/// _streamlife_value understands it; empty for a flag.
std::string valueSpec(const OptionDoc &Option) {
  if (Option.Value.empty())
    return "";
  std::string Spec;
  switch (Option.Kind) {
  case ValueKind::File:
    Spec = "file";
    break;
  case ValueKind::Directory:
    Spec = "dir";
    break;
  case ValueKind::Command:
    Spec = "command";
    break;
  case ValueKind::Choice:
    Spec = "choice:" + joined(Option.Choices);
    break;
  case ValueKind::None:
  case ValueKind::Text:
  case ValueKind::Number:
    Spec = "none";
    break;
  }
  return Option.ValueOptional ? "optional:" + Spec : Spec;
}

/// `_streamlife_<sub>_option_value NAME` prints the value spec of an option
/// that takes a value and fails for a flag or an unknown word.
std::string optionValueFunction(const CommandDoc &Doc) {
  std::string Out = "_streamlife_" + functionSuffix(Doc.subcommand()) + "_option_value() {\n" +
                    "  case $1 in\n";
  for (const OptionDoc &Option : Doc.Options) {
    std::string Spec = valueSpec(Option);
    if (Spec.empty())
      continue;
    std::string Names = Option.Short.empty() ? Option.Long : Option.Short + "|" + Option.Long;
    Out += "    " + Names + ") echo '" + Spec + "' ;;\n";
  }
  Out += "    *) return 1 ;;\n  esac\n}\n";
  return Out;
}

std::string optionWords(const CommandDoc &Doc) {
  std::vector<std::string> Words;
  for (const OptionDoc &Option : Doc.Options) {
    if (!Option.Short.empty())
      Words.push_back(Option.Short);
    Words.push_back(Option.Long);
  }
  return joined(Words);
}

// The parts of the script that do not depend on the tables.
constexpr const char *Helpers = R"(
# _streamlife_value SPEC PREFIX CUR: completes an option's value; PREFIX is
# put before each candidate (the '--opt=' of a word bash did not split at '=').
_streamlife_value() {
  local spec=$1 prefix=$2 cur=$3 IFS=$'\n' candidate
  local -a found=()
  case $spec in
    file) compopt -o filenames 2>/dev/null; found=($(compgen -f -- "$cur")) ;;
    dir) compopt -o filenames 2>/dev/null; found=($(compgen -d -- "$cur")) ;;
    command) found=($(compgen -c -- "$cur")) ;;
    choice:*) IFS=$' \t\n'; found=($(compgen -W "${spec#choice:}" -- "$cur")) ;;
  esac
  COMPREPLY=()
  for candidate in "${found[@]}"; do COMPREPLY+=("$prefix$candidate"); done
}

# _streamlife_options SUB CUR PREV PREV2: completes the value of the option
# before the cursor (`--opt value`, `--opt=value`), or option names; returns 1
# when the word is neither (an operand).
_streamlife_options() {
  local sub=$1 cur=$2 prev=$3 prev2=$4 spec
  # bash splits '--format=json' into '--format' '=' 'json' when '=' is in
  # COMP_WORDBREAKS, the default.
  if [[ $cur == = ]] && spec=$(_streamlife_${sub}_option_value "$prev"); then
    _streamlife_value "${spec#optional:}" "" ""
    return 0
  fi
  if [[ $prev == = ]] && spec=$(_streamlife_${sub}_option_value "$prev2"); then
    _streamlife_value "${spec#optional:}" "" "$cur"
    return 0
  fi
  if [[ $cur == --*=* ]] && spec=$(_streamlife_${sub}_option_value "${cur%%=*}"); then
    _streamlife_value "${spec#optional:}" "${cur%%=*}=" "${cur#*=}"
    return 0
  fi
  if [[ $prev == -* ]] && spec=$(_streamlife_${sub}_option_value "$prev") &&
     [[ $spec != optional:* ]]; then
    _streamlife_value "$spec" "" "$cur"
    return 0
  fi
  if [[ $cur == -* ]]; then
    local words_var=_streamlife_${sub}_words
    local IFS=$' \t\n'
    COMPREPLY=($(compgen -W "${!words_var}" -- "$cur"))
    return 0
  fi
  return 1
}

# Where the command of `streamlife run` starts: after '--', or at the first
# word that is neither an option nor an option's value.
_streamlife_run_command_start() {
  local i word spec
  for ((i = 2; i < COMP_CWORD; i++)); do
    word=${COMP_WORDS[i]}
    if [[ $word == -- ]]; then echo $((i + 1)); return; fi
    if [[ $word == = ]]; then ((i++)); continue; fi
    if [[ $word == -* ]]; then
      if [[ ${COMP_WORDS[i+1]} != = ]] && spec=$(_streamlife_run_option_value "$word") &&
         [[ $spec != optional:* ]]; then ((i++)); fi
      continue
    fi
    echo "$i"; return
  done
  echo 0
}

_streamlife() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev= prev2= sub start IFS=$' \t\n'
  ((COMP_CWORD >= 1)) && prev=${COMP_WORDS[COMP_CWORD-1]}
  ((COMP_CWORD >= 2)) && prev2=${COMP_WORDS[COMP_CWORD-2]}
  COMPREPLY=()
  if ((COMP_CWORD == 1)); then
    if [[ $cur == -* ]]; then
      COMPREPLY=($(compgen -W "$_streamlife__words" -- "$cur"))
    else
      COMPREPLY=($(compgen -W "$_streamlife_subcommands" -- "$cur"))
    fi
    return
  fi
  sub=${COMP_WORDS[1]}
  case " $_streamlife_subcommands " in
    *" $sub "*) ;;
    *) _streamlife_options "" "$cur" "$prev" "$prev2"; return ;;
  esac
  if [[ $sub == run ]]; then
    start=$(_streamlife_run_command_start)
    if ((start > 0)); then
      if ((COMP_CWORD == start)); then
        COMPREPLY=($(compgen -c -- "$cur"))
      elif declare -F _command_offset >/dev/null; then
        _command_offset "$start"
      else
        _streamlife_value file "" "$cur"
      fi
      return
    fi
    _streamlife_options run "$cur" "$prev" "$prev2" || COMPREPLY=($(compgen -c -- "$cur"))
    return
  fi
  # After `check ... --` come compiler arguments; before it, files.
  local i
  for ((i = 2; i < COMP_CWORD; i++)); do
    if [[ ${COMP_WORDS[i]} == -- ]]; then _streamlife_value file "" "$cur"; return; fi
  done
  _streamlife_options "$sub" "$cur" "$prev" "$prev2" || _streamlife_value file "" "$cur"
}
complete -F _streamlife streamlife
)";

} // namespace

std::string renderBashCompletion(const CommandDoc &Driver,
                                 const std::vector<CommandDoc> &Subcommands) {
  std::string Out = "# bash completion for streamlife                 -*- shell-script -*-\n"
                    "# Generated by `streamlife --print-completion bash` from the option\n"
                    "# tables behind --help; do not edit.\n\n";
  std::vector<std::string> Names;
  for (const CommandDoc &Sub : Subcommands)
    Names.push_back(Sub.subcommand());
  Out += "_streamlife_subcommands='" + joined(Names) + "'\n";
  Out += "_streamlife__words='" + optionWords(Driver) + "'\n";
  for (const CommandDoc &Sub : Subcommands)
    Out += "_streamlife_" + functionSuffix(Sub.subcommand()) + "_words='" + optionWords(Sub) + "'\n";
  Out += '\n' + optionValueFunction(Driver);
  for (const CommandDoc &Sub : Subcommands)
    Out += optionValueFunction(Sub);
  Out += Helpers;
  return Out;
}

} // namespace streamlife::cli
