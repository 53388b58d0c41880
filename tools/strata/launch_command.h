// Registers `strata launch` (docs/CLI.md). Kept out of cli_common.h because
// launch shares nothing else with the commands that open a Runtime.
#ifndef STRATA_TOOLS_STRATA_LAUNCH_COMMAND_H_
#define STRATA_TOOLS_STRATA_LAUNCH_COMMAND_H_

#include "tools/strata/cli_common.h"

namespace strata::cli {

void add_launch_command(CLI::App& app, Context& context);

}  // namespace strata::cli

#endif  // STRATA_TOOLS_STRATA_LAUNCH_COMMAND_H_
