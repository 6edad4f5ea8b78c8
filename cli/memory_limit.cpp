#include "memory_limit.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <new>
#include <string>

#include "commands.h"
#include "racetrack/traces/output_file.h"

namespace racetrack::cli {
namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;  // the sanitizer's shadow memory counts as data
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

// What the out-of-memory handler prints; built before the limit applies.
char g_message[512];

// operator new calls this when an allocation fails under the limit, on any
// thread: remove the outputs not yet written whole, say so and exit 2 (no
// unwinding through code that cannot handle it).
void out_of_memory() {
  remove_uncommitted_outputs();
  std::fputs(g_message, stderr);
  std::fflush(stderr);
  _exit(kExitBadInput);
}

uint64_t cgroup_limit_bytes() {
  std::ifstream in("/sys/fs/cgroup/memory.max");
  std::string text;
  if (!(in >> text) || text == "max") return UINT64_MAX;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  return end && *end == '\0' && v ? v : UINT64_MAX;
}

void apply(const std::string& command, uint64_t mib) {
  // check streams; the others hold more of the trace and can point to it.
  const char* instead = command == "check" ? "" : "; racetrack check reads a trace of any length in bounded memory";
  std::snprintf(g_message, sizeof g_message,
                "racetrack %s: out of memory: it needs more than its limit of %llu MiB (--max-memory-mib; "
                "the default is 80%% of this machine's memory). Raise the limit or give it a shorter trace%s\n",
                command.c_str(), static_cast<unsigned long long>(mib), instead);
  std::set_new_handler(out_of_memory);
  if (!memory_limit_enforced()) return;
  rlimit limit{};
  limit.rlim_cur = limit.rlim_max = static_cast<rlim_t>(mib) << 20;
  rlimit now{};
  if (getrlimit(RLIMIT_DATA, &now) == 0 && now.rlim_max != RLIM_INFINITY && now.rlim_max < limit.rlim_max)
    limit.rlim_cur = limit.rlim_max = now.rlim_max;  // never above what the process was given
  setrlimit(RLIMIT_DATA, &limit);
}

}  // namespace

bool memory_limit_enforced() {
  return !kSanitized;
}

uint64_t default_memory_limit_mib() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  uint64_t bytes = pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
  if (const uint64_t cgroup = cgroup_limit_bytes(); cgroup < bytes) bytes = cgroup;
  return bytes ? bytes / 10 * 8 >> 20 : 16384;
}

void add_memory_limit(CLI::App& cmd) {
  auto mib = std::make_shared<uint64_t>(default_memory_limit_mib());
  cmd.add_option("--max-memory-mib", *mib,
                 "memory this command may use, in MiB; past it, it stops with exit 2 and says so (default: 80% of "
                 "this machine's memory, " +
                     std::to_string(*mib) + " MiB here)")
      ->check(CLI::Range(uint64_t{16}, uint64_t{1} << 40));
  const std::string name = cmd.get_name();
  cmd.parse_complete_callback([mib, name] { apply(name, *mib); });
}

}  // namespace racetrack::cli
