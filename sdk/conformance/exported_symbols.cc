#include "sdk/conformance/exported_symbols.h"

#include <cxxabi.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "strata/abi/plugin.h"

namespace strata::conformance {
namespace {

// Closes what elf_begin and open gave, on every path.
struct ElfFile {
  int fd = -1;
  Elf* elf = nullptr;
  ~ElfFile() {
    if (elf != nullptr) elf_end(elf);
    if (fd >= 0) ::close(fd);
  }
};

std::string binding_name(unsigned char bind) {
  switch (bind) {
    case STB_GLOBAL: return "global";
    case STB_WEAK: return "weak";
    case STB_GNU_UNIQUE: return "GNU-unique";
  }
  return "binding " + std::to_string(bind);
}

std::string kind_name(unsigned char type) {
  switch (type) {
    case STT_FUNC:
    case STT_GNU_IFUNC: return "function";
    case STT_OBJECT: return "object";
    case STT_TLS: return "TLS";
  }
  return "other";
}

std::string demangled(const std::string& name) {
  int status = -1;
  std::unique_ptr<char, decltype(&std::free)> text(
      abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), &std::free);
  return status == 0 && text != nullptr ? std::string(text.get()) : name;
}

}  // namespace

StatusOr<std::vector<ExportedSymbol>> exported_symbols(const std::filesystem::path& library) {
  const std::string where = library.string();
  if (elf_version(EV_CURRENT) == EV_NONE) {
    return InternalError(std::string("libelf: ") + elf_errmsg(-1));
  }
  ElfFile f;
  f.fd = ::open(where.c_str(), O_RDONLY | O_CLOEXEC);
  if (f.fd < 0) return NotFoundError("cannot open " + where + ": " + std::strerror(errno));
  f.elf = elf_begin(f.fd, ELF_C_READ, nullptr);
  if (f.elf == nullptr || elf_kind(f.elf) != ELF_K_ELF) {
    return InvalidArgumentError(where + " is not an ELF file");
  }
  std::vector<ExportedSymbol> out;
  bool has_dynsym = false;
  for (Elf_Scn* scn = elf_nextscn(f.elf, nullptr); scn != nullptr;
       scn = elf_nextscn(f.elf, scn)) {
    GElf_Shdr header;
    if (gelf_getshdr(scn, &header) == nullptr || header.sh_type != SHT_DYNSYM) continue;
    has_dynsym = true;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr || header.sh_entsize == 0) {
      return DataLossError(where + ": unreadable .dynsym: " + elf_errmsg(-1));
    }
    const size_t count = header.sh_size / header.sh_entsize;
    for (size_t i = 0; i < count; ++i) {
      GElf_Sym sym;
      if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) {
        return DataLossError(where + ": unreadable .dynsym entry " + std::to_string(i));
      }
      const unsigned char bind = GELF_ST_BIND(sym.st_info);
      const unsigned char visibility = GELF_ST_VISIBILITY(sym.st_other);
      if (sym.st_shndx == SHN_UNDEF || bind == STB_LOCAL || visibility == STV_HIDDEN ||
          visibility == STV_INTERNAL) {
        continue;  // imported, or not visible outside the library
      }
      const char* name = elf_strptr(f.elf, header.sh_link, sym.st_name);
      if (name == nullptr || *name == '\0') continue;
      out.push_back({name, binding_name(bind), kind_name(GELF_ST_TYPE(sym.st_info))});
    }
  }
  if (!has_dynsym) {
    return InvalidArgumentError(where + " has no dynamic symbol table: not a shared library");
  }
  return out;
}

std::string rule1_violation(const std::filesystem::path& library,
                            const std::vector<ExportedSymbol>& exports, size_t max_listed) {
  std::vector<const ExportedSymbol*> extra;
  size_t unique = 0;
  for (const ExportedSymbol& s : exports) {
    if (s.name == STRATA_PLUGIN_ENTRY_SYMBOL) continue;
    extra.push_back(&s);
    if (s.binding == "GNU-unique") ++unique;
  }
  if (extra.empty()) return "";
  std::string text = library.string() + " exports " + std::to_string(extra.size()) +
                     " dynamic symbol(s) besides " + STRATA_PLUGIN_ENTRY_SYMBOL +
                     ": violates rule 1 (export strata_plugin_entry and nothing else; "
                     "strata_add_plugin() links with a version script that does this)";
  for (size_t i = 0; i < extra.size() && i < max_listed; ++i) {
    const ExportedSymbol& s = *extra[i];
    const std::string readable = demangled(s.name);
    text += "\n  " + s.binding + " " + s.kind + " " + s.name +
            (readable == s.name ? "" : " (" + readable + ")");
  }
  if (extra.size() > max_listed) {
    text += "\n  ... and " + std::to_string(extra.size() - max_listed) + " more";
  }
  if (unique > 0) {
    text += "\n  " + std::to_string(unique) +
            " of them GNU-unique: the dynamic linker never unloads a library that exports "
            "one, so dlclose leaves it mapped";
  }
  return text;
}

}  // namespace strata::conformance
