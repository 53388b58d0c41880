#include "segment.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <algorithm>
#include <utility>

#include "peer_liveness.h"
#include "strata/sdk/error.h"

namespace strata::shm {
namespace {

constexpr uint64_t kPage = 4096;
constexpr uint64_t kHeaderBytes = 16384;
static_assert(sizeof(SegmentHeader) <= kHeaderBytes);
static_assert(std::atomic_ref<uint64_t>::is_always_lock_free,
              "flags must be lock-free to work across processes");

std::string errno_text(const std::string& what) {
  return what + ": " + std::strerror(errno);
}

std::byte* map_shared(int fd, uint64_t bytes, const std::string& what) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) throw sdk::Error(STRATA_UNAVAILABLE, errno_text("mmap of " + what));
  // A child the training process forks must not keep the memory alive (or
  // see it): the mapping is not inherited.
  ::madvise(p, bytes, MADV_DONTFORK);
  return static_cast<std::byte*>(p);
}

}  // namespace

uint64_t Segment::bytes_for(uint64_t slots, uint64_t slot_bytes) {
  return kHeaderBytes + slots * ((slot_bytes + kPage - 1) / kPage * kPage);
}

Segment Segment::create(const std::string& name, uint64_t slots, uint64_t slot_bytes) {
  Segment s;
  s.fd_ = ::memfd_create(name.c_str(), MFD_CLOEXEC);
  if (s.fd_ < 0) throw sdk::Error(STRATA_UNAVAILABLE, errno_text("memfd_create(" + name + ")"));
  s.bytes_ = bytes_for(slots, slot_bytes);
  if (::ftruncate(s.fd_, static_cast<off_t>(s.bytes_)) != 0) {
    throw sdk::Error(STRATA_OUT_OF_MEMORY,
                     errno_text("ftruncate of " + name + " to " + std::to_string(s.bytes_)));
  }
  s.slots_ = slots;
  s.slot_bytes_ = (slot_bytes + kPage - 1) / kPage * kPage;
  s.base_ = map_shared(s.fd_, s.bytes_, name);
  SegmentHeader& h = s.header();
  h.owner_pid = static_cast<uint64_t>(::getpid());
  h.slots = slots;
  h.slot_bytes = s.slot_bytes_;
  std::atomic_ref<uint64_t>(h.magic).store(kSegmentMagic, std::memory_order_release);
  return s;
}

Segment Segment::open(pid_t pid, int fd, uint64_t slots, uint64_t slot_bytes) {
  const uint64_t bytes = bytes_for(slots, slot_bytes);
  const std::string path = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd);
  Segment s;
  s.fd_ = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (s.fd_ < 0) throw sdk::Error(STRATA_UNAVAILABLE, errno_text("open " + path));
  struct stat st {};
  if (::fstat(s.fd_, &st) != 0 || static_cast<uint64_t>(st.st_size) != bytes) {
    throw sdk::Error(STRATA_DATA_LOSS, path + " is " + std::to_string(st.st_size) +
                                           " bytes, not the " + std::to_string(bytes) +
                                           " its owner published");
  }
  s.bytes_ = bytes;
  s.slots_ = slots;
  s.slot_bytes_ = (slot_bytes + kPage - 1) / kPage * kPage;
  s.base_ = map_shared(s.fd_, bytes, path);
  s.close_fd();
  return s;
}

Segment::~Segment() {
  if (base_ != nullptr) ::munmap(base_, bytes_);
  close_fd();
}

Segment::Segment(Segment&& other) noexcept
    : base_(std::exchange(other.base_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      slots_(other.slots_),
      slot_bytes_(other.slot_bytes_),
      fd_(std::exchange(other.fd_, -1)) {}

Segment& Segment::operator=(Segment&& other) noexcept {
  if (this != &other) {
    if (base_ != nullptr) ::munmap(base_, bytes_);
    close_fd();
    base_ = std::exchange(other.base_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    slots_ = other.slots_;
    slot_bytes_ = other.slot_bytes_;
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

void Segment::close_fd() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::byte* Segment::slot(uint64_t index) const {
  return base_ + kHeaderBytes + (index % slots_) * slot_bytes_;
}

uint64_t* Segment::flag(Flag f) const {
  SegmentHeader& h = header();
  switch (f) {
    case Flag::kStaged: return &h.staged;
    case Flag::kReduced: return &h.reduced;
    case Flag::kDone: return &h.done;
    case Flag::kAttached: return &h.attached;
  }
  return &h.done;
}

uint64_t Segment::load(Flag f) const {
  return std::atomic_ref<uint64_t>(*flag(f)).load(std::memory_order_acquire);
}

void Segment::store(Flag f, uint64_t value) const {
  std::atomic_ref<uint64_t>(*flag(f)).store(value, std::memory_order_release);
}

// Both sides are sequentially consistent: the raiser stores the flag then
// reads `sleepers`, a sleeper counts itself then reads the flag, so at least
// one of them sees the other (no lost wake-up). The futex is a shared one
// (no FUTEX_PRIVATE_FLAG): the kernel keys it by the memfd's page, which
// every process maps at its own address.
void Segment::raise(Flag f, uint64_t value) const {
  std::atomic_ref<uint64_t>(*flag(f)).store(value, std::memory_order_seq_cst);
  SegmentHeader& h = header();
  if (std::atomic_ref<uint32_t>(h.sleepers).load(std::memory_order_seq_cst) == 0) return;
  std::atomic_ref<uint32_t>(h.wake).fetch_add(1, std::memory_order_seq_cst);
  ::syscall(SYS_futex, &h.wake, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

void Segment::sleep_until(Flag f, uint64_t value, std::chrono::nanoseconds timeout) const {
  sleep_until(flag(f), value, timeout);
}

std::string LeftTeam::describe(int via, int64_t via_pid) const {
  const std::string origin = rank_and_pid(rank, pid) + " " + why;
  if (via == rank) return origin;
  return rank_and_pid(via, via_pid) + " gave up after " + origin;
}

void Segment::give_up(const LeftTeam& notice) const {
  SegmentHeader& h = header();
  h.gave_up_rank = notice.rank;
  h.gave_up_pid = notice.pid;
  const size_t n = std::min(notice.why.size(), kGaveUpWhyBytes - 1);
  std::memcpy(h.gave_up_why, notice.why.data(), n);
  h.gave_up_why[n] = '\0';
  std::atomic_ref<uint64_t>(h.gave_up).store(1, std::memory_order_release);
}

LeftTeam Segment::gave_up() const {
  const SegmentHeader& h = header();
  if (std::atomic_ref<const uint64_t>(h.gave_up).load(std::memory_order_acquire) == 0) return {};
  // Written once, before the flag: a bounded copy, whatever the peer wrote.
  return {static_cast<int>(h.gave_up_rank), h.gave_up_pid,
          std::string(h.gave_up_why, strnlen(h.gave_up_why, kGaveUpWhyBytes))};
}

std::byte* Segment::box_payload(uint64_t index) const { return box(index).payload; }

// seq_cst as raise(): a reader asleep on the box is woken by the raise of
// `staged` that follows, and must see the count once woken.
void Segment::fill_box(uint64_t index, uint64_t count) const {
  std::atomic_ref<uint64_t>(box(index).count).store(count, std::memory_order_seq_cst);
}

void Segment::claim_box(uint64_t index) const {
#if defined(__x86_64__)
  // PREFETCHW (AMD since K8, Intel since Broadwell); GCC emits it for
  // __builtin_prefetch(p, 1) only when told the target has it.
  asm volatile("prefetchw %0" : : "m"(box(index).count));
#else
  __builtin_prefetch(&box(index).count, 1);
#endif
}

uint64_t Segment::box_count(uint64_t index) const {
  return std::atomic_ref<uint64_t>(box(index).count).load(std::memory_order_acquire);
}

void Segment::sleep_until_box(uint64_t index, uint64_t count,
                              std::chrono::nanoseconds timeout) const {
  sleep_until(&box(index).count, count, timeout);
}

void Segment::sleep_until(uint64_t* counter, uint64_t value,
                          std::chrono::nanoseconds timeout) const {
  SegmentHeader& h = header();
  std::atomic_ref<uint32_t> sleepers(h.sleepers);
  sleepers.fetch_add(1, std::memory_order_seq_cst);
  const uint32_t seen = std::atomic_ref<uint32_t>(h.wake).load(std::memory_order_seq_cst);
  if (std::atomic_ref<uint64_t>(*counter).load(std::memory_order_seq_cst) < value) {
    const auto ns = std::max<int64_t>(0, timeout.count());
    timespec ts{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
    ::syscall(SYS_futex, &h.wake, FUTEX_WAIT, seen, &ts, nullptr, 0);
  }
  sleepers.fetch_sub(1, std::memory_order_seq_cst);
}

}  // namespace strata::shm
