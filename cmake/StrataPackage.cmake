# Install rules and the CMake package, so another source tree can write
#   find_package(Strata REQUIRED)
#   strata_add_plugin(my_plugin SOURCES my_plugin.cc)
include(CMakePackageConfigHelpers)

install(TARGETS strata_sdk EXPORT StrataTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS strata EXPORT StrataTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY sdk/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY core DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/strata
        FILES_MATCHING PATTERN "*.h")
install(FILES cmake/StrataPlugin.cmake DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Strata)

install(EXPORT StrataTargets NAMESPACE Strata::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Strata)
configure_package_config_file(cmake/StrataConfig.cmake.in
  "${PROJECT_BINARY_DIR}/StrataConfig.cmake"
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Strata
  PATH_VARS STRATA_PLUGIN_INSTALL_DIR)
write_basic_package_version_file("${PROJECT_BINARY_DIR}/StrataConfigVersion.cmake"
  COMPATIBILITY SameMajorVersion)
install(FILES "${PROJECT_BINARY_DIR}/StrataConfig.cmake"
              "${PROJECT_BINARY_DIR}/StrataConfigVersion.cmake"
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Strata)
