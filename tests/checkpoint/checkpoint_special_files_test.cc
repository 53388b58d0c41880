// A FIFO, a directory or a device where a checkpoint (or the index) should
// be is refused at once, naming what was found -- never a hang: a plain
// open() of a FIFO blocks until a writer comes.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <future>
#include <optional>
#include <thread>

#include "core/checkpoint/checkpoint_file.h"
#include "core/checkpoint/checkpoint_manager.h"
#include "tests/checkpoint/checkpoint_test_util.h"

namespace strata {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing_util::sample_checkpoint;
using testing_util::TempDir;

// Runs `read` and returns its Status, failing the test if it is still
// blocked after 10 s. Then it opens every FIFO in `fifos` for writing,
// which releases a reader stuck in open(), so the test ends either way.
Status without_hanging(const std::function<Status()>& read, const std::vector<fs::path>& fifos) {
  std::promise<Status> promise;
  std::future<Status> result = promise.get_future();
  std::thread reader([&] { promise.set_value(read()); });
  const bool blocked = result.wait_for(std::chrono::seconds(10)) == std::future_status::timeout;
  if (blocked) {
    ADD_FAILURE() << "the read was still blocked after 10 s (open() waiting on a FIFO)";
    for (int round = 0; round < 100 && result.wait_for(std::chrono::milliseconds(50)) ==
                                           std::future_status::timeout;
         ++round) {
      for (const fs::path& fifo : fifos) {
        const int fd = ::open(fifo.c_str(), O_RDWR | O_NONBLOCK);
        if (fd >= 0) ::close(fd);
      }
    }
  }
  reader.join();
  return result.get();
}

void make_fifo(const fs::path& path) { ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0) << path; }

TEST(CheckpointSpecialFilesTest, AFifoIsRefusedWithoutBlocking) {
  TempDir dir;
  const fs::path fifo = dir / "ckpt-5.strata";
  make_fifo(fifo);
  const Status read =
      without_hanging([&] { return read_checkpoint(fifo).status(); }, {fifo});
  EXPECT_EQ(read.code(), Code::kFailedPrecondition) << read;
  EXPECT_THAT(read.message(), HasSubstr("FIFO"));
  EXPECT_THAT(read.message(), HasSubstr(fifo.string()));
  const Status verified = without_hanging([&] { return verify_checkpoint(fifo); }, {fifo});
  EXPECT_EQ(verified.code(), Code::kFailedPrecondition) << verified;
}

TEST(CheckpointSpecialFilesTest, ADirectoryAndADeviceAreRefused) {
  TempDir dir;
  fs::create_directory(dir / "ckpt-1.strata");
  const Status directory = read_checkpoint(dir / "ckpt-1.strata").status();
  EXPECT_EQ(directory.code(), Code::kFailedPrecondition) << directory;
  EXPECT_THAT(directory.message(), HasSubstr("a directory"));
  fs::create_symlink("/dev/null", dir / "ckpt-2.strata");
  const Status device = read_checkpoint(dir / "ckpt-2.strata").status();
  EXPECT_EQ(device.code(), Code::kFailedPrecondition) << device;
  EXPECT_THAT(device.message(), HasSubstr("a character device"));
  EXPECT_EQ(verify_checkpoint(dir / "ckpt-2.strata").code(), Code::kFailedPrecondition);
}

// The manager meets special files through the index and through its scan
// of the directory; both paths must report them, and neither may block.
TEST(CheckpointSpecialFilesTest, TheManagerReportsSpecialFilesAsDamage) {
  TempDir dir;
  CheckpointManager manager(dir.path());
  ASSERT_TRUE(manager.save(sample_checkpoint(3)).ok());
  make_fifo(dir / "ckpt-9.strata");  // newer than the real one; not in the index
  const fs::path index = dir / CheckpointManager::kIndexFileName;
  fs::remove(index);
  make_fifo(index);  // the index itself a FIFO: ignored with a warning, the files scanned
  std::optional<StatusOr<Checkpoint>> back;
  const Status restored = without_hanging(
      [&] {
        back.emplace(manager.restore_latest());
        return back->status();
      },
      {index, dir / "ckpt-9.strata"});
  ASSERT_TRUE(restored.ok()) << restored;
  EXPECT_EQ((*back)->step, 3);  // fell back past the FIFO named ckpt-9.strata

  // With nothing readable left the FIFO is reported as damage, not passed
  // over as if the directory held no checkpoint (which would restart at 0).
  fs::remove(dir / "ckpt-3.strata");
  const Status alone = without_hanging([&] { return manager.restore_latest().status(); },
                                       {index, dir / "ckpt-9.strata"});
  EXPECT_EQ(alone.code(), Code::kDataLoss) << alone;
  EXPECT_THAT(alone.message(), HasSubstr("ckpt-9.strata"));
  EXPECT_THAT(alone.message(), HasSubstr("FIFO"));
}

}  // namespace
}  // namespace strata
