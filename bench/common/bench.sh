# bench/common/bench.sh: sourced by the run.sh of each benchmark project
# under bench/ (a CMakeLists.txt including bench.cmake beside it).
#   bench_build NAME [TARGET]  configure and build bench/NAME, Release, into
#                              bench/out/build-NAME (set as $build)
#   bench_machine              the line every table of numbers starts with:
#                              the processor, its cores, the date and the load
bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

bench_build() {
  build=$bench_dir/out/build-$1
  cmake -S "$bench_dir/$1" -B "$build" -DCMAKE_BUILD_TYPE=Release > /dev/null
  cmake --build "$build" -j2 ${2:+--target "$2"} > /dev/null
}

bench_machine() {
  echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(date +%F), load $(cut -d' ' -f1-3 /proc/loadavg)."
}
