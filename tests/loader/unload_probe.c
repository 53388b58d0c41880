/* Loads one plugin the way core does (RTLD_NOW | RTLD_LOCAL), asks its entry
 * point for its info, closes it, and exits 0 only if the library is no
 * longer mapped. Written in C, so that no C++ runtime is loaded beforehand:
 * in a C++ host (libstrata) the host's own copies of the C++ runtime's
 * GNU-unique symbols win and hide the problem, which any host without them
 * (a C program, Python, another vendor's runtime) meets: a plugin that
 * exports a GNU-unique symbol is marked "never unload" by the dynamic
 * linker, so dlclose leaves it mapped (sdk/README.md rule 1).
 *   unload_probe PLUGIN.so */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int mapped(const char* path) {
  FILE* maps = fopen("/proc/self/maps", "r");
  char line[4096];
  int found = 0;
  if (maps == NULL) return -1;
  while (fgets(line, sizeof line, maps) != NULL) {
    if (strstr(line, path) != NULL) found = 1;
  }
  fclose(maps);
  return found;
}

int main(int argc, char** argv) {
  char path[4096];
  if (argc != 2 || realpath(argv[1], path) == NULL) {
    fprintf(stderr, "usage: unload_probe PLUGIN.so (an existing file)\n");
    return 2;
  }
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL) {
    fprintf(stderr, "unload_probe: %s\n", dlerror());
    return 2;
  }
  typedef const void* (*entry_fn)(unsigned, unsigned);
  entry_fn entry = (entry_fn)dlsym(handle, "strata_plugin_entry");
  if (entry == NULL || entry(1, 1) == NULL) {
    fprintf(stderr, "unload_probe: %s has no working strata_plugin_entry\n", path);
    return 2;
  }
  dlclose(handle);
  if (mapped(path) != 0) {
    fprintf(stderr, "unload_probe: %s is still mapped after dlclose (a GNU-unique export "
            "makes it undeletable: sdk/README.md rule 1)\n", path);
    return 1;
  }
  printf("unload_probe: %s unmapped after dlclose\n", path);
  return 0;
}
