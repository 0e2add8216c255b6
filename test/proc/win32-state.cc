// Drives native/win32_state.h with injected OpenProcess / wait / exit-code / GetProcessTimes answers.
// stdin, one case per line:  pid open_error actual_pid wait exit_ok exit_code times_ok creation
//   (wait: 0 not asked, 1 signaled, 2 timeout, 3 failed; "-" as open_error: the query is never made)
// stdout, one line per case:  state token query_calls   (token: the slot's 64 bits as a decimal integer)
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>

#include "win32_state.h"

namespace {

struct FakeSys {
  claude_ps::win32::ProcQuery answer;
  size_t calls = 0;
  claude_ps::win32::ProcQuery Query(int32_t) {
    ++calls;
    return answer;
  }
};

}  // namespace

int main() {
  for (std::string line; std::getline(std::cin, line);) {
    std::istringstream fields(line);
    long pid;
    unsigned long open_error, actual_pid, wait, exit_ok, exit_code, times_ok;
    unsigned long long creation;
    fields >> pid >> open_error >> actual_pid >> wait >> exit_ok >> exit_code >> times_ok >> creation;
    if (!fields) return 2;
    FakeSys sys;
    sys.answer.open_error = static_cast<uint32_t>(open_error);
    sys.answer.actual_pid = static_cast<uint32_t>(actual_pid);
    sys.answer.wait = static_cast<claude_ps::win32::WaitAnswer>(wait);
    sys.answer.exit_ok = exit_ok != 0;
    sys.answer.exit_code = static_cast<uint32_t>(exit_code);
    sys.answer.times_ok = times_ok != 0;
    sys.answer.creation = creation;
    const int32_t pids[1] = {static_cast<int32_t>(pid)};
    uint8_t states[1] = {255};
    double tokens[1] = {-1};
    claude_ps::win32::ProbeBatchWith(sys, pids, 1, states, tokens);
    uint64_t bits;
    std::memcpy(&bits, &tokens[0], sizeof bits);
    std::printf("%d %" PRIu64 " %zu\n", states[0], bits, sys.calls);
  }
  return 0;
}
