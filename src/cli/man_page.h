// The man page of neardup (roff, section 1), generated from the commands
// (kCommands), the option table (each command's options by help group, with
// defaults and ranges) and the examples of `neardup scan --help`, with the
// sections that read better as prose: explain, index, the other commands,
// OUTPUT FORMATS, EXIT STATUS, ENVIRONMENT, FILES and SEE ALSO.
//
//   neardup manpage > neardup.1 && man ./neardup.1
//
// Thread safety: a pure function.
#pragma once

#include <string>

namespace neardup::cli {

// The date of the page's last change (its .TH line): change it with the page.
inline constexpr const char* kManPageDate = "2026-11-24";

std::string ManPage();

}  // namespace neardup::cli
