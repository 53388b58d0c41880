#include "sdk/conformance/report.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <ostream>

#include "sdk/conformance/call_outcome.h"

namespace strata::conformance {
namespace {

constexpr size_t kMaxReasons = 5;  // distinct decline reasons shown per algorithm

// The decline reason without "declined: " and the "[call 1 of 3]" suffix,
// so equal reasons from different calls group together.
std::string decline_key(const std::string& message) {
  std::string key = message.starts_with("declined: ") ? message.substr(10) : message;
  if (const auto at = key.find(" [call "); at != std::string::npos) key.resize(at);
  return key;
}

// "violates rule 10, violates rule 8" from a failure message, so the table
// names the broken rules even when the message is long.
std::string rules_in(const std::string& message) {
  std::string out;
  for (auto at = message.find("violates rule "); at != std::string::npos;
       at = message.find("violates rule ", at + 1)) {
    const auto end = message.find_first_not_of("0123456789", at + 14);
    const std::string rule = message.substr(at, end - at);
    if (out.find(rule) == std::string::npos) out += (out.empty() ? "" : ", ") + rule;
  }
  return out;
}

// GoogleTest starts FAIL()'s message with "Failed\n"; it says nothing.
std::string strip_failed(std::string message) {
  if (message.starts_with("Failed\n")) message.erase(0, 7);
  return message;
}

std::string pad(const std::string& text, size_t width) {
  return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

std::string number(size_t n, size_t width) {
  const std::string s = std::to_string(n);
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

}  // namespace

const char* outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::kPassed: return "passed";
    case Outcome::kFailed: return "failed";
    case Outcome::kDeclined: return "declined";
    case Outcome::kSkipped: return "skipped";
    case Outcome::kNotRun: return "not_run";
  }
  return "?";
}

Report::Row& Report::row(const std::string& id) {
  auto [it, added] = rows_.try_emplace(id);
  if (added) order_.push_back(id);
  return it->second;
}

void Report::add_algorithm(const std::string& id) {
  std::lock_guard lock(mu_);
  row(id);
}

void Report::add_skipped_algorithm(const std::string& id, const std::string& reason) {
  std::lock_guard lock(mu_);
  row(id).skipped_reason = reason;
}

void Report::OnTestEnd(const testing::TestInfo& info) {
  const testing::TestResult& result = *info.result();
  TestRecord rec;
  rec.algorithm = info.test_suite_name();
  rec.test = info.name();
  rec.seconds = static_cast<double>(result.elapsed_time()) / 1e3;
  if (result.Failed()) rec.outcome = Outcome::kFailed;
  else if (result.Skipped()) rec.outcome = Outcome::kSkipped;
  for (int i = 0; i < result.total_part_count(); ++i) {
    const testing::TestPartResult& part = result.GetTestPartResult(i);
    if (part.failed() || part.skipped()) {
      rec.message = strip_failed(part.message());
      break;
    }
  }
  while (!rec.message.empty() && rec.message.back() == '\n') rec.message.pop_back();
  if (rec.outcome == Outcome::kSkipped && rec.message.starts_with("declined:")) {
    rec.outcome = Outcome::kDeclined;
  }
  if (rec.outcome == Outcome::kSkipped && rec.message.starts_with(kNotRunPrefix)) {
    rec.outcome = Outcome::kNotRun;
  }
  std::lock_guard lock(mu_);
  add(std::move(rec));
}

void Report::add_failure(const std::string& algorithm, const std::string& test,
                         const std::string& message) {
  TestRecord rec;
  rec.algorithm = algorithm;
  rec.test = test;
  rec.outcome = Outcome::kFailed;
  rec.message = message;
  std::lock_guard lock(mu_);
  add(std::move(rec));
}

void Report::add(TestRecord rec) {
  Row& r = row(rec.algorithm);
  ++r.counts[static_cast<int>(rec.outcome)];
  if (rec.outcome == Outcome::kFailed && r.first_failure.empty()) {
    r.first_failure = rec.test + ": " + rec.message;
  }
  if (rec.outcome == Outcome::kDeclined) ++r.declines[decline_key(rec.message)];
  records_.push_back(std::move(rec));
}

size_t Report::failed() const {
  std::lock_guard lock(mu_);
  size_t n = 0;
  for (const auto& [id, r] : rows_) n += r.counts[static_cast<int>(Outcome::kFailed)];
  return n;
}

size_t Report::not_run() const {
  std::lock_guard lock(mu_);
  size_t n = 0;
  for (const auto& [id, r] : rows_) n += r.counts[static_cast<int>(Outcome::kNotRun)];
  return n;
}

size_t Report::ran() const {
  std::lock_guard lock(mu_);
  return records_.size();
}

void Report::print(std::ostream& os) const {
  std::lock_guard lock(mu_);
  constexpr int kPassed = static_cast<int>(Outcome::kPassed);
  constexpr int kFailed = static_cast<int>(Outcome::kFailed);
  constexpr int kDeclined = static_cast<int>(Outcome::kDeclined);
  constexpr int kSkipped = static_cast<int>(Outcome::kSkipped);
  constexpr int kNotRun = static_cast<int>(Outcome::kNotRun);
  size_t width = 9;
  for (const auto& id : order_) width = std::max(width, id.size());
  os << "\n"
     << pad("algorithm", width) << "  passed  failed  not run  declined  first failure\n";
  size_t total[5] = {0, 0, 0, 0, 0};
  for (const auto& id : order_) {
    const Row& r = rows_.at(id);
    size_t tests = 0;
    for (const size_t n : r.counts) tests += n;
    if (tests == 0 && r.skipped_reason.empty()) continue;  // filtered out entirely
    os << pad(id, width);
    if (!r.skipped_reason.empty()) {
      os << "       -       -        -         -  not run: " << r.skipped_reason << "\n";
      continue;
    }
    for (int k = 0; k < 5; ++k) total[k] += r.counts[k];
    std::string failure;
    if (!r.first_failure.empty()) {
      const std::string rules = rules_in(r.first_failure);
      failure = rules.empty() ? first_line(r.first_failure).substr(0, 100)
                              : first_line(r.first_failure).substr(0, r.first_failure.find(':')) +
                                    ": " + rules;
    }
    os << number(r.counts[kPassed], 8) << number(r.counts[kFailed], 8)
       << number(r.counts[kNotRun], 9) << number(r.counts[kDeclined], 10) << "  " << failure
       << "\n";
  }
  os << pad("total", width) << number(total[kPassed], 8) << number(total[kFailed], 8)
     << number(total[kNotRun], 9) << number(total[kDeclined], 10) << "\n";
  if (total[kSkipped] > 0) os << "(" << total[kSkipped] << " test(s) skipped for other reasons)\n";
  if (total[kNotRun] > 0) {
    os << "(not run: after a call of an algorithm timed out, the devices stayed busy, or a "
          "process of the run or its store was lost, the suite fails that call and skips "
          "what follows instead of waiting out the deadline again; the first failure says "
          "why)\n";
  }

  for (const auto& id : order_) {
    const Row& r = rows_.at(id);
    if (!r.first_failure.empty()) {
      os << "\nFIRST FAILURE of " << id << "\n  " << r.first_failure << "\n";
    }
    if (r.declines.empty()) continue;
    os << "\nDECLINED by " << id << " (a decline is not a pass):\n";
    std::vector<std::pair<size_t, std::string>> reasons;
    for (const auto& [why, n] : r.declines) reasons.emplace_back(n, why);
    std::sort(reasons.rbegin(), reasons.rend());
    for (size_t i = 0; i < reasons.size() && i < kMaxReasons; ++i) {
      os << "  " << number(reasons[i].first, 5) << " x " << reasons[i].second << "\n";
    }
    if (reasons.size() > kMaxReasons) {
      os << "  ... and " << reasons.size() - kMaxReasons << " other reason(s)\n";
    }
  }
  os << std::flush;
}

bool Report::write_json(const std::string& file, nlohmann::json header) const {
  std::lock_guard lock(mu_);
  nlohmann::json& tests = header["tests"] = nlohmann::json::array();
  for (const TestRecord& rec : records_) {
    tests.push_back({{"algorithm", rec.algorithm}, {"test", rec.test},
                     {"outcome", outcome_name(rec.outcome)}, {"message", rec.message},
                     {"seconds", rec.seconds}});
  }
  nlohmann::json& summary = header["summary"] = nlohmann::json::array();
  for (const auto& id : order_) {
    const Row& r = rows_.at(id);
    nlohmann::json row = {{"algorithm", id},
                          {"passed", r.counts[static_cast<int>(Outcome::kPassed)]},
                          {"failed", r.counts[static_cast<int>(Outcome::kFailed)]},
                          {"not_run_tests", r.counts[static_cast<int>(Outcome::kNotRun)]},
                          {"declined", r.counts[static_cast<int>(Outcome::kDeclined)]},
                          {"skipped", r.counts[static_cast<int>(Outcome::kSkipped)]},
                          {"first_failure", r.first_failure},
                          {"declines", r.declines}};
    if (!r.skipped_reason.empty()) row["not_run"] = r.skipped_reason;
    summary.push_back(std::move(row));
  }
  std::ofstream out(file);
  out << header.dump(2) << "\n";
  return static_cast<bool>(out);
}

}  // namespace strata::conformance
