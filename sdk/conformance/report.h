// Collects every test's outcome as GoogleTest finishes it and prints the
// per-algorithm summary a vendor reads first: passed / failed / declined,
// the first failure, and why calls were declined. Optionally the same as
// JSON for dashboards.
#ifndef STRATA_SDK_CONFORMANCE_REPORT_H_
#define STRATA_SDK_CONFORMANCE_REPORT_H_

#include <gtest/gtest.h>

#include <iosfwd>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace strata::conformance {

// kNotRun: the suite did not make the test's calls because an earlier one
// showed they could not tell anything (a call of the algorithm timed out,
// the devices stayed busy, a process of the run or its store was lost).
// Counted apart from kFailed, so the failed column holds real failures only.
enum class Outcome { kPassed, kFailed, kDeclined, kSkipped, kNotRun };
const char* outcome_name(Outcome outcome);  // "passed"

// A GTEST_SKIP message that starts with this is a kNotRun test.
inline constexpr std::string_view kNotRunPrefix = "not run:";

struct TestRecord {
  std::string algorithm;  // the GoogleTest suite name
  std::string test;       // "n4_c7_f32_sum_inplace"
  Outcome outcome = Outcome::kPassed;
  std::string message;    // failure or decline text; empty for a pass
  double seconds = 0;
};

class Report : public testing::EmptyTestEventListener {
 public:
  // Lists an algorithm with zero tests so far, keeping the table's order.
  void add_algorithm(const std::string& id);
  // An algorithm the suite cannot run here, e.g. CROSS_PROCESS only.
  void add_skipped_algorithm(const std::string& id, const std::string& reason);

  void OnTestEnd(const testing::TestInfo& info) override;
  // A failure GoogleTest never saw: the test the watchdog gave up on.
  void add_failure(const std::string& algorithm, const std::string& test,
                   const std::string& message);

  size_t failed() const;
  size_t not_run() const;
  size_t ran() const;
  void print(std::ostream& os) const;
  // `header` (plugins, matrix, wall time) plus every record and the rows.
  bool write_json(const std::string& file, nlohmann::json header) const;

 private:
  struct Row {
    size_t counts[5] = {0, 0, 0, 0, 0};  // by Outcome
    std::string first_failure;        // "test: message" of the first failed test
    std::string skipped_reason;       // set for algorithms not run at all
    std::map<std::string, size_t> declines;  // reason -> tests
  };
  Row& row(const std::string& id);
  void add(TestRecord rec);  // with mu_ held

  mutable std::mutex mu_;  // the watchdog prints from its own thread
  std::vector<std::string> order_;
  std::map<std::string, Row> rows_;
  std::vector<TestRecord> records_;
};

}  // namespace strata::conformance

#endif  // STRATA_SDK_CONFORMANCE_REPORT_H_
