// What the plugin reads of Open MPI's transport through MPI_T, under
// mpirun -np 2 (tests/mpi/CMakeLists.txt). CTest runs it twice: with Open
// MPI's defaults, and with the limit raised through the environment (as
// `mpirun --mca` would), so a reading that ignored the library's settings
// could not pass both.
#include <gtest/gtest.h>

#include <cstdlib>

#include "mpi_test_env.h"
#include "mpi_transport.h"

namespace strata::mpi {
namespace {

TEST(MpiTransport, ReadsOpenMpisSharedMemoryEagerLimit) {
  const char* set = std::getenv("OMPI_MCA_btl_vader_eager_limit");
  const uint64_t expected = set != nullptr ? std::strtoull(set, nullptr, 10) : 4096;  // default
  EXPECT_EQ(shared_memory_eager_limit(), expected);
}

TEST(MpiTransport, AVariableTheLibraryDoesNotHaveReadsAsNothing) {
  EXPECT_FALSE(read_control_variable("strata_no_such_variable").has_value());
  // Read twice: MPI_T's own initialisation is reference-counted and undone.
  EXPECT_TRUE(read_control_variable("btl_vader_eager_limit").has_value());
  EXPECT_TRUE(read_control_variable("btl_vader_eager_limit").has_value());
}

}  // namespace
}  // namespace strata::mpi
