// Loads the installed example config and lists what the installed plugins
// registered: enough to show Strata::core links and runs from a prefix.
#include <iostream>

#include "core/runtime/runtime.h"

int main() {
  auto runtime = strata::Runtime::from_config_file(STRATA_EXAMPLE_CONFIG);
  if (!runtime.ok()) {
    std::cerr << "core_consumer: " << runtime.status() << "\n";
    return 1;
  }
  std::cout << "config " << STRATA_EXAMPLE_CONFIG << " loaded; algorithms:";
  for (const strata::AlgorithmEntry* a : (*runtime)->registry().algorithms()) {
    std::cout << " " << a->id;
  }
  std::cout << "\n";
  return 0;
}
