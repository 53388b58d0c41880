// Aligned plain-text tables for `strata info` and `strata explain`: columns
// as wide as their widest cell, two spaces apart, numbers right-aligned, and
// no trailing blanks, so the output diffs and greps cleanly.
#ifndef STRATA_TOOLS_STRATA_TEXT_TABLE_H_
#define STRATA_TOOLS_STRATA_TEXT_TABLE_H_

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

namespace strata::cli {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> headers);

  void align_right(size_t column);
  void add_row(std::vector<std::string> cells);
  // A free-form line printed under the last row added (e.g. why a plugin
  // was refused), indented past the first column.
  void add_note(std::string note);
  bool empty() const { return rows_.empty(); }

  void print(std::ostream& os, const std::string& indent = "  ") const;

 private:
  struct Row {
    std::vector<std::string> cells;
    std::vector<std::string> notes;
  };
  void print_cells(std::ostream& os, const std::string& indent,
                   const std::vector<std::string>& cells, const std::vector<size_t>& widths) const;

  std::vector<std::string> headers_;
  std::vector<bool> right_;
  std::vector<Row> rows_;
};

}  // namespace strata::cli

#endif  // STRATA_TOOLS_STRATA_TEXT_TABLE_H_
