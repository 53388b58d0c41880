// The test program owns MPI, as an application that links MPI itself would:
// initialised before the first test, finalised after the last. So neither
// the plugin loaded by a test's Runtime nor the implementation linked in
// finalises it between tests (MPI cannot be initialised twice).
#ifndef STRATA_TESTS_MPI_MPI_TEST_ENV_H_
#define STRATA_TESTS_MPI_MPI_TEST_ENV_H_

#include <gtest/gtest.h>
#include <mpi.h>

namespace strata::mpi::testing {

class MpiEnvironment final : public ::testing::Environment {
 public:
  void SetUp() override {
    int provided = 0;
    ASSERT_EQ(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided), MPI_SUCCESS);
  }
  void TearDown() override { MPI_Finalize(); }
};

// One registration per program, whichever test file includes this first.
inline ::testing::Environment* const kMpiEnvironment =
    ::testing::AddGlobalTestEnvironment(new MpiEnvironment);

}  // namespace strata::mpi::testing

#endif  // STRATA_TESTS_MPI_MPI_TEST_ENV_H_
