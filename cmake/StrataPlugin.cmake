# strata_add_plugin(<name> SOURCES <files...> [LIBRARIES <libs...>]
#                   [OUTPUT_DIRECTORY <dir>] [INSTALL_DESTINATION <dir>])
#
# Builds a Strata plugin: a MODULE library that links the SDK (never core),
# exports strata_plugin_entry and nothing else (sdk/README.md rule 1: hidden
# visibility, and the version script StrataPluginExports.map next to this
# file for what visibility cannot hide), and is named libstrata_<name>.so so
# the loader's discovery finds it. Works both inside the Strata tree and from
# another project after find_package(Strata).
function(strata_add_plugin name)
  cmake_parse_arguments(ARG "" "OUTPUT_DIRECTORY;INSTALL_DESTINATION"
                        "SOURCES;LIBRARIES" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "strata_add_plugin(${name}): SOURCES is required")
  endif()
  set(target strata_plugin_${name})
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE Strata::sdk ${ARG_LIBRARIES})
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME strata_${name}
    PREFIX lib
    CXX_VISIBILITY_PRESET hidden
    C_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  # Undefined symbols are a load-time surprise for users; fail at link time.
  target_link_options(${target} PRIVATE -Wl,--no-undefined)
  set(exports "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/StrataPluginExports.map")
  target_link_options(${target} PRIVATE "LINKER:--version-script=${exports}")
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS "${exports}")
  if(ARG_OUTPUT_DIRECTORY)
    set_target_properties(${target} PROPERTIES
      LIBRARY_OUTPUT_DIRECTORY "${ARG_OUTPUT_DIRECTORY}")
    # Multi-config generators: the directory itself, not a per-configuration
    # subdirectory of it (and not what CMAKE_LIBRARY_OUTPUT_DIRECTORY_<CONFIG>
    # would give every library).
    foreach(config IN LISTS CMAKE_CONFIGURATION_TYPES)
      string(TOUPPER "${config}" config)
      set_target_properties(${target} PROPERTIES
        LIBRARY_OUTPUT_DIRECTORY_${config} "${ARG_OUTPUT_DIRECTORY}")
    endforeach()
  endif()
  if(ARG_INSTALL_DESTINATION)
    install(TARGETS ${target} LIBRARY DESTINATION "${ARG_INSTALL_DESTINATION}")
  endif()
endfunction()
