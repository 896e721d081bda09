// Where the build put what the tests run: the binary, the corpus generators
// and the source tree. Defined in test_paths.cc alone, the one test file
// compiled with the build folder's paths, so that every other test file
// compiles to the same object in every build folder (and ccache shares it).
#pragma once

namespace neardup::testing {

const char* NeardupBinary();      // build/neardup
const char* GenJsonlBinary();     // build/gen_jsonl
const char* GenMailBinary();      // build/gen_mail
const char* SourceDir();          // the repository's top folder

}  // namespace neardup::testing
