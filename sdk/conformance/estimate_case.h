// The estimate() check of one algorithm on one team: for every call shape
// of the matrix, estimate must answer a finite, non-negative number of
// seconds (or NOT_SUPPORTED), the same when asked again right away and after
// every other shape, and the same on every process of a --processes run.
// AUTO ranks candidates by it on each rank on its own (rule 5), so an
// estimate that drifts or differs by rank makes ranks choose different
// algorithms; NaN or a negative time would make the ranking meaningless.
#ifndef STRATA_SDK_CONFORMANCE_ESTIMATE_CASE_H_
#define STRATA_SDK_CONFORMANCE_ESTIMATE_CASE_H_

#include <gtest/gtest.h>

#include <string>

#include "sdk/conformance/collective_case.h"

namespace strata::conformance {

class EstimateCase : public testing::Test {
 public:
  EstimateCase(Suite& suite, std::string algorithm, int world)
      : suite_(suite), algorithm_(std::move(algorithm)), world_(world) {}
  void TestBody() override;

  // "estimate_n4"
  static std::string test_name(int world) { return "estimate_n" + std::to_string(world); }

 private:
  // What this process found wrong ("" when nothing), and in `digest` every
  // shape's answer, for comparing processes.
  std::string check_locally(const AlgorithmEntry& algo, const Team& team, std::string& digest);
  // Under --processes: the first shape whose answer differs between ranks.
  std::string compare_ranks(const std::string& digest);

  Suite& suite_;
  std::string algorithm_;
  int world_;
};

}  // namespace strata::conformance

#endif  // STRATA_SDK_CONFORMANCE_ESTIMATE_CASE_H_
