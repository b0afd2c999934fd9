# ctest `install_layout`: `cmake --install` puts what a Linux desktop needs where it looks:
# bin/fathom and bin/fathom-gui (the GUI finds the CLI beside itself), the freedesktop entry
# and the scalable icon it names. Run as: cmake -DBUILD=... -DPREFIX=... -P install_layout.cmake
file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD}" --prefix "${PREFIX}"
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed: ${rc}")
endif()
foreach(f bin/fathom bin/fathom-gui share/applications/fathom.desktop
          share/icons/hicolor/scalable/apps/fathom.svg)
  if(NOT EXISTS "${PREFIX}/${f}")
    message(FATAL_ERROR "not installed: ${PREFIX}/${f}")
  endif()
endforeach()
file(READ "${PREFIX}/share/applications/fathom.desktop" entry)
foreach(line "Exec=fathom-gui" "Icon=fathom" "Type=Application")
  string(FIND "${entry}" "${line}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "fathom.desktop lacks '${line}'")
  endif()
endforeach()
find_program(VALIDATE desktop-file-validate)
if(VALIDATE)
  execute_process(COMMAND "${VALIDATE}" "${PREFIX}/share/applications/fathom.desktop"
                  RESULT_VARIABLE vrc OUTPUT_VARIABLE vout ERROR_VARIABLE vout)
  if(NOT vrc EQUAL 0)
    message(FATAL_ERROR "desktop-file-validate: ${vout}")
  endif()
endif()
file(REMOVE_RECURSE "${PREFIX}")
message(STATUS "installed layout complete")
