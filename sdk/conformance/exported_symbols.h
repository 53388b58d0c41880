// What a shared library exports: the defined, visible symbols of its
// .dynsym, read with libelf. Rule 1 (sdk/README.md) allows a plugin one,
// strata_plugin_entry; the conformance suite lists the rest.
//
// Not Boost.DLL's library_info: in Boost 1.74 it reads .symtab, which a
// stripped library (what vendors ship) does not have, so it would find no
// export at all and pass every plugin.
#ifndef STRATA_SDK_CONFORMANCE_EXPORTED_SYMBOLS_H_
#define STRATA_SDK_CONFORMANCE_EXPORTED_SYMBOLS_H_

#include <filesystem>
#include <string>
#include <vector>

#include "core/common/status.h"

namespace strata::conformance {

struct ExportedSymbol {
  std::string name;     // as linked (mangled for C++)
  std::string binding;  // "global", "weak" or "GNU-unique"
  std::string kind;     // "function", "object", "TLS" or "other"
};

StatusOr<std::vector<ExportedSymbol>> exported_symbols(const std::filesystem::path& library);

// Why `library` breaks rule 1, or "" when strata_plugin_entry is its only
// export: every other export (demangled, with its binding), the first
// `max_listed` of them, and what GNU-unique symbols do to dlclose.
std::string rule1_violation(const std::filesystem::path& library,
                            const std::vector<ExportedSymbol>& exports, size_t max_listed = 12);

}  // namespace strata::conformance

#endif  // STRATA_SDK_CONFORMANCE_EXPORTED_SYMBOLS_H_
