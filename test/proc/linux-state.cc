// Drives native/linux_state.h with injected kill and /proc/<pid>/stat answers (the race between the two
// calls cannot be produced on demand). stdin, one case per line, fields separated by tabs:
//   pid <TAB> kill_errnos <TAB> stat
//   kill_errnos: comma-separated errno values of successive kill(pid, 0) calls (0 = success)
//   stat:        the bytes the stat read returns (the two characters \n stand for a newline), or "!"
//                for a read that fails (-1)
// stdout, one line per case:  state token kill_calls read_calls   (token "nan" when unknown)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "linux_state.h"

namespace {

struct FakeSys {
  std::vector<int> kill_answers;
  std::string stat;
  bool stat_fails = false;
  size_t kill_calls = 0;
  size_t read_calls = 0;

  int Kill0(int32_t) {
    if (kill_calls >= kill_answers.size()) { std::fprintf(stderr, "kill called too often\n"); std::exit(3); }
    return kill_answers[kill_calls++];
  }
  long ReadStat(int32_t, char* buf, size_t cap) {
    if (read_calls++ > 0) { std::fprintf(stderr, "stat read twice\n"); std::exit(3); }
    if (stat_fails) return -1;
    const size_t n = stat.size() < cap ? stat.size() : cap;
    std::memcpy(buf, stat.data(), n);
    return static_cast<long>(n);
  }
};

}  // namespace

int main() {
  for (std::string line; std::getline(std::cin, line);) {
    const size_t tab1 = line.find('\t');
    const size_t tab2 = line.find('\t', tab1 + 1);
    if (tab1 == std::string::npos || tab2 == std::string::npos) return 2;
    FakeSys sys;
    std::stringstream kills(line.substr(tab1 + 1, tab2 - tab1 - 1));
    for (std::string k; std::getline(kills, k, ',');) if (!k.empty() && k != "-") sys.kill_answers.push_back(std::atoi(k.c_str()));
    sys.stat = line.substr(tab2 + 1);
    for (size_t at; (at = sys.stat.find("\\n")) != std::string::npos;) sys.stat.replace(at, 2, "\n");
    sys.stat_fails = sys.stat == "!";
    const int32_t pids[1] = {static_cast<int32_t>(std::strtol(line.c_str(), nullptr, 10))};
    uint8_t states[1] = {255};
    double tokens[1] = {-1};
    claude_ps::procfs::ProbeBatchWith(sys, pids, 1, states, tokens);
    if (std::isnan(tokens[0])) std::printf("%d nan %zu %zu\n", states[0], sys.kill_calls, sys.read_calls);
    else std::printf("%d %.0f %zu %zu\n", states[0], tokens[0], sys.kill_calls, sys.read_calls);
  }
  return 0;
}
