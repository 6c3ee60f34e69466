# Sanitizer runtime options for plugline's sanitizer builds (docs/testing.md). Source it before
# running the tests of a PLUGLINE_SANITIZE build by hand; scripts/test-all.sh does:
#   . tests/sanitizers/env.sh && ctest --test-dir build-san
# Every finding fails the run: AddressSanitizer and ThreadSanitizer stop the process at the
# first report (halt_on_error), UBSan aborts (the code is built with -fno-sanitize-recover).
_plugline_sanitizers_dir=$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")" && pwd)
# intercept_tls_get_addr=0: the runtime of Debian's clang 14 takes a dynamic TLS block (of a
# library loaded with dlopen: the V8 backend, and the libnode it brings) that lies
# sizeof(header) past a page boundary for one with the header glibc stopped writing in 2.25,
# reads a range from before it, and LeakSanitizer's tracer dies scanning that range at exit
# ("Tracer caught signal 11 ... LeakSanitizer has encountered a fatal error") after the test
# passed. Where the block lands depends on the binary's layout. With the option, memory reachable
# only from dynamic TLS is not scanned for leaks.
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:check_initialization_order=1:strict_init_order=1:abort_on_error=0:intercept_tls_get_addr=0"
export LSAN_OPTIONS="suppressions=${_plugline_sanitizers_dir}/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export TSAN_OPTIONS="suppressions=${_plugline_sanitizers_dir}/tsan.supp:halt_on_error=1:second_deadlock_stack=1:history_size=4"
unset _plugline_sanitizers_dir
