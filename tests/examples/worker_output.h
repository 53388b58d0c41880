// Reading a job's output the way a user does: split it by worker, keep the
// figures train_digits prints (losses, accuracies, steps, image counts)
// without their timings, and compare two runs' figures. Shared by the
// example tests that run whole jobs of processes.
#ifndef STRATA_TESTS_EXAMPLES_WORKER_OUTPUT_H_
#define STRATA_TESTS_EXAMPLES_WORKER_OUTPUT_H_

#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace strata::testing {

// Lines by worker rank: "[worker-i] text" (strata launch) or
// "[1,i]<stdout>:text" (mpirun --tag-output). Untagged lines (a process run
// alone) are worker 0's.
inline std::map<int, std::vector<std::string>> lines_by_worker(const std::string& output) {
  std::map<int, std::vector<std::string>> by_worker;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    int rank = 0;
    std::string text = line;
    if (line.rfind("[worker-", 0) == 0 && line.find("] ") != std::string::npos) {
      rank = std::atoi(line.c_str() + 8);
      text = line.substr(line.find("] ") + 2);
    } else if (line.rfind("[", 0) == 0 && line.find("]<std") != std::string::npos) {
      const size_t comma = line.find(',');
      const size_t colon = line.find(">:");
      if (comma == std::string::npos || colon == std::string::npos) continue;
      rank = std::atoi(line.c_str() + comma + 1);
      text = line.substr(colon + 2);
    }
    by_worker[rank].push_back(text);
  }
  return by_worker;
}

// train_digits' figures, timings cut out:
//   before training: test loss 2.36, accuracy 0.08
//   epoch 1/3: 23 steps, loss 1.1416, accuracy 0.7453
//   after 69 steps: test loss 0.34, accuracy 0.91 on 360 images
inline std::vector<std::string> train_digits_figures(const std::vector<std::string>& lines) {
  std::vector<std::string> figures;
  for (const std::string& line : lines) {
    if (line.rfind("before training:", 0) == 0) {
      figures.push_back(line);
    } else if (line.rfind("epoch ", 0) == 0 && line.rfind(" (") != std::string::npos) {
      figures.push_back(line.substr(0, line.rfind(" (")));  // " (0.12 s)"
    } else if (line.rfind("after ", 0) == 0 && line.find(" (") != std::string::npos &&
               line.find("): ") != std::string::npos) {
      // "after 69 steps (512 steps/s): test loss ..."
      figures.push_back(line.substr(0, line.find(" (")) + line.substr(line.find("): ") + 1));
    }
  }
  return figures;
}

// "" when `a` and `b` read the same: the same words, whole numbers equal,
// decimals within `tolerance`; else what differs.
inline std::string compare_figures(const std::string& a, const std::string& b, double tolerance) {
  auto words = [](const std::string& s) {
    std::vector<std::string> out;
    std::string w;
    for (char c : s + " ") {
      if (c == ' ' || c == ',' || c == ':' || c == '/') {
        if (!w.empty()) out.push_back(w);
        w.clear();
      } else {
        w += c;
      }
    }
    return out;
  };
  const auto wa = words(a);
  const auto wb = words(b);
  const std::string differ = "'" + a + "' and '" + b + "' differ";
  if (wa.size() != wb.size()) return differ;
  for (size_t i = 0; i < wa.size(); ++i) {
    char* end_a = nullptr;
    char* end_b = nullptr;
    const double x = std::strtod(wa[i].c_str(), &end_a);
    const double y = std::strtod(wb[i].c_str(), &end_b);
    const bool numbers = *end_a == '\0' && *end_b == '\0' && end_a != wa[i].c_str();
    if (!numbers) {
      if (wa[i] != wb[i]) return differ;
    } else if (wa[i].find('.') == std::string::npos || wb[i].find('.') == std::string::npos) {
      if (x != y) return differ + " (counts)";
    } else if (std::fabs(x - y) > tolerance) {
      return differ + " by more than " + std::to_string(tolerance);
    }
  }
  return "";
}

}  // namespace strata::testing

#endif  // STRATA_TESTS_EXAMPLES_WORKER_OUTPUT_H_
