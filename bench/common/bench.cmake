# bench/common/bench.cmake: what every benchmark project under bench/ shares,
# included right after its project() line: a Release build unless told
# otherwise, warnings on, libstreamtp pulled in from the repository's root
# (tests off) as streamtp_lib, and stp_bench_executable(NAME SOURCES...)
# for a benchmark program that includes the library's private headers.
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE Release CACHE STRING "Build type" FORCE)
endif()

add_compile_options(-Wall -Wextra)
get_filename_component(STP_ROOT ${CMAKE_CURRENT_LIST_DIR}/../.. ABSOLUTE)
set(STP_BUILD_TESTS OFF CACHE BOOL "" FORCE)
add_subdirectory(${STP_ROOT} streamtp)

function(stp_bench_executable name)
  add_executable(${name} ${ARGN})
  target_include_directories(${name} PRIVATE ${STP_ROOT})
  target_compile_definitions(${name} PRIVATE _POSIX_C_SOURCE=200809L)
  target_link_libraries(${name} PRIVATE streamtp_lib)
endfunction()
