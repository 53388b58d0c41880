// The fake plugins of the loader tests: ONE source, built once per variant
// with -DFAKE_<VARIANT> into libstrata_fake_<variant>.so (CMakeLists.txt next
// to this file). Read it as the catalogue of what a vendor binary can get
// wrong and what core must survive: each variant is one small #if block.
//
// The base (variant FAKE_GOOD) is a well-behaved plugin on the raw C ABI:
// one algorithm, "sum", an f32 sum all-reduce over the local replicas, done
// on the host inside post(). It does NOT use the SDK on purpose: there are
// no exception-catching trampolines here, so a variant that throws really
// throws across the C boundary, as careless C++ behind a C ABI would.
#include <chrono>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>
#include <thread>

#include "strata/abi/plugin.h"

#ifndef FAKE_PLUGIN_NAME
#error "tests/loader/CMakeLists.txt sets FAKE_PLUGIN_NAME for every variant"
#endif

// Named, not anonymous: each variant leaves some helpers unused (no
// warnings then), and hidden visibility keeps them unexported all the same.
namespace fake {

// The info and the algorithm table with room for fields of a future minor;
// only FAKE_NEWER_MINOR announces that room through struct_size.
struct FakeInfo {
  strata_plugin_info_t info;
  uint64_t from_the_future[4];
};
struct FakeAlgorithm {
  strata_algorithm_t table;
  uint64_t from_the_future[4];
};

const strata_host_services_t* g_services = nullptr;

void write(strata_message_t msg, const char* text) {
  if (msg.data != nullptr && msg.capacity > 0) std::snprintf(msg.data, msg.capacity, "%s", text);
}

void log_info(const char* text) {
  if (g_services != nullptr) g_services->log(g_services->host, STRATA_LOG_INFO, text);
}

// ---- the well-behaved algorithm ---------------------------------------------

struct SumOp {
  const strata_buffer_t* inputs;
  const strata_buffer_t* outputs;
  uint32_t replicas;
  uint64_t count;
};

strata_status_t sum_supports(void*, const strata_call_desc_t* call, strata_message_t msg) {
  if (call->dtype == STRATA_F32 && call->redop == STRATA_SUM) return STRATA_OK;
  write(msg, "the fake only sums f32");
  return STRATA_NOT_SUPPORTED;
}

strata_status_t sum_create(void*, void*, const strata_call_t* call, void** op,
                           strata_message_t) {
  const strata_call_desc_t& d = *call->desc;
  *op = new (std::nothrow) SumOp{call->inputs, call->outputs, d.team->local_count, d.count};
  return *op != nullptr ? STRATA_OK : STRATA_OUT_OF_MEMORY;
}

strata_status_t sum_post(void* op, strata_message_t) {
  const auto* sum = static_cast<SumOp*>(op);
  for (uint64_t i = 0; i < sum->count; ++i) {
    float total = 0;
    for (uint32_t r = 0; r < sum->replicas; ++r) {
      total += static_cast<const float*>(sum->inputs[r].data)[i];
    }
    // Written after reading every input, so in-place calls work too.
    for (uint32_t r = 0; r < sum->replicas; ++r) {
      static_cast<float*>(sum->outputs[r].data)[i] = total;
    }
  }
  return STRATA_OK;
}

strata_status_t sum_test(void*, strata_message_t) { return STRATA_OK; }
void sum_abort(void*) {}
void sum_destroy(void* op) { delete static_cast<SumOp*>(op); }

// The NULL functions are optional ones: no estimate, no team state, no wait,
// no run (so core makes create, post and test separate calls: the 1.0 way).
FakeAlgorithm sum_algorithm(const char* name) {
  FakeAlgorithm a{};
  a.table = {.struct_size = sizeof a.table, .name = name, .op = STRATA_ALL_REDUCE,
             .scope = STRATA_SCOPE_LOCAL, .description = "fake f32 sum on the host",
             .user_data = nullptr, .supports = &sum_supports, .estimate = nullptr,
             .team_create = nullptr, .team_destroy = nullptr, .create = &sum_create,
             .post = &sum_post, .test = &sum_test, .wait = nullptr, .abort = &sum_abort,
             .destroy = &sum_destroy, .run = nullptr};
  return a;
}

strata_status_t add(const strata_registrar_t* r, const FakeAlgorithm& a, strata_message_t msg) {
  return r->add_algorithm(r->ctx, &a.table, msg);
}

// ---- the variants: each changes one thing ----------------------------------
// A block may define tweak_info(), tweak_algorithm() or register_tables()
// (announced by HAS_*), or switch the entry point off or to NULL.

#if defined(FAKE_GOOD) || defined(FAKE_SAME_NAME)
// Nothing wrong. FAKE_SAME_NAME is built into two files that both call
// themselves "fake_same_name": the second one found is skipped.

#elif defined(FAKE_NO_ENTRY)
// A shared library, but no Strata plugin: no strata_plugin_entry (rule 1).
#define NO_ENTRY_POINT

#elif defined(FAKE_ENTRY_THROWS)
// strata_plugin_entry itself lets a C++ exception out (rule 2).
#define ENTRY_THROWS

#elif defined(FAKE_OTHER_MAJOR)
// Built for ABI 2 and says so, instead of returning NULL to a 1.x host.
#define HAS_TWEAK_INFO
void tweak_info(FakeInfo& f) { f.info.abi_major = 2; }

#elif defined(FAKE_DECLINES_HOST)
// Cannot serve this host and says so politely: the entry returns NULL.
#define ENTRY_RETURNS_NULL

#elif defined(FAKE_NEWER_MINOR)
// Built against a future SDK 1.99: longer info and algorithm table, their
// unknown trailing fields full of junk. Core must read the prefix it knows.
#define HAS_TWEAK_INFO
void tweak_info(FakeInfo& f) {
  f.info.abi_minor = 99;
  f.info.struct_size = sizeof f;
  std::memset(f.from_the_future, 0xAB, sizeof f.from_the_future);
}
#define HAS_TWEAK_ALGORITHM
void tweak_algorithm(FakeAlgorithm& a) {
  a.table.struct_size = sizeof a;
  std::memset(a.from_the_future, 0xCD, sizeof a.from_the_future);
}

#elif defined(FAKE_OLDER_MINOR)
// Built against SDK 1.0, before run() (ABI 1.1) existed: its algorithm table
// ends at destroy. What lies past that is not the plugin's to vouch for, so
// a run() planted there must never be called.
#define HAS_TWEAK_INFO
void tweak_info(FakeInfo& f) { f.info.abi_minor = 0; }
#define HAS_TWEAK_ALGORITHM
strata_status_t run_past_the_table(void*, void*, const strata_call_t*, int64_t, void**,
                                   strata_message_t msg) {
  write(msg, "core called run(), past this 1.0 table's struct_size");
  return STRATA_INTERNAL;
}
void tweak_algorithm(FakeAlgorithm& a) {
  a.table.struct_size = offsetof(strata_algorithm_t, run);
  a.table.run = &run_past_the_table;
}

#elif defined(FAKE_RUN_CREATE_FAILS) || defined(FAKE_RUN_POST_FAILS) || \
    defined(FAKE_RUN_THROWS) || defined(FAKE_RUN_GARBAGE)
// An ABI 1.1 run() that fails in its create step (nothing started: *op
// stays NULL), in its post step (the operation goes back to core, which
// must destroy it and break the team), throws after handing back an
// operation (breaking rule 2; algorithm.h: core aborts and destroys a
// handle written before the throw), or answers a status
// status.h does not define (rule 4). destroy() and abort() log, for the test.
#define HAS_TWEAK_ALGORITHM
void destroy_logged(void* op) {
  log_info("destroy called");
  sum_destroy(op);
}
void abort_logged(void*) { log_info("abort called"); }
strata_status_t run_failing(void*, void*, const strata_call_t* call, int64_t, void** op,
                            strata_message_t msg) {
  *op = nullptr;
#if defined(FAKE_RUN_CREATE_FAILS)
  (void)call;
  write(msg, "create: no memory for the plan");
  return STRATA_OUT_OF_MEMORY;
#elif defined(FAKE_RUN_GARBAGE)
  (void)call;
  write(msg, "create: the plan cache is corrupt");
  return 42;
#elif defined(FAKE_RUN_THROWS)
  if (sum_create(nullptr, nullptr, call, op, msg) != STRATA_OK) return STRATA_OUT_OF_MEMORY;
  throw std::runtime_error("run blew up after create");
#else
  if (sum_create(nullptr, nullptr, call, op, msg) != STRATA_OK) return STRATA_OUT_OF_MEMORY;
  write(msg, "post: the backend refused the send");
  return STRATA_UNAVAILABLE;
#endif
}
void tweak_algorithm(FakeAlgorithm& a) {
  a.table.run = &run_failing;
  a.table.destroy = &destroy_logged;
  a.table.abort = &abort_logged;
}

#elif defined(FAKE_BAD_NAME)
// A plugin name outside [a-z0-9_]: ids built from it would not parse.
#undef FAKE_PLUGIN_NAME
#define FAKE_PLUGIN_NAME "Fake-Bad-Name"

#elif defined(FAKE_REGISTER_THROWS)
// C++ code behind a C function: register_all lets an exception out (rule 2).
#define HAS_REGISTER_TABLES
strata_status_t register_tables(const strata_registrar_t*, strata_message_t) {
  throw std::runtime_error("fake backend library not found");
}

#elif defined(FAKE_REGISTER_FAILS_MIDWAY)
// Registers two algorithms, then fails: both must be rolled back.
#define HAS_REGISTER_TABLES
strata_status_t register_tables(const strata_registrar_t* r, strata_message_t msg) {
  if (add(r, sum_algorithm("first"), msg) != STRATA_OK) return STRATA_INTERNAL;
  if (add(r, sum_algorithm("second"), msg) != STRATA_OK) return STRATA_INTERNAL;
  write(msg, "licence server unreachable");
  return STRATA_UNAVAILABLE;
}

#elif defined(FAKE_DUPLICATE_ID)
// Registers the same algorithm twice and passes the second add's failure
// (ALREADY_EXISTS) on: the whole plugin is rolled back.
#define HAS_REGISTER_TABLES
strata_status_t register_tables(const strata_registrar_t* r, strata_message_t msg) {
  const strata_status_t first = add(r, sum_algorithm("sum"), msg);
  if (first != STRATA_OK) return first;
  return add(r, sum_algorithm("sum"), msg);
}

#elif defined(FAKE_REGISTER_GARBAGE)
// register_all returns 42, a status status.h does not define (rule 4).
#define HAS_REGISTER_TABLES
strata_status_t register_tables(const strata_registrar_t*, strata_message_t) { return 42; }

#elif defined(FAKE_UNLOAD_THROWS)
// unload() lets an exception out (rule 2): when the Runtime goes away, or
// after a failed registration (plugins.options.fake_unload_throws.fail set).
#define UNLOAD_THROWS
#define HAS_REGISTER_TABLES
strata_status_t register_tables(const strata_registrar_t* r, strata_message_t msg) {
  if (r->services->option(r->services->host, "fail") != nullptr) {
    write(msg, "failing as the config asked");
    return STRATA_INTERNAL;
  }
  return add(r, sum_algorithm("sum"), msg);
}

#elif defined(FAKE_ZERO_STRUCT_SIZE)
// Forgot to fill struct_size (rule 3); core cannot tell which ABI it is.
#define HAS_TWEAK_ALGORITHM
void tweak_algorithm(FakeAlgorithm& a) { a.table.struct_size = 0; }

#elif defined(FAKE_NULL_CREATE)
// A table without one of its required functions.
#define HAS_TWEAK_ALGORITHM
void tweak_algorithm(FakeAlgorithm& a) { a.table.create = nullptr; }

#elif defined(FAKE_SUPPORTS_GARBAGE)
// supports() answers 42 (rule 4): neither yes nor a polite no.
#define HAS_TWEAK_ALGORITHM
strata_status_t supports_42(void*, const strata_call_desc_t*, strata_message_t) { return 42; }
void tweak_algorithm(FakeAlgorithm& a) { a.table.supports = &supports_42; }

#elif defined(FAKE_POST_GARBAGE)
// post() answers -999 (rule 4).
#define HAS_TWEAK_ALGORITHM
strata_status_t post_minus_999(void*, strata_message_t) { return -999; }
void tweak_algorithm(FakeAlgorithm& a) { a.table.post = &post_minus_999; }

#elif defined(FAKE_TEST_GARBAGE)
// test() answers 42 (rule 4).
#define HAS_TWEAK_ALGORITHM
strata_status_t test_42(void*, strata_message_t) { return 42; }
void tweak_algorithm(FakeAlgorithm& a) { a.table.test = &test_42; }

#elif defined(FAKE_POST_THROWS)
// post() lets a C++ exception out (rule 2).
#define HAS_TWEAK_ALGORITHM
strata_status_t post_throws(void*, strata_message_t) { throw std::runtime_error("post blew up"); }
void tweak_algorithm(FakeAlgorithm& a) { a.table.post = &post_throws; }

#elif defined(FAKE_TEST_THROWS)
// test() lets a C++ exception out (rule 2).
#define HAS_TWEAK_ALGORITHM
strata_status_t test_throws(void*, strata_message_t) { throw std::logic_error("test blew up"); }
void tweak_algorithm(FakeAlgorithm& a) { a.table.test = &test_throws; }

#elif defined(FAKE_TEAM_CREATE_THROWS)
// team_create() lets a C++ exception out (rule 2) when a team first meets
// the algorithm, before any call of it has started.
#define HAS_TWEAK_ALGORITHM
strata_status_t team_create_throws(void*, const strata_team_desc_t*, void**, strata_message_t) {
  throw std::runtime_error("team_create blew up");
}
void tweak_algorithm(FakeAlgorithm& a) { a.table.team_create = &team_create_throws; }

#elif defined(FAKE_NEVER_COMPLETES)
// A peer that never shows up: test() says IN_PROGRESS forever. Core's
// deadline must end the call; abort() logs so the test can see it ran.
#define HAS_TWEAK_ALGORITHM
strata_status_t test_forever(void*, strata_message_t) { return STRATA_IN_PROGRESS; }
void abort_logged(void*) { log_info("abort called"); }
void tweak_algorithm(FakeAlgorithm& a) {
  a.table.test = &test_forever;
  a.table.abort = &abort_logged;
}

#elif defined(FAKE_UNRESOLVED_SYMBOL)
// Needs a function that no library defines, and was linked without
// -Wl,--no-undefined (so the linker let it through). With lazy binding it
// would load, register, and end the process ("symbol lookup error", status
// 127) at its first post(); core binds at load and refuses it, naming it.
extern "C" int fake_backend_missing_function(int);
#define HAS_TWEAK_ALGORITHM
strata_status_t post_calls_missing(void* op, strata_message_t msg) {
  if (fake_backend_missing_function(1) != 0) return STRATA_INTERNAL;
  return sum_post(op, msg);
}
void tweak_algorithm(FakeAlgorithm& a) { a.table.post = &post_calls_missing; }

#elif defined(FAKE_REGISTER_CRASHES)
// register_all dies of a segmentation fault: nothing core can catch. Only
// `strata info --isolate` survives it (in a child process) and names it.
// The default action first: under ASan or TSan their own handler would turn
// the signal into a report and exit status 1.
#define HAS_REGISTER_TABLES
strata_status_t register_tables(const strata_registrar_t*, strata_message_t) {
  std::signal(SIGSEGV, SIG_DFL);
  std::raise(SIGSEGV);
  return STRATA_INTERNAL;
}

#elif defined(FAKE_REGISTER_HANGS)
// register_all never returns (a licence server that never answers; bounded
// here at an hour so a forgotten process cannot live forever).
#define HAS_REGISTER_TABLES
strata_status_t register_tables(const strata_registrar_t*, strata_message_t) {
  std::this_thread::sleep_for(std::chrono::hours(1));
  return STRATA_INTERNAL;
}

#elif defined(FAKE_POST_BLOCKS)
// post() blocks for plugins.options.fake_post_blocks.block_ms (default
// 3000) before doing its work: the blocking send of rule 7, which core's
// deadline cannot interrupt. Core's watchdog must say so while it waits.
#define HAS_TWEAK_ALGORITHM
strata_status_t post_blocking(void* op, strata_message_t msg) {
  const char* ms = g_services == nullptr ? nullptr
                                         : g_services->option(g_services->host, "block_ms");
  std::this_thread::sleep_for(std::chrono::milliseconds(ms == nullptr ? 3000 : std::atoi(ms)));
  return sum_post(op, msg);
}
void tweak_algorithm(FakeAlgorithm& a) { a.table.post = &post_blocking; }

#elif defined(FAKE_ESTIMATE_NAN) || defined(FAKE_ESTIMATE_NEGATIVE)
// estimate() answers a number that is not a time (rule 5). Core ranks the
// algorithm last, as if it had no estimate, and says so once.
#define HAS_TWEAK_ALGORITHM
strata_status_t bad_estimate(void*, const strata_call_desc_t*, double* seconds) {
#ifdef FAKE_ESTIMATE_NAN
  *seconds = std::numeric_limits<double>::quiet_NaN();
#else
  *seconds = -1e-6;
#endif
  return STRATA_OK;
}
void tweak_algorithm(FakeAlgorithm& a) { a.table.estimate = &bad_estimate; }

#else
#error "unknown fake plugin variant: add a block above"
#endif

// ---- the defaults every variant did not replace -----------------------------

#ifndef HAS_TWEAK_INFO
void tweak_info(FakeInfo&) {}
#endif
#ifndef HAS_TWEAK_ALGORITHM
void tweak_algorithm(FakeAlgorithm&) {}
#endif
#ifndef HAS_REGISTER_TABLES
strata_status_t register_tables(const strata_registrar_t* r, strata_message_t msg) {
  FakeAlgorithm a = sum_algorithm("sum");
  tweak_algorithm(a);
  return add(r, a, msg);
}
#endif

strata_status_t fake_register_all(const strata_registrar_t* registrar, strata_message_t msg) {
  g_services = registrar->services;
  return register_tables(registrar, msg);
}

// Core promises to call this once per register_all, also a failed one.
void fake_unload(const strata_registrar_t*) {
  log_info("unload called");
  g_services = nullptr;
#ifdef UNLOAD_THROWS
  throw std::runtime_error("unload blew up");
#endif
}

}  // namespace fake

#ifndef NO_ENTRY_POINT
extern "C" STRATA_ABI_EXPORT const strata_plugin_info_t* strata_plugin_entry(uint32_t host_major,
                                                                           uint32_t) {
#ifdef ENTRY_RETURNS_NULL
  return nullptr;
#endif
#ifdef ENTRY_THROWS
  throw std::runtime_error("entry blew up");
#endif
  if (host_major != STRATA_ABI_MAJOR) return nullptr;
  static fake::FakeInfo info = [] {
    fake::FakeInfo f{};
    f.info = {.struct_size = sizeof f.info,
              .abi_major = STRATA_ABI_MAJOR,
              .abi_minor = STRATA_ABI_MINOR,
              .name = FAKE_PLUGIN_NAME,
              .version = "0.0.1",
              .description = "a fake plugin of tests/loader",
              .register_all = &fake::fake_register_all,
              .unload = &fake::fake_unload};
    fake::tweak_info(f);
    return f;
  }();
  return &info.info;
}
#else
// Something a non-plugin library would export.
extern "C" STRATA_ABI_EXPORT int fake_unrelated_function(void) { return 7; }
#endif
