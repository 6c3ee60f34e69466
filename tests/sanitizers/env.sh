# Sanitizer runtime options for plugline's sanitizer builds (docs/testing.md). Source it before
# running the tests of a PLUGLINE_SANITIZE build by hand; scripts/test-all.sh does:
#   . tests/sanitizers/env.sh && ctest --test-dir build-san
# Every finding fails the run: AddressSanitizer and ThreadSanitizer stop the process at the
# first report (halt_on_error), UBSan aborts (the code is built with -fno-sanitize-recover).
_plugline_sanitizers_dir=$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")" && pwd)
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:check_initialization_order=1:strict_init_order=1:abort_on_error=0"
export LSAN_OPTIONS="suppressions=${_plugline_sanitizers_dir}/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export TSAN_OPTIONS="suppressions=${_plugline_sanitizers_dir}/tsan.supp:halt_on_error=1:second_deadlock_stack=1:history_size=4"
unset _plugline_sanitizers_dir
