// Shell completion scripts for neardup, generated from the commands
// (kCommands) and the option table: every option of every command, with its
// values (choices, files) where the shell can offer them.
//
//   neardup completions bash > /usr/share/bash-completion/completions/neardup
//
// Thread safety: a pure function.
#pragma once

#include <string>
#include <string_view>

namespace neardup::cli {

// The script for `shell` ("bash", "zsh" or "fish"); "" for another shell.
std::string CompletionScript(std::string_view shell);

}  // namespace neardup::cli
