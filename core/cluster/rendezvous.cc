#include "core/cluster/rendezvous.h"

#include <algorithm>

#include "core/cluster/duration_text.h"

namespace strata {
namespace {

// Beyond this many, a list of missing ranks says "and N more": the message
// must fit the ABI's 1 KiB buffers and a person's screen.
constexpr size_t kMaxListed = 16;

std::string key_of(std::string_view name, std::string_view what) {
  return "rendezvous/" + std::string(name) + "/" + std::string(what);
}

std::string where(std::string_view name) {
  return "rendezvous '" + std::string(name) + "'";
}

}  // namespace

std::string describe_ranks(const std::vector<int>& ranks,
                           const std::function<std::string(int)>& describe_rank) {
  const size_t listed = std::min(ranks.size(), kMaxListed);
  const size_t more = ranks.size() - listed;
  auto list = [&](auto&& item) {
    std::string out;
    for (size_t i = 0; i < listed; ++i) {
      if (i > 0) out += (i + 1 == listed && more == 0) ? " and " : ", ";
      out += item(ranks[i]);
    }
    if (more > 0) out += " and " + std::to_string(more) + " more";
    return out;
  };
  std::string text = (ranks.size() == 1 ? "rank " : "ranks ") +
                     list([](int r) { return std::to_string(r); });
  if (describe_rank) {
    // Names are listed with commas only: "(worker 2, worker 3)".
    std::string names;
    for (size_t i = 0; i < listed; ++i) names += (i > 0 ? ", " : "") + describe_rank(ranks[i]);
    if (more > 0) names += ", ...";
    text += " (" + names + ")";
  }
  return text;
}

Status rendezvous(Store& store, std::string_view name, int rank, int world,
                  Deadline deadline, const std::function<std::string(int)>& describe_rank) {
  if (world < 1 || rank < 0 || rank >= world) {
    return InvalidArgumentError(where(name) + ": rank " + std::to_string(rank) +
                                " is not in a world of " + std::to_string(world));
  }
  const auto start = Clock::now();
  const std::string me = describe_rank ? " (" + describe_rank(rank) + ")" : "";

  // A per-rank counter, not just the total, so that a missing rank can be
  // named and a rank claimed by two processes is caught.
  auto arrivals = store.add(key_of(name, "rank/" + std::to_string(rank)), 1);
  if (!arrivals.ok()) return arrivals.status().prefixed(where(name));
  if (*arrivals > 1) {
    return FailedPreconditionError("rank " + std::to_string(rank) + me + " arrived " +
                                   std::to_string(*arrivals) + " times at " + where(name) +
                                   "; is the same rank given to two processes?");
  }
  auto count = store.add(key_of(name, "count"), 1);
  if (!count.ok()) return count.status().prefixed(where(name));
  if (*count == world) {
    // The last to arrive opens the door for everyone waiting on "done".
    if (Status s = store.set(key_of(name, "done"), "1"); !s.ok()) return s.prefixed(where(name));
  }

  auto done = store.get(key_of(name, "done"), deadline);
  if (done.ok()) return Status::Ok();
  if (done.status().code() != Code::kTimedOut) return done.status().prefixed(where(name));

  // add(k, 0) reads a counter without waiting, in every store type.
  std::vector<int> missing;
  for (int r = 0; r < world; ++r) {
    auto seen = store.add(key_of(name, "rank/" + std::to_string(r)), 0);
    if (!seen.ok()) return seen.status().prefixed(where(name));
    if (*seen == 0) missing.push_back(r);
  }
  if (missing.empty()) return Status::Ok();  // the last rank came just now
  return TimedOutError(describe_ranks(missing, describe_rank) + " never arrived at " +
                       where(name) + " within " + seconds_text(deadline - start));
}

}  // namespace strata
