#include "core/cluster/resolvers/slurm_hostlist.h"

#include <algorithm>
#include <charconv>
#include <cstdint>

namespace strata {
namespace {

std::string quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

bool all_digits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Digits only, so from_chars fails only on overflow.
bool parse_number(std::string_view digits, uint64_t* out) {
  if (!all_digits(digits)) return false;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), *out);
  return ec == std::errc() && end == digits.data() + digits.size();
}

std::string padded(uint64_t n, size_t width) {
  std::string digits = std::to_string(n);
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return digits;
}

// Splits at the commas that are not inside brackets, checking the brackets.
StatusOr<std::vector<std::string_view>> split_hosts(std::string_view text) {
  std::vector<std::string_view> items;
  size_t start = 0;
  bool in_group = false;
  for (size_t i = 0; i <= text.size(); ++i) {
    const char c = i < text.size() ? text[i] : ',';
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      return InvalidArgumentError("whitespace inside host list " + quoted(text) +
                                  "; Slurm writes host lists without spaces");
    }
    if (c == '[') {
      if (in_group) return InvalidArgumentError("nested '[' in host list " + quoted(text));
      in_group = true;
    } else if (c == ']') {
      if (!in_group) {
        return InvalidArgumentError("']' without a matching '[' in host list " + quoted(text));
      }
      in_group = false;
    } else if (c == ',' && !in_group) {
      if (i == start) return InvalidArgumentError("empty host name in host list " + quoted(text));
      items.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  if (in_group) return InvalidArgumentError("unclosed '[' in host list " + quoted(text));
  return items;
}

// The numbers of one bracket group ("01-04,07"), as zero-padded text.
StatusOr<std::vector<std::string>> expand_group(std::string_view group, std::string_view item) {
  if (group.empty()) return InvalidArgumentError("empty brackets '[]' in " + quoted(item));
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= group.size()) {
    size_t comma = group.find(',', start);
    if (comma == std::string_view::npos) comma = group.size();
    const std::string_view part = group.substr(start, comma - start);
    const size_t dash = part.find('-');
    const std::string_view lo_text = part.substr(0, dash);
    const std::string_view hi_text =
        dash == std::string_view::npos ? lo_text : part.substr(dash + 1);
    uint64_t lo = 0;
    uint64_t hi = 0;
    if (!parse_number(lo_text, &lo) || !parse_number(hi_text, &hi)) {
      return InvalidArgumentError(quoted(part) + " in " + quoted(item) +
                                  " is not a number or a range of numbers such as 01-04");
    }
    if (hi < lo) {
      return InvalidArgumentError("range " + quoted(part) + " in " + quoted(item) +
                                  " ends before it starts");
    }
    if (hi - lo >= kMaxSlurmHosts || out.size() + (hi - lo) >= kMaxSlurmHosts) {
      return InvalidArgumentError("range " + quoted(part) + " in " + quoted(item) +
                                  " names more than " + std::to_string(kMaxSlurmHosts) + " hosts");
    }
    for (uint64_t n = lo; n <= hi; ++n) out.push_back(padded(n, lo_text.size()));
    start = comma + 1;
  }
  return out;
}

// One name with its bracket groups: "gpu[1-2]-ib[0-1]".
Status expand_item(std::string_view item, std::vector<std::string>* hosts) {
  std::vector<std::string> names = {""};
  size_t pos = 0;
  while (pos < item.size()) {
    const size_t open = item.find('[', pos);
    const std::string_view literal = item.substr(pos, open - pos);
    for (std::string& name : names) name += literal;
    if (open == std::string_view::npos) break;
    const size_t close = item.find(']', open);  // split_hosts checked it exists
    STRATA_ASSIGN_OR_RETURN(std::vector<std::string> numbers,
                            expand_group(item.substr(open + 1, close - open - 1), item));
    if (names.size() * numbers.size() + hosts->size() > kMaxSlurmHosts) {
      return InvalidArgumentError(quoted(item) + " names more than " +
                                  std::to_string(kMaxSlurmHosts) + " hosts");
    }
    std::vector<std::string> product;
    product.reserve(names.size() * numbers.size());
    for (const std::string& name : names) {
      for (const std::string& number : numbers) product.push_back(name + number);
    }
    names = std::move(product);
    pos = close + 1;
  }
  hosts->insert(hosts->end(), names.begin(), names.end());
  return Status::Ok();
}

}  // namespace

StatusOr<std::vector<std::string>> expand_slurm_hostlist(std::string_view text) {
  if (text.empty()) return InvalidArgumentError("the host list is empty");
  STRATA_ASSIGN_OR_RETURN(std::vector<std::string_view> items, split_hosts(text));
  std::vector<std::string> hosts;
  for (std::string_view item : items) STRATA_RETURN_IF_ERROR(expand_item(item, &hosts));
  return hosts;
}

StatusOr<std::vector<int>> expand_slurm_tasks_per_node(std::string_view text) {
  if (text.empty()) return InvalidArgumentError("the tasks-per-node list is empty");
  std::vector<int> counts;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    const std::string_view part = text.substr(start, comma - start);
    const size_t paren = part.find('(');
    uint64_t tasks = 0;
    uint64_t repeat = 1;
    const bool well_formed =
        parse_number(part.substr(0, paren), &tasks) &&
        (paren == std::string_view::npos ||
         (part.size() > paren + 3 && part.substr(paren, 2) == "(x" && part.back() == ')' &&
          parse_number(part.substr(paren + 2, part.size() - paren - 3), &repeat)));
    if (!well_formed) {
      return InvalidArgumentError(quoted(part) + " in " + quoted(text) +
                                  " is not N or N(xM), as in 2(x3),1");
    }
    if (tasks == 0 || repeat == 0) {
      return InvalidArgumentError(quoted(part) + " in " + quoted(text) +
                                  " counts zero tasks or nodes; every node runs at least one");
    }
    if (tasks > kMaxSlurmHosts || repeat > kMaxSlurmHosts - counts.size()) {
      return InvalidArgumentError(quoted(part) + " in " + quoted(text) + " is larger than " +
                                  std::to_string(kMaxSlurmHosts));
    }
    counts.insert(counts.end(), repeat, static_cast<int>(tasks));
    start = comma + 1;
  }
  return counts;
}

}  // namespace strata
