# The layer check: cmake -DROOT=<source root> -DMANIFEST=<tc_layers.cmake> -P check_layers.cmake
# Fails (exit 1), naming file, line and both layers, when a file of a registered folder includes
# a header of another registered folder whose target its own target does not link. The manifest
# (written by tc_layer_check() in cmake/layers.cmake) sets TC_LAYER_DIRS and, per folder,
# TC_LAYER_TARGET_<dir> and TC_LAYER_ALLOWED_<dir>. Plain CMake, so the check needs nothing the
# build does not already have.
cmake_minimum_required(VERSION 3.22)
include("${MANIFEST}")

# The deepest registered folder holding `path` (a folder relative to ROOT), or "" for none.
function(owner path out)
  set(best "")
  foreach(dir IN LISTS TC_LAYER_DIRS)
    string(LENGTH "${dir}" n)
    string(LENGTH "${best}" best_n)
    if(n GREATER best_n AND (path STREQUAL dir OR path MATCHES "^${dir}/"))
      set(best "${dir}")
    endif()
  endforeach()
  set(${out} "${best}" PARENT_SCOPE)
endfunction()

# The 1-based line of the first occurrence of `needle` in `text`.
function(line_of text needle out)
  string(FIND "${text}" "${needle}" at)
  string(SUBSTRING "${text}" 0 ${at} before)
  string(REGEX MATCHALL "\n" newlines "${before}")
  list(LENGTH newlines n)
  math(EXPR n "${n} + 1")
  set(${out} ${n} PARENT_SCOPE)
endfunction()

set(refused "")
foreach(dir IN LISTS TC_LAYER_DIRS)
  file(GLOB_RECURSE files RELATIVE "${ROOT}" "${ROOT}/${dir}/*.c" "${ROOT}/${dir}/*.cc"
    "${ROOT}/${dir}/*.h")
  foreach(file IN LISTS files)
    get_filename_component(file_dir "${file}" DIRECTORY)
    owner("${file_dir}" from)
    if(NOT from STREQUAL dir)
      continue()  # a registered sub-folder's file: checked as that folder's
    endif()
    file(READ "${ROOT}/${file}" text)
    string(REGEX MATCHALL "(^|\n)[ \t]*#[ \t]*include[ \t]*\"[^\"\n]+\"" includes "${text}")
    foreach(line IN LISTS includes)
      string(REGEX REPLACE ".*\"([^\"]+)\"$" "\\1" header "${line}")
      get_filename_component(header_dir "${header}" DIRECTORY)
      owner("${header_dir}" to)
      if(to STREQUAL "" OR "${to}" IN_LIST TC_LAYER_ALLOWED_${from})
        continue()
      endif()
      string(REGEX REPLACE "^\n" "" directive "${line}")
      line_of("${text}" "${directive}" n)
      string(APPEND refused "\n  ${file}:${n}: includes ${header}: ${from} (${TC_LAYER_TARGET_${from}})"
        " does not link ${to} (${TC_LAYER_TARGET_${to}})")
    endforeach()
  endforeach()
endforeach()

if(refused)
  message(FATAL_ERROR "Layer check: an include reaches a layer that its library does not link"
    " (docs/layers.md):${refused}")
endif()
