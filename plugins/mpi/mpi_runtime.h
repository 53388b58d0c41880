// The process-wide MPI library as this plugin sees it: when it was
// initialised and by whom, which thread level it gives, whether every MPI
// call must be serialised, and whether it may be finalised.
//
// MPI is one per process while the plugin may be registered by several
// Runtimes of that process, so this state is a singleton, and MPI is
// initialised lazily (first resolver use or team_create), never at load:
// `strata info` loads every plugin and must stay cheap.
#ifndef STRATA_PLUGINS_MPI_MPI_RUNTIME_H_
#define STRATA_PLUGINS_MPI_MPI_RUNTIME_H_

#include <mpi.h>
#include <pthread.h>

#include <atomic>
#include <mutex>
#include <string>
#include <string_view>

namespace strata::mpi {

// Who started this process, read from the environment only (no MPI call):
// Open MPI's mpirun (OMPI_COMM_WORLD_SIZE), any PMIx launcher (PMIX_RANK),
// or a PMI-1/2 launcher such as MPICH's hydra or srun (PMI_SIZE).
struct Launcher {
  bool present = false;
  std::string variable;  // the variable that gave it away
  std::string job;       // PMIX_NAMESPACE or OMPI_MCA_ess_base_jobid: which world
};
Launcher detect_launcher();

// ompi-server's URI from OMPI_MCA_pmix_server_uri, or "" when unset: without
// it, Open MPI 4 singletons cannot connect to each other.
std::string ompi_server_uri();

class MpiRuntime {
 public:
  static MpiRuntime& instance();

  // Initialises MPI unless it already is (MPI_THREAD_MULTIPLE requested).
  // Throws sdk::Error naming what failed; FAILED_PRECONDITION after
  // MPI_Finalize (MPI cannot be initialised twice in one process).
  void ensure_initialized();

  // Takes the plugin-wide MPI lock at MPI_THREAD_SERIALIZED; an empty lock
  // otherwise. Every MPI call is made under it. At MPI_THREAD_FUNNELED and
  // SINGLE, throws unless this is the main thread (the only one that may
  // call MPI, hence no lock).
  [[nodiscard]] std::unique_lock<std::mutex> serialize();

  int thread_level() const { return level_; }
  bool owns_mpi() const { return owned_; }

  // A communicator was abandoned with requests still pending (an aborted
  // call): MPI_Finalize could wait for them forever, so it is skipped.
  void note_abandoned(std::string_view why);

  // Registrations of the plugin; the last one to detach finalises MPI if
  // this plugin initialised it and nothing was abandoned.
  void attach();
  void detach();
  // At process exit: finalise whatever the registrations say (same rules).
  void finalize_at_exit();

  // The communicators alive, so that finalisation frees them first.
  void count_comm(int delta) { live_comms_ += delta; }

 private:
  MpiRuntime() = default;
  void finalize_locked();

  std::mutex init_mu_;      // guards initialisation and finalisation
  std::mutex call_mu_;      // serialises MPI calls at THREAD_SERIALIZED
  std::atomic<bool> initialized_{false};
  bool owned_ = false;       // this plugin called MPI_Init_thread
  bool finalized_ = false;
  int level_ = MPI_THREAD_SINGLE;
  // The main thread, once MPI_Is_thread_main has said which it is: below
  // THREAD_SERIALIZED every poll asks, and comparing thread ids is cheaper
  // than the MPI call (1-2% of an 8 B call's cycles, docs/performance/mpi_per_call.md).
  std::atomic<pthread_t> main_thread_{};
  std::atomic<bool> main_thread_known_{false};
  int registrations_ = 0;
  std::atomic<bool> abandoned_{false};
  std::atomic<int> live_comms_{0};
};

// MPI_ERRORS_RETURN on a communicator the application owns (MPI_COMM_WORLD,
// MPI_COMM_SELF when it initialised MPI) for the duration of a scope, so an
// error in our call is returned rather than fatal; its handler is restored.
class ErrorsReturn {
 public:
  explicit ErrorsReturn(MPI_Comm comm);
  ~ErrorsReturn();
  ErrorsReturn(const ErrorsReturn&) = delete;
  ErrorsReturn& operator=(const ErrorsReturn&) = delete;

 private:
  MPI_Comm comm_;
  MPI_Errhandler saved_ = MPI_ERRHANDLER_NULL;
};

// Throws sdk::Error for an MPI return code other than MPI_SUCCESS:
// "<what> failed: <MPI_Error_string> (MPI error class N)".
void check_mpi(int rc, std::string_view what);
std::string mpi_error_text(int rc);

}  // namespace strata::mpi

#endif  // STRATA_PLUGINS_MPI_MPI_RUNTIME_H_
