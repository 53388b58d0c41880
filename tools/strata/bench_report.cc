#include "tools/strata/bench_report.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <algorithm>
#include <limits>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/common/units.h"

namespace strata::cli {
namespace {

const char* outcome_name(BenchRow::Outcome o) {
  switch (o) {
    case BenchRow::Outcome::kOk: return "ok";
    case BenchRow::Outcome::kDeclined: return "declined";
    case BenchRow::Outcome::kFailed: return "failed";
  }
  return "?";
}

bool takes_root(CollectiveKind op) {
  return op == CollectiveKind::kBroadcast || op == CollectiveKind::kReduce;
}

std::string label(const BenchRow& row) {
  return row.chosen.empty() ? row.algorithm : row.algorithm + ":" + row.chosen;
}

}  // namespace

double bus_factor(CollectiveKind op, int n) {
  const double d = n;
  switch (op) {
    case CollectiveKind::kAllReduce: return 2 * (d - 1) / d;
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter: return (d - 1) / d;
    default: return 1;
  }
}

void compute_bandwidths(const BenchSetup& setup, BenchRow& row) {
  const double seconds = row.timing.median_us * 1e-6;
  if (row.outcome != BenchRow::Outcome::kOk || seconds <= 0) return;
  const auto n = static_cast<int>(setup.devices.size());
  row.algbw = static_cast<double>(row.size) / seconds / 1e9;
  row.busbw = row.algbw * bus_factor(setup.op, n);
  if (setup.op == CollectiveKind::kAllReduce && setup.host_memory) {
    // n inputs read and n outputs written at least once: 2·n·S bytes.
    row.membw = 2.0 * n * static_cast<double>(row.size) / seconds / 1e9;
    if (setup.copy.bytes_per_second > 0) {
      row.membw_fraction = *row.membw * 1e9 / setup.copy.bytes_per_second;
    }
  }
}

std::string BenchReport::redop_column() const {
  const bool reducing = setup_.op == CollectiveKind::kAllReduce ||
                        setup_.op == CollectiveKind::kReduceScatter ||
                        setup_.op == CollectiveKind::kReduce;
  return reducing ? std::string(reduce_op_name(setup_.redop)) : "none";
}

void BenchReport::print_header(std::ostream& os) const {
  const BenchSetup& s = setup_;
  const int n = static_cast<int>(s.devices.size());
  os << "# strata bench " << s.version << ": " << collective_name(s.op) << ", "
     << dtype_name(s.dtype) << ", redop " << redop_column()
     << (takes_root(s.op) ? ", root " + std::to_string(s.root) : "")
     << (s.in_place ? ", in place" : ", out of place") << ", " << n << " x " << s.device_type
     << " (";
  for (size_t i = 0; i < s.devices.size(); ++i) os << (i == 0 ? "" : " ") << s.devices[i];
  os << ")\n# command: " << s.command_line << "\n# algorithms:";
  for (const auto& a : s.algorithms) os << " " << a;
  for (const auto& a : s.left_out) os << "\n# left out of 'all', declines every size: " << a;
  os << fmt::format(
      "\n# copy bandwidth: {:.2f} GB/s (memcpy of {} on {} thread(s), "
      "reads + writes, best of {})\n",
      s.copy.bytes_per_second / 1e9, format_size(s.copy.bytes), s.copy.threads, s.copy.repetitions);
  if (!s.host_memory) {
    os << "# " << s.device_type << " memory is not host memory: no membw or mem% columns "
       << "(the copy bandwidth above is the host's)\n";
  }
  if (s.cache_bytes > 0 && has_membw()) {
    os << "# last-level cache (as the OS reports it): " << format_size(s.cache_bytes)
       << "; where 2*n*size fits in it, membw can exceed the copy bandwidth\n";
  }
  os << "# time: median of the timed calls after " << s.timing.warmup << " warm-up call(s); ";
  if (s.timing.iters > 0) {
    os << s.timing.iters << " timed calls per size\n";
  } else {
    os << fmt::format("as many timed calls as fit in {:g} s per size (at least {}, at most {})\n",
                      s.timing.target_seconds, s.timing.min_iters, s.timing.max_iters);
  }
  os << "# model: the algorithm's own estimate of one call (its cost model), - when it has none\n";
  os << fmt::format("# algbw = size / time; busbw = algbw * {:.4g}", bus_factor(s.op, n));
  if (has_membw()) os << "; membw = 2*n*size / time; mem% = membw / copy bandwidth";
  os << "\n# check: "
     << (s.check ? "one call with known data after timing; #wrong = wrong "
                   "elements over all replicas"
                 : "off")
     << (s.check_note.empty() ? "" : " (" + s.check_note + ")") << "\n#\n";
  os << fmt::format("#{:>11} {:>12} {:>5} {:>6} {:>5} {:>10} {:>10} {:>9} {:>9}", "size", "count",
                    "type", "redop", "root", "time", "model", "algbw", "busbw");
  if (has_membw()) os << fmt::format(" {:>9} {:>6}", "membw", "mem%");
  os << fmt::format(" {:>7} {:>6}  {}\n", "#wrong", "iters", "algorithm");
  os << fmt::format("#{:>11} {:>12} {:>5} {:>6} {:>5} {:>10} {:>10} {:>9} {:>9}", "(B)",
                    "(elements)", "", "", "", "(us)", "(us)", "(GB/s)", "(GB/s)");
  if (has_membw()) os << fmt::format(" {:>9}", "(GB/s)");
  os << "\n" << std::flush;
}

void BenchReport::add(BenchRow row, std::ostream& os) {
  const int root = takes_root(setup_.op) ? setup_.root : -1;
  os << fmt::format("{:>12} {:>12} {:>5} {:>6} {:>5}", row.size, row.count,
                    dtype_name(setup_.dtype), redop_column(), root);
  if (row.outcome == BenchRow::Outcome::kOk) {
    os << fmt::format(" {:>10.2f} {:>10} {:>9.3f} {:>9.3f}", row.timing.median_us,
                      row.model_us ? fmt::format("{:.2f}", *row.model_us) : std::string("-"),
                      row.algbw, row.busbw);
    if (has_membw()) {
      os << fmt::format(" {:>9.3f} {:>6.1f}", row.membw.value_or(0),
                        row.membw_fraction.value_or(0) * 100);
    }
    os << fmt::format(" {:>7} {:>6}", row.wrong ? std::to_string(*row.wrong) : std::string("N/A"),
                      row.timing.iters);
  } else {
    os << fmt::format(" {:>10} {:>10} {:>9} {:>9}", outcome_name(row.outcome), "-", "-", "-");
    if (has_membw()) os << fmt::format(" {:>9} {:>6}", "-", "-");
    os << fmt::format(" {:>7} {:>6}", "-", "-");
  }
  os << "  " << label(row) << "\n" << std::flush;
  rows_.push_back(std::move(row));
}

uint64_t BenchReport::total_wrong() const {
  uint64_t total = 0;
  for (const auto& r : rows_) total += r.wrong.value_or(0);
  return total;
}

int BenchReport::failures() const {
  int n = 0;
  for (const auto& r : rows_) n += r.outcome == BenchRow::Outcome::kFailed ? 1 : 0;
  return n;
}

// How good AUTO's choices were, judged by the forced rows of the same sweep
// (their own timings, not AUTO's, so one noisy AUTO row cannot flatter it):
// at each size, did it pick the fastest algorithm, and what did a miss cost?
void BenchReport::print_auto_verdict(std::ostream& os) const {
  std::map<uint64_t, std::map<std::string, double>> forced;  // size -> id -> us
  std::map<uint64_t, std::string> chosen;                    // size -> auto's pick
  for (const auto& r : rows_) {
    if (r.outcome != BenchRow::Outcome::kOk) continue;
    if (r.algorithm == "auto") {
      chosen[r.size] = r.chosen;
    } else {
      forced[r.size][r.algorithm] = r.timing.median_us;
    }
  }
  int sizes = 0;
  int fastest = 0;
  double worst = 1;
  uint64_t worst_size = 0;
  for (const auto& [size, pick] : chosen) {
    const auto it = forced.find(size);
    if (it == forced.end() || it->second.size() < 2 || it->second.count(pick) == 0) continue;
    double best = std::numeric_limits<double>::infinity();
    for (const auto& [id, us] : it->second) best = std::min(best, us);
    ++sizes;
    const double ratio = it->second.at(pick) / best;
    if (ratio <= 1.0) ++fastest;
    if (ratio > worst) {
      worst = ratio;
      worst_size = size;
    }
  }
  if (sizes == 0) return;
  os << "# auto picked the fastest algorithm at " << fastest << " of " << sizes << " size(s)";
  if (worst > 1) {
    os << fmt::format("; its worst pick took {:.2f}x the fastest's time (at {})", worst,
                      format_size(worst_size));
  }
  os << "\n";
}

void BenchReport::print_summary(std::ostream& os) const {
  // One line per algorithm and distinct reason, not one per row.
  std::map<std::pair<std::string, std::string>, int> declined;
  std::map<std::string, std::pair<double, int>> busbw;  // sum, rows
  for (const auto& r : rows_) {
    if (r.outcome == BenchRow::Outcome::kDeclined) ++declined[{r.algorithm, r.reason}];
    if (r.outcome == BenchRow::Outcome::kOk) {
      auto& [sum, rows] = busbw[r.algorithm];
      sum += r.busbw;
      ++rows;
    }
  }
  os << "#\n";
  for (const auto& [key, sizes] : declined) {
    os << "# declined: " << key.first << " at " << sizes << " size(s): " << key.second << "\n";
  }
  for (const auto& algo : setup_.algorithms) {
    const auto it = busbw.find(algo);
    if (it == busbw.end()) continue;
    const auto [sum, rows] = it->second;
    os << fmt::format("# avg busbw: {:.3f} GB/s over {} size(s)  {}\n", sum / rows, rows, algo);
  }
  print_auto_verdict(os);
  if (setup_.check) {
    os << "# #wrong: " << total_wrong() << " in total"
       << (total_wrong() == 0 ? " (OK)" : " (WRONG RESULTS)") << "\n";
  }
  if (failures() > 0) os << "# failed: " << failures() << " row(s); errors are on stderr\n";
}

Status BenchReport::write_json(const std::string& path) const {
  using nlohmann::json;
  const BenchSetup& s = setup_;
  json out = {{"command_line", s.command_line},
              {"version", s.version},
              {"op", collective_name(s.op)},
              {"dtype", dtype_name(s.dtype)},
              {"redop", redop_column()},
              {"root", takes_root(s.op) ? s.root : -1},
              {"in_place", s.in_place},
              {"device_type", s.device_type},
              {"devices", s.devices},
              {"replicas", s.devices.size()},
              {"algorithms", s.algorithms},
              {"left_out", s.left_out},
              {"busbw_factor", bus_factor(s.op, static_cast<int>(s.devices.size()))}};
  out["machine"] = {{"copy_bandwidth_gbps", s.copy.bytes_per_second / 1e9},
                    {"copy_bytes", s.copy.bytes},
                    {"copy_threads", s.copy.threads},
                    {"copy_repetitions", s.copy.repetitions},
                    {"last_level_cache_bytes", s.cache_bytes}};
  out["timing"] = {{"statistic", "median"},
                   {"warmup", s.timing.warmup},
                   {"iters", s.timing.iters > 0 ? json(s.timing.iters) : json("auto")},
                   {"target_seconds", s.timing.target_seconds},
                   {"min_iters", s.timing.min_iters},
                   {"max_iters", s.timing.max_iters}};
  out["check"] = {{"enabled", s.check}, {"note", s.check_note}};
  out["rows"] = json::array();
  for (const auto& r : rows_) {
    json row = {{"size", r.size},
                {"count", r.count},
                {"algorithm", r.algorithm},
                {"chosen", r.chosen},
                {"outcome", outcome_name(r.outcome)},
                {"reason", r.reason}};
    if (r.outcome == BenchRow::Outcome::kOk) {
      row["model_us"] = r.model_us ? json(*r.model_us) : json();
      row.update({{"time_us", r.timing.median_us},
                  {"mean_us", r.timing.mean_us},
                  {"min_us", r.timing.min_us},
                  {"max_us", r.timing.max_us},
                  {"iters", r.timing.iters},
                  {"algbw_gbps", r.algbw},
                  {"busbw_gbps", r.busbw},
                  {"wrong", r.wrong ? json(*r.wrong) : json()}});
      if (r.membw) row["membw_gbps"] = *r.membw;
      if (r.membw_fraction) row["membw_fraction"] = *r.membw_fraction;
    }
    out["rows"].push_back(std::move(row));
  }
  std::ofstream file(path);
  file << out.dump(2) << "\n";
  if (!file) return UnavailableError("cannot write bench results to '" + path + "'");
  return Status::Ok();
}

Status BenchReport::write_csv(const std::string& path) const {
  std::ofstream file(path);
  print_header(file);  // '#' lines: read_csv(comment='#') skips them
  file << "size,count,type,redop,root,algorithm,chosen,outcome,time_us,model_us,mean_us,iters,"
          "algbw_gbps,busbw_gbps,membw_gbps,membw_fraction,wrong\n";
  const int root = takes_root(setup_.op) ? setup_.root : -1;
  for (const auto& r : rows_) {
    const bool ok = r.outcome == BenchRow::Outcome::kOk;
    file << fmt::format("{},{},{},{},{},{},{},{},", r.size, r.count, dtype_name(setup_.dtype),
                        redop_column(), root, r.algorithm, r.chosen, outcome_name(r.outcome));
    if (ok) {
      file << fmt::format("{},{},{},{},{},{},{},{},{}\n", r.timing.median_us,
                          r.model_us ? fmt::format("{}", *r.model_us) : "", r.timing.mean_us,
                          r.timing.iters, r.algbw, r.busbw,
                          r.membw ? fmt::format("{}", *r.membw) : "",
                          r.membw_fraction ? fmt::format("{}", *r.membw_fraction) : "",
                          r.wrong ? std::to_string(*r.wrong) : "");
    } else {
      file << ",,,,,,,,\n";
    }
  }
  if (!file) return UnavailableError("cannot write bench results to '" + path + "'");
  return Status::Ok();
}

Progress::Progress(int total) : total_(total), enabled_(isatty(STDERR_FILENO) != 0) {}

void Progress::show(int done, const std::string& what) {
  if (!enabled_) return;
  std::fprintf(stderr, "\r\033[K[%d/%d] %s", done, total_, what.c_str());
  std::fflush(stderr);
  shown_ = true;
}

void Progress::clear() {
  if (!enabled_ || !shown_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  shown_ = false;
}

}  // namespace strata::cli
