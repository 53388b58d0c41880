/* Strata plugin ABI: version numbers and the export macro.
 *
 * The ABI is plain C so that plugins built with other compilers, C++ runtimes,
 * CUDA versions or MPI wrappers can be loaded by any host. A host and a plugin
 * agree when their MAJOR versions are equal. MINOR versions only ever append
 * fields to the end of tables; every table starts with `struct_size`, so each
 * side reads only the prefix both know (see sdk/README.md, rule 3). */
#ifndef STRATA_ABI_VERSION_H_
#define STRATA_ABI_VERSION_H_

#define STRATA_ABI_MAJOR 1
#define STRATA_ABI_MINOR 2

#if defined(__GNUC__)
#define STRATA_ABI_EXPORT __attribute__((visibility("default")))
#else
#define STRATA_ABI_EXPORT
#endif

#ifdef __cplusplus
#define STRATA_ABI_EXTERN_C extern "C"
#else
#define STRATA_ABI_EXTERN_C
#endif

#endif /* STRATA_ABI_VERSION_H_ */
