// CLI11, included once for every command file. GCC 12 reports a false
// -Wnull-dereference inside CLI11's inlined string splitting (in system
// headers, but inlined into our code, so -Werror would stop the build).
// The pragma only covers code whose <string> came in here, so the files
// that include this compile outside unity batches (tools/CMakeLists.txt).
#ifndef STRATA_TOOLS_STRATA_CLI11_H_
#define STRATA_TOOLS_STRATA_CLI11_H_

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <CLI/CLI.hpp>
#pragma GCC diagnostic pop

#endif  // STRATA_TOOLS_STRATA_CLI11_H_
