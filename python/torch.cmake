# strata._torch, the torch.distributed backend "strata" (included by
# python/CMakeLists.txt once the Python package itself is built). Built
# when Debian's torch is found and matches the compiler: its module shares
# pybind11's internals with torch._C, which only works when both were built
# alike, so every check below names what differs.
#
# STRATA_TORCH: AUTO (build when found), ON (not found is an error), OFF.
set(STRATA_TORCH AUTO CACHE STRING "Build strata.torch (the torch.distributed backend): AUTO, ON or OFF")
set_property(CACHE STRATA_TORCH PROPERTY STRINGS AUTO ON OFF)

function(strata_torch_check)
  if(STRATA_TORCH STREQUAL "OFF")
    set(_why "STRATA_TORCH=OFF")
  else()
    execute_process(
      COMMAND "${Python3_EXECUTABLE}" -c
              "import torch; c = torch._C; print(torch.__version__, int(c._GLIBCXX_USE_CXX11_ABI), c._PYBIND11_COMPILER_TYPE, c._PYBIND11_STDLIB, c._PYBIND11_BUILD_ABI, sep=';')"
      OUTPUT_VARIABLE _probe OUTPUT_STRIP_TRAILING_WHITESPACE
      ERROR_QUIET RESULT_VARIABLE _failed)
    find_package(Torch CONFIG QUIET)
    find_library(STRATA_TORCH_PYTHON_LIBRARY torch_python)
    list(LENGTH _probe _fields)
    if(_failed OR NOT _fields EQUAL 5)
      set(_why "${Python3_EXECUTABLE} cannot import torch (install python3-torch libtorch-dev)")
    elseif(NOT Torch_FOUND)
      set(_why "CMake's Torch package was not found (install libtorch-dev)")
    elseif(NOT STRATA_TORCH_PYTHON_LIBRARY)
      set(_why "libtorch_python was not found (install libtorch-dev)")
    else()
      list(GET _probe 0 _version)
      list(GET _probe 1 _cxx11_abi)
      list(GET _probe 2 _compiler)
      list(GET _probe 3 _stdlib)
      list(GET _probe 4 _build_abi)
      string(REGEX REPLACE "[a-z+].*$" "" _version_number "${_version}")
      if(NOT _version_number VERSION_EQUAL Torch_VERSION)
        set(_why "the python torch (${_version}) is not the CMake Torch package (${Torch_VERSION})")
      elseif(NOT _cxx11_abi EQUAL 1)
        set(_why "torch was built with the old C++ ABI (_GLIBCXX_USE_CXX11_ABI=0)")
      elseif(NOT _compiler STREQUAL "_${CMAKE_CXX_COMPILER_ID}" AND
             NOT (_compiler STREQUAL "_gcc" AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU"))
        set(_why "torch's pybind11 was built by ${_compiler}, this tree by ${CMAKE_CXX_COMPILER_ID}, "
                 "so their internals differ")
      endif()
    endif()
  endif()
  if(DEFINED _why)
    if(STRATA_TORCH STREQUAL "ON")
      message(FATAL_ERROR "Strata: STRATA_TORCH=ON, but ${_why}")
    endif()
    message(STATUS "Strata: strata.torch is not built: ${_why}")
    set(STRATA_TORCH_FOUND OFF PARENT_SCOPE)
    return()
  endif()
  message(STATUS "Strata: strata.torch for torch ${_version} (${TORCH_INSTALL_PREFIX})")
  set(STRATA_TORCH_FOUND ON PARENT_SCOPE)
  set(STRATA_TORCH_PYBIND_TAGS "${_compiler};${_stdlib};${_build_abi}" PARENT_SCOPE)
endfunction()

strata_torch_check()
if(NOT STRATA_TORCH_FOUND)
  return()
endif()

pybind11_add_module(strata_python_torch MODULE NO_EXTRAS
  src/torch/block_exchange.cc
  src/torch/module.cc
  src/torch/process_group_exchange_ops.cc
  src/torch/process_group_explain.cc
  src/torch/process_group_gather_ops.cc
  src/torch/process_group_ops.cc
  src/torch/process_group_strata.cc
  src/torch/tensor_buffers.cc
  src/torch/torch_store.cc
  src/torch/work_queue.cc
  src/torch/work_strata.cc)
list(GET STRATA_TORCH_PYBIND_TAGS 0 _compiler)
list(GET STRATA_TORCH_PYBIND_TAGS 1 _stdlib)
list(GET STRATA_TORCH_PYBIND_TAGS 2 _build_abi)
# What torch's cpp_extension defines, so the internals id is torch's own.
target_compile_definitions(strata_python_torch PRIVATE
  PYBIND11_COMPILER_TYPE="${_compiler}" PYBIND11_STDLIB="${_stdlib}"
  PYBIND11_BUILD_ABI="${_build_abi}")
# Torch's headers are system headers: -Werror covers our code only.
get_target_property(_torch_includes torch INTERFACE_INCLUDE_DIRECTORIES)
target_include_directories(strata_python_torch SYSTEM PRIVATE ${_torch_includes})
target_link_libraries(strata_python_torch PRIVATE
  strata_python_common strata torch ${STRATA_TORCH_PYTHON_LIBRARY} strata_compile_options)
set_target_properties(strata_python_torch PROPERTIES
  OUTPUT_NAME _torch
  LIBRARY_OUTPUT_DIRECTORY "${STRATA_PYTHON_DIR}/strata"
  CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON
  BUILD_RPATH "${PROJECT_BINARY_DIR}/lib"
  INSTALL_RPATH "$ORIGIN/${_to_libdir}")
install(TARGETS strata_python_torch LIBRARY DESTINATION "${STRATA_PYTHON_INSTALL_DIR}/strata")
