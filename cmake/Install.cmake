# Install.cmake: what `cmake --install` puts in place (docs/guide/install.md):
#   lib/      libstreamtp.so.X.Y.Z (SONAME libstreamtp.so.MAJOR), libstreamtp.a,
#             pkgconfig/streamtp.pc, cmake/streamtp/ (find_package(streamtp))
#   include/streamtp/   the public headers (#include <streamtp/streamtp.h>)
#   bin/streamtp        with a RUNPATH to ../lib, so it runs from any prefix
#   share/man/man1/streamtp.1, share/bash-completion/completions/streamtp:
#             both generated at build time from the command's --help texts
#             (scripts/cli-docs.py), the one source of the options
#   share/doc/streamtp/ README.md, NEWS.md, docs/*.md, docs/guide/*.md
#   the Python module streamtp (python/streamtp, ctypes over the shared
#             library) in STP_PYTHON_DIR, with the library's directory
#             recorded in streamtp/_config.py
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set_target_properties(streamtp_shared PROPERTIES EXPORT_NAME streamtp)
set_target_properties(streamtp_lib PROPERTIES EXPORT_NAME streamtp_static)
# $ORIGIN: the binary finds its library wherever the prefix is moved.
set_target_properties(streamtp PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")

install(TARGETS streamtp_shared streamtp_lib EXPORT streamtpTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS streamtp RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
file(GLOB STP_PUBLIC_HEADERS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/include/streamtp*.h)
install(FILES ${STP_PUBLIC_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/streamtp)

install(EXPORT streamtpTargets NAMESPACE streamtp::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/streamtp)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/streamtpConfig.cmake.in
  ${PROJECT_BINARY_DIR}/streamtpConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/streamtp)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/streamtpConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/streamtpConfig.cmake
              ${PROJECT_BINARY_DIR}/streamtpConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/streamtp)

# pkg-config: the prefix is substituted at install time, so that
# `cmake --install build --prefix P` writes P into the file.
set(CMAKE_DL_LIBS_FLAG "")
if(CMAKE_DL_LIBS)
  set(CMAKE_DL_LIBS_FLAG "-l${CMAKE_DL_LIBS}")
endif()
# A library built with PETSc (docs/cluster.md) needs it, SLEPc and MPI too:
# their shared libraries (Debian's PETSc.pc lists, for --static, archives
# that Debian does not ship, so it is not a Requires.private).
set(STP_PC_LIBS_EXTRA "")
if(STP_PETSC)
  set(extra ${SLEPC_LDFLAGS} ${PETSC_LDFLAGS})
  foreach(lib ${MPI_C_LIBRARIES}) # /path/libmpi.so -> -L/path -lmpi
    get_filename_component(dir ${lib} DIRECTORY)
    get_filename_component(name ${lib} NAME_WE)
    string(REGEX REPLACE "^lib" "" name ${name})
    list(APPEND extra "-L${dir}" "-l${name}")
  endforeach()
  list(REMOVE_DUPLICATES extra)
  list(JOIN extra " " extra)
  set(STP_PC_LIBS_EXTRA " ${extra}")
endif()
set(STP_PREFIX "@STP_PREFIX@") # kept for the install step below
configure_file(${PROJECT_SOURCE_DIR}/cmake/streamtp.pc.in ${PROJECT_BINARY_DIR}/streamtp.pc.in2 @ONLY)
install(CODE "
  file(READ \"${PROJECT_BINARY_DIR}/streamtp.pc.in2\" pc)
  string(REPLACE \"@STP_PREFIX@\" \"\${CMAKE_INSTALL_PREFIX}\" pc \"\${pc}\")
  file(WRITE \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig/streamtp.pc\" \"\${pc}\")
  message(STATUS \"Installing: \$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig/streamtp.pc\")
")

# Man page and bash completion from the help texts of the built command.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
set(STP_CLI_DOCS ${PROJECT_SOURCE_DIR}/scripts/cli-docs.py)
add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/streamtp.1
  COMMAND ${Python3_EXECUTABLE} ${STP_CLI_DOCS} man $<TARGET_FILE:streamtp> ${PROJECT_BINARY_DIR}/streamtp.1
  DEPENDS streamtp ${STP_CLI_DOCS} COMMENT "Generating the man page streamtp.1" VERBATIM)
add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/streamtp.bash-completion
  COMMAND ${Python3_EXECUTABLE} ${STP_CLI_DOCS} bash $<TARGET_FILE:streamtp>
          ${PROJECT_BINARY_DIR}/streamtp.bash-completion
  DEPENDS streamtp ${STP_CLI_DOCS} COMMENT "Generating the bash completion of streamtp" VERBATIM)
add_custom_target(streamtp_cli_docs ALL DEPENDS ${PROJECT_BINARY_DIR}/streamtp.1
                  ${PROJECT_BINARY_DIR}/streamtp.bash-completion)
install(FILES ${PROJECT_BINARY_DIR}/streamtp.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${PROJECT_BINARY_DIR}/streamtp.bash-completion
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME streamtp)
# The documentation keeps the tree's layout, so that the README's links to
# docs/guide/*.md and docs/format.md work in the installed copy too.
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/NEWS.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/docs/format.md ${PROJECT_SOURCE_DIR}/docs/design.md
              ${PROJECT_SOURCE_DIR}/docs/development.md ${PROJECT_SOURCE_DIR}/docs/cluster.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/guide DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs
        FILES_MATCHING PATTERN "*.md")

# The Python module, for Debian's python3: /usr/lib/python3/dist-packages
# under /usr, lib/python3.X/dist-packages under any other prefix (both are
# on its sys.path for /usr and /usr/local).
find_program(STP_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT STP_PYTHON3)
  set(STP_PYTHON3 ${Python3_EXECUTABLE})
endif()
execute_process(COMMAND ${STP_PYTHON3} -c "import sys; print('%d.%d' % sys.version_info[:2])"
                OUTPUT_VARIABLE STP_PYTHON3_VERSION OUTPUT_STRIP_TRAILING_WHITESPACE)
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(STP_PYTHON_DIR_DEFAULT lib/python3/dist-packages)
else()
  set(STP_PYTHON_DIR_DEFAULT lib/python${STP_PYTHON3_VERSION}/dist-packages)
endif()
set(STP_PYTHON_DIR ${STP_PYTHON_DIR_DEFAULT} CACHE STRING "Where the Python module goes (relative to the prefix)")
file(GLOB STP_PYTHON_FILES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/python/streamtp/*.py)
install(FILES ${STP_PYTHON_FILES} DESTINATION ${STP_PYTHON_DIR}/streamtp)
install(CODE "
  set(dir \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${STP_PYTHON_DIR}/streamtp\")
  file(WRITE \"\${dir}/_config.py\"
       \"# Written by cmake --install: where libstreamtp and streamtp were installed.\\nLIBDIR = '\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}'\\nBINDIR = '\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}'\\n\")
  message(STATUS \"Installing: \${dir}/_config.py\")
  cmake_policy(SET CMP0057 NEW) # if(IN_LIST) in this install script
  # Say so when the interpreter would not find the module (a private prefix,
  # or DESTDIR): the one line that makes it work.
  execute_process(COMMAND ${STP_PYTHON3} -c \"import sys; print(chr(10).join(sys.path))\"
                  OUTPUT_VARIABLE path OUTPUT_STRIP_TRAILING_WHITESPACE)
  string(REPLACE \"\\n\" \";\" path \"\${path}\")
  get_filename_component(site \"\${CMAKE_INSTALL_PREFIX}/${STP_PYTHON_DIR}\" ABSOLUTE)
  if(NOT \"\${site}\" IN_LIST path)
    message(STATUS \"Python: ${STP_PYTHON3} does not look in \${site}; use PYTHONPATH=\${site} (docs/guide/install.md)\")
  endif()
")
