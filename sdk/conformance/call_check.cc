#include "sdk/conformance/call_check.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace strata::conformance {
namespace {

constexpr size_t kMaxLines = 8;

bool matches(double actual, const Expected& e) {
  if (actual == e.value) return true;  // also 0 == -0
  return e.tolerance > 0 && std::abs(actual - e.value) <= e.tolerance;
}

}  // namespace

std::string CheckReport::to_string() const {
  std::string text;
  for (const auto& line : lines) text += "  " + line + "\n";
  if (mismatches > lines.size()) {
    text += "  ... " + std::to_string(mismatches) + " mismatching elements in all\n";
  }
  if (wrong_output) text += "  wrong results: violates rule 10 (sdk/README.md)\n";
  if (touched_input) {
    text += "  wrote memory that is not this call's output: violates rule 8 (sdk/README.md)\n";
  }
  return text;
}

CallCheck::CallCheck(const CaseSpec& spec, int root, uint64_t seed, Workspace& ws)
    : spec_(spec),
      root_(root),
      gen_(spec.dtype, spec.redop, spec.world, seed),
      layout_in_(layout_for(spec, 0).in_count),
      ws_(ws) {
  const auto world = static_cast<size_t>(spec.world);
  ws_.inputs.resize(world * layout_in_);
  std::vector<double> column(world);
  if (is_reducing(spec.op)) ws_.reduced.resize(layout_in_);
  for (uint64_t j = 0; j < layout_in_; ++j) {
    gen_.column(j, column);
    for (size_t r = 0; r < world; ++r) ws_.inputs[r * layout_in_ + j] = column[r];
    if (is_reducing(spec.op)) ws_.reduced[j] = reduce_reference(spec.dtype, *spec.redop, column);
  }
}

std::vector<ReplicaImage>& CallCheck::images(const std::vector<int>& replicas) {
  const size_t elem = dtype_size(spec_.dtype);
  std::vector<ReplicaImage>& out = ws_.images;
  out.resize(replicas.size());
  for (size_t k = 0; k < replicas.size(); ++k) {
    const int r = replicas[k];
    const Layout l = layout_for(spec_, r);
    ReplicaImage& image = out[k];
    image.input.resize((spec_.in_place ? l.shared : l.in_count) * elem);
    image.output.resize(spec_.in_place ? 0 : l.out_count * elem);
    std::byte cell[8];
    store_value(spec_.dtype, cell, 0, gen_.sentinel());
    for (HostBuffer* buffer : {&image.input, &image.output}) {
      if (buffer->bytes.empty()) continue;
      std::memset(buffer->bytes.data(), static_cast<int>(kGuardByte), kGuardBytes);
      std::memset(buffer->data() + buffer->size(), static_cast<int>(kGuardByte), kGuardBytes);
      for (size_t at = 0; at < buffer->size(); at += elem) {
        std::memcpy(buffer->data() + at, cell, elem);
      }
    }
    const double* mine = ws_.inputs.data() + static_cast<uint64_t>(r) * layout_in_;
    if (l.in_count > 0) {
      encode(spec_.dtype, std::span<const double>(mine, l.in_count),
             image.input.data() + l.in_offset * elem);
    }
  }
  ws_.uploaded = out;  // reuses the capacity of earlier calls
  return out;
}

CallCheck::Source CallCheck::output_source(int replica) const {
  const auto offset = [](uint64_t rank, uint64_t count) { return rank * count; };
  Source s;
  switch (spec_.op) {
    case CollectiveKind::kAllReduce:
    case CollectiveKind::kReduce: s.reduced = ws_.reduced.data(); break;
    case CollectiveKind::kReduceScatter:
      s.reduced = ws_.reduced.data() + offset(static_cast<uint64_t>(replica), spec_.count);
      break;
    case CollectiveKind::kBroadcast:
      s.plain = ws_.inputs.data() + offset(static_cast<uint64_t>(root_), layout_in_);
      break;
    // Replica s's input is inputs[s * count...], exactly where it belongs
    // in every gathered output.
    case CollectiveKind::kAllGather: s.plain = ws_.inputs.data(); break;
    case CollectiveKind::kBarrier: break;
  }
  return s;
}

std::vector<CallCheck::Segment> CallCheck::segments(int replica, int which,
                                                    uint64_t elements) const {
  const Layout l = layout_for(spec_, replica);
  // Only the root's output of a reduce is written (strata/abi/algorithm.h).
  const bool writes = spec_.op != CollectiveKind::kReduce || replica == root_;
  const double* mine = ws_.inputs.data() + static_cast<uint64_t>(replica) * layout_in_;
  Source sentinel;
  sentinel.fill = gen_.sentinel();
  std::vector<Segment> out;
  if (!spec_.in_place) {
    if (which == 0) return {{0, elements, Region::kInput, {nullptr, mine, 0}, 0}};
    if (!writes) return {{0, elements, Region::kUntouched, sentinel, 0}};
    return {{0, elements, Region::kOutput, output_source(replica), 0}};
  }
  const uint64_t out_end = writes ? l.out_offset + l.out_count : l.out_offset;
  if (writes) out.push_back({l.out_offset, out_end, Region::kOutput, output_source(replica),
                             l.out_offset});
  // The input around the output (reduce_scatter's slot) must survive.
  const uint64_t in_end = l.in_offset + l.in_count;
  auto input_piece = [&](uint64_t b, uint64_t e) {
    if (b >= e) return;
    out.push_back({b, e, Region::kInput, {nullptr, mine + (b - l.in_offset), 0}, l.in_offset});
  };
  input_piece(l.in_offset, writes ? std::min(in_end, l.out_offset) : in_end);
  if (writes) input_piece(std::max(l.in_offset, out_end), in_end);
  std::sort(out.begin(), out.end(),
            [](const Segment& a, const Segment& b) { return a.begin < b.begin; });
  std::vector<Segment> whole;
  uint64_t at = 0;
  for (const Segment& s : out) {
    if (s.begin > at) whole.push_back({at, s.begin, Region::kUntouched, sentinel, 0});
    whole.push_back(s);
    at = s.end;
  }
  if (at < elements) whole.push_back({at, elements, Region::kUntouched, sentinel, 0});
  return whole;
}

void CallCheck::report_mismatch(int replica, const Segment& seg, uint64_t at, double actual,
                                const Expected& want, CheckReport& report) const {
  ++report.mismatches;
  (seg.region == Region::kOutput ? report.wrong_output : report.touched_input) = true;
  if (report.lines.size() >= kMaxLines) return;
  const uint64_t index = at - seg.label_base;
  std::string where;
  std::string why;
  switch (seg.region) {
    case Region::kOutput:
      where = "output[" + std::to_string(index) + "]";
      if (want.tolerance > 0) why = " (+-" + format_value(want.tolerance) + ")";
      break;
    case Region::kInput:
      where = "input[" + std::to_string(index) + "]";
      if (spec_.op == CollectiveKind::kReduce && replica != root_) {
        why = " (a non-root replica's reduce buffer must stay unchanged)";
      } else {
        why = spec_.in_place ? " (input outside the output slot must stay unchanged)"
                             : " (an out-of-place call must not change its input)";
      }
      break;
    case Region::kUntouched:
      where = (spec_.in_place ? "buffer[" : "output[") + std::to_string(index) + "]";
      why = spec_.op == CollectiveKind::kReduce && replica != root_
                ? " (a non-root replica's reduce output must not be written)"
                : " (memory outside the call's buffers must not be written)";
      break;
  }
  report.lines.push_back("replica " + std::to_string(replica) + " " + where + ": expected " +
                         format_value(want.value) + why + ", actual " + format_value(actual));
}

void CallCheck::check_guards(int replica, int which, const HostBuffer& now,
                             const HostBuffer& before, CheckReport& report) const {
  if (now.bytes.empty()) return;
  const uint64_t back = kGuardBytes + now.size();
  for (const uint64_t at : {uint64_t{0}, back}) {
    if (std::memcmp(now.bytes.data() + at, before.bytes.data() + at, kGuardBytes) == 0) continue;
    ++report.mismatches;
    report.touched_input = true;
    if (report.lines.size() >= kMaxLines) continue;
    const char* what = spec_.in_place ? "buffer" : (which == 0 ? "input" : "output");
    report.lines.push_back("replica " + std::to_string(replica) + " wrote into the " +
                           std::to_string(kGuardBytes) + " bytes " +
                           (at == 0 ? "before" : "after") + " its " + what);
  }
}

void CallCheck::compare(int replica, int which, const HostBuffer& now, const HostBuffer& before,
                        CheckReport& report) const {
  check_guards(replica, which, now, before, report);
  const size_t elem = dtype_size(spec_.dtype);
  const std::byte* bytes = now.data();
  const uint64_t n = now.size() / elem;
  for (const Segment& seg : segments(replica, which, n)) {
    if (seg.begin == seg.end) continue;
    const uint64_t offset = seg.begin * elem;
    const uint64_t length = (seg.end - seg.begin) * elem;
    // Memory that must be unchanged is compared as bytes (most of a large
    // reduce_scatter's input); elements are decoded only to explain a diff.
    if (seg.region != Region::kOutput &&
        std::memcmp(bytes + offset, before.data() + offset, length) == 0) {
      continue;
    }
    ws_.actual.resize(seg.end - seg.begin);
    decode(spec_.dtype, bytes + offset, ws_.actual);
    const Source& src = seg.source;
    const bool bitwise = seg.region != Region::kOutput;  // unchanged means every bit
    for (uint64_t k = 0; k < seg.end - seg.begin; ++k) {
      const Expected want = src.reduced != nullptr ? src.reduced[k]
                            : src.plain != nullptr ? Expected{src.plain[k], 0}
                                                   : Expected{src.fill, 0};
      const double actual = ws_.actual[k];
      const uint64_t at = offset + k * elem;
      if (bitwise ? std::memcmp(bytes + at, before.data() + at, elem) != 0
                  : !matches(actual, want)) {
        report_mismatch(replica, seg, seg.begin + k, actual, want, report);
      }
    }
  }
}

CheckReport CallCheck::check(const std::vector<int>& replicas,
                             const std::vector<ReplicaImage>& images) const {
  CheckReport report;
  for (size_t k = 0; k < replicas.size(); ++k) {
    const ReplicaImage& before = ws_.uploaded[k];
    compare(replicas[k], 0, images[k].input, before.input, report);
    if (!spec_.in_place) compare(replicas[k], 1, images[k].output, before.output, report);
  }
  return report;
}

}  // namespace strata::conformance
