#include "tools/strata/text_table.h"

#include <algorithm>
#include <utility>

namespace strata::cli {

TextTable::TextTable(std::vector<std::string> headers)
    : headers_(std::move(headers)), right_(headers_.size(), false) {}

void TextTable::align_right(size_t column) {
  if (column < right_.size()) right_[column] = true;
}

void TextTable::add_row(std::vector<std::string> cells) {
  cells.resize(headers_.size());
  rows_.push_back({std::move(cells), {}});
}

void TextTable::add_note(std::string note) {
  if (!rows_.empty()) rows_.back().notes.push_back(std::move(note));
}

void TextTable::print(std::ostream& os, const std::string& indent) const {
  std::vector<size_t> widths(headers_.size());
  for (size_t c = 0; c < headers_.size(); ++c) widths[c] = headers_[c].size();
  for (const Row& row : rows_) {
    for (size_t c = 0; c < row.cells.size(); ++c) {
      widths[c] = std::max(widths[c], row.cells[c].size());
    }
  }
  print_cells(os, indent, headers_, widths);
  // Notes line up with the second column: the first names the row.
  const std::string note_indent = indent + std::string(widths.front() + 2, ' ');
  for (const Row& row : rows_) {
    print_cells(os, indent, row.cells, widths);
    for (const std::string& note : row.notes) os << note_indent << note << "\n";
  }
}

void TextTable::print_cells(std::ostream& os, const std::string& indent,
                            const std::vector<std::string>& cells,
                            const std::vector<size_t>& widths) const {
  std::string line = indent;
  for (size_t c = 0; c < cells.size(); ++c) {
    const std::string& cell = cells[c];
    const std::string pad(widths[c] - cell.size(), ' ');
    if (c > 0) line += "  ";
    if (right_[c]) {
      line += pad + cell;
    } else {
      line += cell;
      if (c + 1 < cells.size()) line += pad;  // the last column needs no padding
    }
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  os << line << "\n";
}

}  // namespace strata::cli
