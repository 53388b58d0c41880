#include "mpi_runtime.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "mpi_types.h"
#include "strata/sdk/error.h"
#include "strata/sdk/host.h"

namespace strata::mpi {
namespace {

const char* env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

const char* level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
    default: return "an unknown thread level";
  }
}

// Core loads plugins RTLD_LOCAL, so libmpi (our dependency) arrives local
// too, and MPI libraries that dlopen components expecting libmpi's symbols
// in the global scope fail. Open MPI >= 3 re-opens itself RTLD_GLOBAL inside
// MPI_Init (measured with 4.1.4: README.md, "libmpi and symbol
// visibility"); others do not, so promote it here. The handle is never
// closed: it also keeps libmpi mapped after core unloads this plugin, which
// matters because an initialised MPI has threads running inside it.
void promote_libmpi() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&MPI_Init_thread), &info) == 0 ||
      info.dli_fname == nullptr) {
    return;
  }
  if (dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD) == nullptr) {
    sdk::Host::log(STRATA_LOG_WARNING, std::string("could not promote ") + info.dli_fname +
                                           " to global symbol visibility: " + dlerror());
  }
}

// Once MPI is initialised this library must stay mapped: MPI may call the
// user-defined reduction operators in it until MPI_Finalize, and requests
// abandoned by an aborted call are never completed.
void pin_this_library() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&pin_this_library), &info) != 0 &&
      info.dli_fname != nullptr) {
    dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  }
}

// A process that exits without unloading core (a Runtime kept in a global,
// or exit() from main) still finalises, or mpirun reports the job failed.
void finalize_at_process_exit() { MpiRuntime::instance().finalize_at_exit(); }

}  // namespace

Launcher detect_launcher() {
  Launcher l;
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"}) {
    if (env(name) != nullptr) {
      l.present = true;
      l.variable = name;
      break;
    }
  }
  for (const char* name : {"PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid", "PMI_KVSNAME"}) {
    if (const char* value = env(name)) {
      l.job = value;
      break;
    }
  }
  return l;
}

std::string ompi_server_uri() {
  const char* uri = env("OMPI_MCA_pmix_server_uri");
  return uri == nullptr ? "" : uri;
}

MpiRuntime& MpiRuntime::instance() {
  // Never destroyed: the atexit finaliser uses it. The library is pinned as
  // soon as the object exists, so the object stays reachable (and MPI's
  // state with it) even after core unloads the plugin — otherwise a plugin
  // loaded only to be listed would leave an unreachable allocation behind.
  static MpiRuntime* runtime = [] {
    pin_this_library();
    return new MpiRuntime();
  }();
  return *runtime;
}

void MpiRuntime::ensure_initialized() {
  if (initialized_.load(std::memory_order_acquire)) return;
  std::lock_guard lock(init_mu_);
  if (initialized_.load(std::memory_order_relaxed)) return;
  int flag = 0;
  MPI_Finalized(&flag);
  if (flag != 0) {
    throw sdk::Error(STRATA_FAILED_PRECONDITION,
                     "MPI was already finalised in this process (by the application, or when "
                     "an earlier Runtime unloaded the mpi plugin); MPI cannot be initialised "
                     "twice: keep one Runtime alive for the life of the program");
  }
  MPI_Initialized(&flag);
  if (flag != 0) {
    owned_ = false;
    MPI_Query_thread(&level_);
  } else {
    promote_libmpi();
    int provided = MPI_THREAD_SINGLE;
    check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided),
              "MPI_Init_thread");
    owned_ = true;
    level_ = provided;
    // We own MPI: no error of ours may abort the process (the default
    // handler, MPI_ERRORS_ARE_FATAL, would).
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    std::atexit(&finalize_at_process_exit);
  }
  create_user_ops();  // the library is pinned since instance() (user ops live in it)
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
  int length = 0;
  MPI_Get_library_version(version, &length);
  std::string text(version, strnlen(version, static_cast<size_t>(length)));
  if (auto nl = text.find_first_of("\r\n"); nl != std::string::npos) text.resize(nl);
  sdk::Host::log(STRATA_LOG_INFO,
                 std::string(owned_ ? "initialised " : "using the application's ") + text +
                     " at " + level_name(level_) +
                     (level_ == MPI_THREAD_SERIALIZED ? "; every MPI call is serialised"
                      : level_ < MPI_THREAD_SERIALIZED ? "; MPI calls from the main thread only"
                                                       : ""));
  initialized_.store(true, std::memory_order_release);
}

std::unique_lock<std::mutex> MpiRuntime::serialize() {
  if (level_ >= MPI_THREAD_MULTIPLE) return {};
  if (level_ == MPI_THREAD_SERIALIZED) return std::unique_lock<std::mutex>(call_mu_);
  // SINGLE and FUNNELED: only the main thread may call MPI at all, so once
  // this is it, no other thread can be in MPI and no lock is needed (lock
  // and unlock were ~3% of the cycles of 8 B calls, docs/performance/mpi_per_call.md).
  const pthread_t self = pthread_self();
  if (main_thread_known_.load(std::memory_order_acquire) &&
      pthread_equal(self, main_thread_.load(std::memory_order_relaxed)) != 0) {
    return {};
  }
  int is_main = 0;
  MPI_Is_thread_main(&is_main);
  if (is_main == 0) {
    throw sdk::Error(STRATA_FAILED_PRECONDITION,
                     std::string("the application initialised MPI at ") + level_name(level_) +
                         ", which allows MPI calls only from the thread that initialised it; "
                         "this collective runs on another thread. Initialise MPI with at "
                         "least MPI_THREAD_SERIALIZED, or let Strata initialise it");
  }
  main_thread_.store(self, std::memory_order_relaxed);
  main_thread_known_.store(true, std::memory_order_release);
  return {};
}

void MpiRuntime::note_abandoned(std::string_view why) {
  if (!abandoned_.exchange(true)) {
    sdk::Host::log(STRATA_LOG_WARNING,
                   "an MPI communicator was abandoned with requests pending (" +
                       std::string(why) + "); MPI_Finalize will be skipped at unload");
  }
}

void MpiRuntime::attach() {
  std::lock_guard lock(init_mu_);
  ++registrations_;
}

void MpiRuntime::detach() {
  std::lock_guard lock(init_mu_);
  if (registrations_ > 0) --registrations_;
  if (registrations_ == 0) finalize_locked();
}

void MpiRuntime::finalize_at_exit() {
  std::lock_guard lock(init_mu_);
  finalize_locked();
}

void MpiRuntime::finalize_locked() {
  if (!initialized_.load() || finalized_ || !owned_) return;
  int flag = 0;
  MPI_Finalized(&flag);
  if (flag != 0) {
    finalized_ = true;  // someone else did it
    return;
  }
  if (abandoned_.load()) return;  // see note_abandoned
  if (live_comms_.load() > 0) {
    sdk::Host::log(STRATA_LOG_WARNING, std::to_string(live_comms_.load()) +
                                           " MPI communicator(s) still alive at finalisation");
  }
  free_user_ops();
  const int rc = MPI_Finalize();
  finalized_ = true;
  if (rc != MPI_SUCCESS) {
    sdk::Host::log(STRATA_LOG_WARNING, "MPI_Finalize failed: " + mpi_error_text(rc));
  }
}

ErrorsReturn::ErrorsReturn(MPI_Comm comm) : comm_(comm) {
  if (MpiRuntime::instance().owns_mpi()) return;  // set once, at initialisation
  MPI_Comm_get_errhandler(comm_, &saved_);
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
}

ErrorsReturn::~ErrorsReturn() {
  if (saved_ == MPI_ERRHANDLER_NULL) return;
  MPI_Comm_set_errhandler(comm_, saved_);
  MPI_Errhandler_free(&saved_);
}

std::string mpi_error_text(int rc) {
  char text[MPI_MAX_ERROR_STRING] = {0};
  int length = 0;
  int error_class = rc;
  MPI_Error_class(rc, &error_class);
  if (MPI_Error_string(rc, text, &length) != MPI_SUCCESS) length = 0;
  std::string out = length > 0 ? std::string(text, static_cast<size_t>(length)) : "unknown error";
  return out + " (MPI error class " + std::to_string(error_class) + ")";
}

void check_mpi(int rc, std::string_view what) {
  if (rc == MPI_SUCCESS) return;
  int error_class = rc;
  MPI_Error_class(rc, &error_class);
  strata_status_t code = STRATA_INTERNAL;
  if (error_class == MPI_ERR_TRUNCATE) code = STRATA_DATA_LOSS;  // a peer sent more
  if (error_class == MPI_ERR_NO_MEM) code = STRATA_OUT_OF_MEMORY;
  if (error_class == MPI_ERR_PORT || error_class == MPI_ERR_NAME) code = STRATA_UNAVAILABLE;
  throw sdk::Error(code, std::string(what) + " failed: " + mpi_error_text(rc));
}

}  // namespace strata::mpi
