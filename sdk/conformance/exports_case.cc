#include "sdk/conformance/exports_case.h"

#include "sdk/conformance/exported_symbols.h"

namespace strata::conformance {

void ExportsCase::TestBody() {
  auto exports = exported_symbols(library_);
  ASSERT_TRUE(exports.ok()) << "cannot read the dynamic symbols of " << library_.string()
                            << ": " << exports.status().to_string();
  const std::string violation = rule1_violation(library_, *exports);
  if (!violation.empty()) FAIL() << violation;
}

}  // namespace strata::conformance
