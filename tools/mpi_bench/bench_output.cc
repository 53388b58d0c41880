#include "tools/mpi_bench/bench_output.h"

#include <cerrno>
#include <cstring>
#include <utility>

#include "core/common/units.h"

namespace strata {
namespace {

double busbw_gbs(uint64_t bytes, double seconds, double factor) {
  return seconds > 0 ? static_cast<double>(bytes) / seconds / 1e9 * factor : 0;
}

double percent_of_bound(double bound, double seconds) {
  return bound > 0 && seconds > 0 ? 100 * bound / seconds : 0;
}

std::string errno_text() { return std::strerror(errno); }

}  // namespace

BenchOutput::BenchOutput(OutputNames names, bool cpu, bool active)
    : names_(std::move(names)), cpu_(cpu), active_(active) {}

BenchOutput::~BenchOutput() {
  if (csv_ != nullptr) {  // an error cut the run short: leave no half file
    std::fclose(csv_);
    std::remove((csv_path_ + ".tmp").c_str());
  }
}

Status BenchOutput::open_csv(const std::string& path) {
  if (!active_ || path.empty()) return Status::Ok();
  csv_path_ = path;
  const std::string tmp = path + ".tmp";
  csv_ = std::fopen(tmp.c_str(), "w");
  if (csv_ == nullptr) {
    return UnavailableError("strata-mpi-bench: cannot write " + tmp + ": " + errno_text());
  }
  const char* ref = names_.reference.c_str();
  const char* side = names_.side.c_str();
  std::fprintf(csv_, "bytes,iterations,%s_us,%s_us,extra_us,ratio,median_ratio,wrong", ref, side);
  std::fprintf(csv_, ",%s_busbw_gbs,%s_busbw_gbs,bound_us,bound_busbw_gbs,%s_pct_bound,"
                     "%s_pct_bound,copy_gbs,ceiling_busbw_gbs,cma_busbw_gbs", ref, side, ref,
               side);
  if (cpu_) {
    std::fprintf(csv_, ",%s_user_us,%s_system_us,%s_user_us,%s_system_us", ref, ref, side, side);
  }
  if (names_.with_null) std::fprintf(csv_, ",%s_again_us,null_median_ratio", ref);
  if (names_.with_null && cpu_) {
    std::fprintf(csv_, ",%s_again_user_us,%s_again_system_us", ref, ref);
  }
  std::fprintf(csv_, "\n");
  return Status::Ok();
}

void BenchOutput::comment(const std::string& text) { line("# " + text); }

void BenchOutput::line(const std::string& text) {
  if (!active_) return;
  std::printf("%s\n", text.c_str());
  std::fflush(stdout);
}

void BenchOutput::header() {
  if (!active_) return;
  const std::string& ref = names_.reference;
  const std::string& side = names_.side;
  std::printf("%12s %8s %12s %12s %10s %8s %8s %7s %10s %10s %11s %9s %7s %8s %8s", "size",
              "iters",
              (ref + "_us").c_str(), (side + "_us").c_str(), "extra_us", "ratio", "median",
              "#wrong", (ref + "_busbw").c_str(), (names_.side_short + "_busbw").c_str(),
              "bound_us", (ref + "%bound").c_str(), "%bound", "ceiling", "cma");
  if (cpu_) {
    std::printf(" %9s %9s %9s %9s", (ref + "_usr").c_str(), (ref + "_sys").c_str(),
                (names_.side_short + "_usr").c_str(), (names_.side_short + "_sys").c_str());
  }
  if (names_.with_null) std::printf(" %8s", "null");
  if (names_.with_null && cpu_) std::printf(" %9s %9s", "again_usr", "again_sys");
  std::printf("\n");
}

void BenchOutput::row(const SizeReport& r) {
  if (!active_) return;
  const LoopCost& ref = r.timing.reference;
  const LoopCost& side = r.timing.side;
  const double extra_us = (side.seconds - ref.seconds) * 1e6;
  const double ratio = side.seconds / ref.seconds;
  const double ref_bw = busbw_gbs(r.bytes, ref.seconds, r.bus_factor);
  const double side_bw = busbw_gbs(r.bytes, side.seconds, r.bus_factor);
  const double bound_bw = busbw_gbs(r.bytes, r.bound_seconds, r.bus_factor);
  const double ref_pct = percent_of_bound(r.bound_seconds, ref.seconds);
  const double side_pct = percent_of_bound(r.bound_seconds, side.seconds);
  const double ceiling = r.ceiling_bytes_per_second / 1e9;
  const double cma = r.cma_bytes_per_second / 1e9;
  std::printf("%12s %8d %12.2f %12.2f %10.2f %8.3f %8.3f %7lld %10.3f %10.3f %11.2f %9.1f %7.1f"
              " %8.3f %8.3f",
              format_size(r.bytes).c_str(), r.timing.iterations, ref.seconds * 1e6,
              side.seconds * 1e6, extra_us, ratio, r.timing.median_ratio, r.wrong, ref_bw, side_bw,
              r.bound_seconds * 1e6, ref_pct, side_pct, ceiling, cma);
  if (cpu_) {
    std::printf(" %9.2f %9.2f %9.2f %9.2f", ref.user_us, ref.system_us, side.user_us,
                side.system_us);
  }
  const LoopCost& again = r.timing.again;
  if (names_.with_null) std::printf(" %8.3f", r.timing.null_median_ratio);
  if (names_.with_null && cpu_) std::printf(" %9.2f %9.2f", again.user_us, again.system_us);
  std::printf("\n");
  std::fflush(stdout);
  if (csv_ == nullptr) return;
  std::fprintf(csv_, "%llu,%d,%.3f,%.3f,%.3f,%.4f,%.4f,%lld",
               static_cast<unsigned long long>(r.bytes), r.timing.iterations, ref.seconds * 1e6,
               side.seconds * 1e6, extra_us, ratio, r.timing.median_ratio, r.wrong);
  std::fprintf(csv_, ",%.6g,%.6g,%.3f,%.6g,%.2f,%.2f,%.3f,%.6g,%.6g", ref_bw, side_bw,
               r.bound_seconds * 1e6, bound_bw, ref_pct, side_pct,
               r.copy.bytes_per_second / 1e9, ceiling, cma);
  if (cpu_) {
    std::fprintf(csv_, ",%.3f,%.3f,%.3f,%.3f", ref.user_us, ref.system_us, side.user_us,
                 side.system_us);
  }
  if (names_.with_null) {
    std::fprintf(csv_, ",%.3f,%.4f", again.seconds * 1e6, r.timing.null_median_ratio);
  }
  if (names_.with_null && cpu_) std::fprintf(csv_, ",%.3f,%.3f", again.user_us, again.system_us);
  std::fprintf(csv_, "\n");
}

Status BenchOutput::close() {
  if (csv_ == nullptr) return Status::Ok();
  const bool written = std::fflush(csv_) == 0;
  const bool closed = std::fclose(csv_) == 0;
  csv_ = nullptr;
  const std::string tmp = csv_path_ + ".tmp";
  if (!written || !closed || std::rename(tmp.c_str(), csv_path_.c_str()) != 0) {
    const std::string why = errno_text();
    std::remove(tmp.c_str());
    return UnavailableError("strata-mpi-bench: cannot write " + csv_path_ + ": " + why);
  }
  return Status::Ok();
}

std::string copy_bandwidth_line(const CopyBandwidth& copy, const char* when) {
  char text[256];
  std::snprintf(text, sizeof text,
                "copy bandwidth %s: %.2f GB/s (all %d ranks at once, memcpy of %s each, "
                "reads + writes, best of 5)",
                when, copy.bytes_per_second / 1e9, copy.ranks,
                format_size(copy.bytes_per_rank).c_str());
  return text;
}

}  // namespace strata
