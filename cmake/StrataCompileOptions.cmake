# Warnings, sanitizers and visibility shared by every Strata target.
add_library(strata_compile_options INTERFACE)
target_compile_options(strata_compile_options INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
  -Wcast-align -Wunused -Woverloaded-virtual -Wnull-dereference
  -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough)
# g++ 12 at -O3 reports impossible memcpy overlaps inside std::string's own
# operator+ (GCC bug 105651, fixed in 13): a false positive in libstdc++, not
# in our code, so that one check is off on g++ 12 only.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(strata_compile_options INTERFACE -Wno-restrict)
endif()
# Calls into other shared libraries (libmpi, libstdc++, core from a tool)
# read the GOT directly instead of jumping through the PLT: one indirect
# jump and one cache line less per callee. On its own it took 14 ns off
# Strata's extra on a warm 8-byte MPI all-reduce (+0.148 to +0.134 us,
# docs/performance/mpi_per_call.md). Symbols bind at load time instead of on first call.
target_compile_options(strata_compile_options INTERFACE -fno-plt)
if(STRATA_WERROR)
  target_compile_options(strata_compile_options INTERFACE -Werror)
endif()

if(STRATA_SANITIZE)
  message(STATUS "Strata: building with -fsanitize=${STRATA_SANITIZE}")
  add_compile_options(-fsanitize=${STRATA_SANITIZE} -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${STRATA_SANITIZE})
endif()
