# AUTOMOC gives moc the target's include directories and the compiler's implicit ones. moc
# follows every #include it can find, so each file it reads also parses the C++ standard library
# behind Qt's headers, though nothing a Q_OBJECT class needs is declared there: the desktop app's
# 32 test files took 59 s of CPU in moc, 24 s without the standard library's and the compiler's
# own directories, and the library's 27 files 23 s against 12 s -- with the same files written,
# byte for byte (docs/performance.md, "Clean build time"). /usr/include stays: qcustomplot.h is
# there, and the Qt headers it includes ask moc for includes of their own (Q_MOC_INCLUDE).
# fathom_moc_without_system_headers(target) runs the target's moc through a wrapper that drops
# those directories from moc's command line.
function(fathom_moc_without_system_headers target)
  if(NOT TARGET Qt6::moc OR CMAKE_VERSION VERSION_LESS 3.20)  # configure_file's permissions
    return()
  endif()
  set(cases "")
  foreach(dir IN LISTS CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
    if(dir MATCHES "/c\\+\\+/|/(gcc|clang)/")  # libstdc++/libc++; the compiler's intrinsics
      list(APPEND cases "\"-I${dir}\"")
    endif()
  endforeach()
  if(NOT cases)
    return()  # nothing to drop: moc as AUTOMOC finds it
  endif()
  list(JOIN cases "|" FATHOM_MOC_DROPPED_INCLUDES)
  get_target_property(FATHOM_MOC_EXECUTABLE Qt6::moc LOCATION)
  set(script ${PROJECT_BINARY_DIR}/moc_without_system_headers.sh)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/moc_without_system_headers.sh.in ${script} @ONLY
                 FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                                  WORLD_READ WORLD_EXECUTE)
  set_target_properties(${target} PROPERTIES AUTOMOC_EXECUTABLE ${script})
endfunction()
