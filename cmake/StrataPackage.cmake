# Install rules and the CMake package, so another source tree can write
#   find_package(Strata REQUIRED)
#   strata_add_plugin(my_plugin SOURCES my_plugin.cc)
include(CMakePackageConfigHelpers)

install(TARGETS strata_sdk EXPORT StrataTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS strata EXPORT StrataTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY sdk/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# core/common/logging.h (spdlog) and core/config/yaml_reader.h (yaml-cpp) are
# core's own, included by its .cc files only: not installed, so that using
# Strata::core needs none of core's private dependencies.
install(DIRECTORY core DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/strata
        FILES_MATCHING PATTERN "*.h" PATTERN "logging.h" EXCLUDE
        PATTERN "yaml_reader.h" EXCLUDE)
# The example configs the docs name as configs/<file>.yaml.
set(STRATA_CONFIGS_INSTALL_DIR "${CMAKE_INSTALL_DATADIR}/strata/configs")
install(DIRECTORY configs/ DESTINATION ${STRATA_CONFIGS_INSTALL_DIR})
install(FILES cmake/StrataPlugin.cmake cmake/StrataPluginExports.map
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Strata)

install(EXPORT StrataTargets NAMESPACE Strata::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Strata)
configure_package_config_file(cmake/StrataConfig.cmake.in
  "${PROJECT_BINARY_DIR}/StrataConfig.cmake"
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Strata
  PATH_VARS STRATA_PLUGIN_INSTALL_DIR STRATA_CONFIGS_INSTALL_DIR)
write_basic_package_version_file("${PROJECT_BINARY_DIR}/StrataConfigVersion.cmake"
  COMPATIBILITY SameMajorVersion)
install(FILES "${PROJECT_BINARY_DIR}/StrataConfig.cmake"
              "${PROJECT_BINARY_DIR}/StrataConfigVersion.cmake"
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Strata)
