// The man page of neardup (roff, section 1), generated from the commands
// (kCommands), the option table (each command's options by help group, with
// defaults and ranges) and the examples of `neardup scan --help`.
//
//   neardup manpage > neardup.1 && man ./neardup.1
//
// Thread safety: a pure function.
#pragma once

#include <string>

namespace neardup::cli {

std::string ManPage();

}  // namespace neardup::cli
