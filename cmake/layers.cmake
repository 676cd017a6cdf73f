# Layers the build enforces: a library (or executable) per folder, and a check that every
# `#include "..."` in a registered folder names a header of its own folder or of a folder whose
# library the including one links (directly or through others). An include that reaches up, or
# sideways to a library not linked, fails `cmake --build` (the target tc_layer_check is in ALL).
#
# Use, after the target's add_library/add_executable (its target_link_libraries may come later,
# anywhere in the tree: the check reads them at the end of the top-level CMakeLists):
#
#   add_library(tc_hw STATIC hw/devices.cc ...)
#   target_link_libraries(tc_hw PUBLIC tc_probe tc_spec)
#   tc_layer(tc_hw DIR pipeline/hw)        # DIR: the folder, relative to the source root
#
# One target per folder. Files in a sub-folder belong to the deepest registered folder above
# them; a folder not registered (nor under a registered one) is neither checked nor a layer.
# docs/layers.md gives the order and how to fix a refused include.
set(TC_LAYER_CHECK_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/check_layers.cmake")

function(tc_layer target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "DIR" "")
  if(NOT TARGET ${target} OR NOT arg_DIR OR arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tc_layer(${target} DIR <folder>): needs an existing target and one folder")
  endif()
  string(REGEX REPLACE "/+$" "" dir "${arg_DIR}")
  if(NOT IS_DIRECTORY "${PROJECT_SOURCE_DIR}/${dir}")
    message(FATAL_ERROR "tc_layer(${target}): no folder ${PROJECT_SOURCE_DIR}/${dir}")
  endif()
  get_property(dirs GLOBAL PROPERTY TC_LAYER_DIRS)
  if("${dir}" IN_LIST dirs)
    message(FATAL_ERROR "tc_layer(${target}): ${dir} is registered already (one target per folder)")
  endif()
  set_property(GLOBAL APPEND PROPERTY TC_LAYER_DIRS "${dir}")
  set_property(GLOBAL APPEND PROPERTY TC_LAYER_TARGETS "${target}")
endfunction()

# The targets `target` links, directly or through others (PUBLIC, PRIVATE and INTERFACE alike:
# a static library's private dependency is linked into whatever links it).
function(_tc_layer_links target out)
  set(seen "")
  set(todo "${target}")
  while(todo)
    list(POP_FRONT todo t)
    foreach(property LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
      get_target_property(links ${t} ${property})
      if(NOT links)
        continue()
      endif()
      foreach(link IN LISTS links)
        string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" link "${link}")
        if(TARGET "${link}" AND NOT "${link}" IN_LIST seen)
          list(APPEND seen "${link}")
          list(APPEND todo "${link}")
        endif()
      endforeach()
    endforeach()
  endwhile()
  set(${out} "${seen}" PARENT_SCOPE)
endfunction()

# Called once, at the end of the top-level CMakeLists: writes each registered folder's allowed
# folders (its own and its links') and adds the check to ALL.
function(tc_layer_check)
  get_property(dirs GLOBAL PROPERTY TC_LAYER_DIRS)
  get_property(targets GLOBAL PROPERTY TC_LAYER_TARGETS)
  set(manifest "# Written by tc_layer_check() (cmake/layers.cmake); read by cmake/check_layers.cmake\n")
  string(APPEND manifest "set(TC_LAYER_DIRS \"${dirs}\")\n")
  foreach(dir target IN ZIP_LISTS dirs targets)
    _tc_layer_links(${target} links)
    set(allowed "${dir}")
    foreach(link IN LISTS links)
      list(FIND targets "${link}" i)
      if(i GREATER -1)
        list(GET dirs ${i} link_dir)
        list(APPEND allowed "${link_dir}")
      endif()
    endforeach()
    string(APPEND manifest "set(\"TC_LAYER_TARGET_${dir}\" \"${target}\")\n")
    string(APPEND manifest "set(\"TC_LAYER_ALLOWED_${dir}\" \"${allowed}\")\n")
  endforeach()
  set(file "${PROJECT_BINARY_DIR}/tc_layers.cmake")
  file(WRITE "${file}" "${manifest}")
  add_custom_target(tc_layer_check ALL
    COMMAND ${CMAKE_COMMAND} -DROOT=${PROJECT_SOURCE_DIR} -DMANIFEST=${file}
            -P ${TC_LAYER_CHECK_SCRIPT}
    COMMENT "Checking that no #include reaches a layer its library does not link"
    VERBATIM)
endfunction()
