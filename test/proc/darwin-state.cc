// Drives native/darwin_state.h with injected kill/sysctl answers (macOS cannot run here).
// stdin, one case per line:  pid  kill_errnos  queries
//   kill_errnos: comma-separated errno values returned by successive kill(pid, 0) calls (0 = success)
//   queries:     ';'-separated  rc:errno:length:expected:p_stat:start_sec  for successive sysctl calls
// stdout, one line per case:  state token kill_calls query_calls   (token "nan" when unknown)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "darwin_state.h"

namespace {

struct FakeSys {
  std::vector<int> kill_answers;
  std::vector<claude_ps::darwin::ProcQuery> query_answers;
  size_t kill_calls = 0;
  size_t query_calls = 0;

  int Kill0(int32_t) {
    if (kill_calls >= kill_answers.size()) { std::fprintf(stderr, "kill called too often\n"); std::exit(3); }
    return kill_answers[kill_calls++];
  }
  claude_ps::darwin::ProcQuery Query(int32_t) {
    if (query_calls >= query_answers.size()) { std::fprintf(stderr, "sysctl called too often\n"); std::exit(3); }
    return query_answers[query_calls++];
  }
};

std::vector<std::string> Split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  if (text == "-") return parts;  // "-": an empty list
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, sep);) if (!part.empty()) parts.push_back(part);
  return parts;
}

}  // namespace

int main() {
  for (std::string line; std::getline(std::cin, line);) {
    std::istringstream fields(line);
    long pid;
    std::string kills, queries;
    fields >> pid >> kills >> queries;
    FakeSys sys;
    for (const auto& k : Split(kills, ',')) sys.kill_answers.push_back(std::atoi(k.c_str()));
    for (const auto& q : Split(queries, ';')) {
      auto v = Split(q, ':');
      if (v.size() != 6) return 2;
      claude_ps::darwin::ProcQuery answer;
      answer.rc = std::atoi(v[0].c_str());
      answer.error = std::atoi(v[1].c_str());
      answer.length = std::strtoull(v[2].c_str(), nullptr, 10);
      answer.expected = std::strtoull(v[3].c_str(), nullptr, 10);
      answer.p_stat = std::atoi(v[4].c_str());
      answer.start_sec = std::strtoll(v[5].c_str(), nullptr, 10);
      sys.query_answers.push_back(answer);
    }
    const int32_t pids[1] = {static_cast<int32_t>(pid)};
    uint8_t states[1] = {255};
    double tokens[1] = {-1};
    claude_ps::darwin::ProbeBatchWith(sys, pids, 1, states, tokens);
    if (std::isnan(tokens[0])) std::printf("%d nan %zu %zu\n", states[0], sys.kill_calls, sys.query_calls);
    else std::printf("%d %.0f %zu %zu\n", states[0], tokens[0], sys.kill_calls, sys.query_calls);
  }
  return 0;
}
