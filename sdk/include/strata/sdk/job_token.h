// The job token: a shared secret that every process of one training job
// holds and every networked connection presents first, so only members of
// the job can join a team, feed a parameter server or reach a store.
//
// Where it comes from, first match wins:
//   1. a file named in the config (an option such as grpc_ring's token_file),
//   2. the file named by STRATA_JOB_TOKEN_FILE,
//   3. the value of STRATA_JOB_TOKEN.
// Never a command-line argument: those are visible to every user through
// /proc/<pid>/cmdline. `strata launch` writes a fresh token to a private
// file and passes STRATA_JOB_TOKEN_FILE to its workers.
//
// Used by core and by plugins alike, so it reports errors as text instead of
// throwing (core code is exception-free; plugins wrap it in sdk::Error).
#ifndef STRATA_SDK_JOB_TOKEN_H_
#define STRATA_SDK_JOB_TOKEN_H_

#include <string>
#include <string_view>

namespace strata::sdk {

inline constexpr const char* kJobTokenFileEnv = "STRATA_JOB_TOKEN_FILE";
inline constexpr const char* kJobTokenEnv = "STRATA_JOB_TOKEN";
// Short secrets are guessable; 16 characters is the least we take.
inline constexpr size_t kMinJobTokenLength = 16;
// A token is a line of text, not a file to stream into memory.
inline constexpr size_t kMaxJobTokenLength = 4096;

struct JobToken {
  std::string value;   // empty: no token configured anywhere
  std::string source;  // "file /run/job.token", "environment STRATA_JOB_TOKEN"
};

// Loads the token (see the order above). Surrounding whitespace is dropped.
// Returns false with *error set when a configured source is unusable: the
// file is missing or unreadable, readable by other users (group/world
// permission bits), empty, too short or too long. Having no source at all is
// not an error here: out->value stays empty and the caller decides.
bool load_job_token(const std::string& configured_file, JobToken* out, std::string* error);

// Compares in time that depends only on the lengths, so a stranger cannot
// learn a token's prefix by timing refusals.
bool job_tokens_equal(std::string_view a, std::string_view b);

// 32 random bytes from the kernel as 64 hex digits; empty if the kernel
// gives none (the caller reports it).
std::string generate_job_token();

// Writes `token` to `path` readable by the owner only (mode 0600), through a
// temporary file renamed into place. Returns false with *error set.
bool write_job_token_file(const std::string& path, const std::string& token, std::string* error);

}  // namespace strata::sdk

#endif  // STRATA_SDK_JOB_TOKEN_H_
