# The walls between the library's layers. Sources include each other as "layer/file.hpp" from
# src/; a target given tessera_walls(target layer...) sees src/ only through a folder of its own
# in the build tree holding links to the layers it may use, so an include of any other layer
# fails to compile.
function(tessera_walls target)
  set(dir ${CMAKE_BINARY_DIR}/walls/${target})
  file(MAKE_DIRECTORY ${dir})
  # Drop links of an earlier configuration (file(REMOVE) removes the link, not what it names).
  file(GLOB old RELATIVE ${dir} ${dir}/*)
  foreach(entry IN LISTS old)
    if(NOT entry IN_LIST ARGN)
      file(REMOVE ${dir}/${entry})
    endif()
  endforeach()
  foreach(layer IN LISTS ARGN)
    if(NOT EXISTS ${dir}/${layer})
      file(CREATE_LINK ${PROJECT_SOURCE_DIR}/src/${layer} ${dir}/${layer} SYMBOLIC)
    endif()
  endforeach()
  target_include_directories(${target} PRIVATE ${dir})
endfunction()
