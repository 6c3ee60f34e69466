/* Links libplugline.so through the Conan package and checks that the library found at run time
 * is the one whose header was compiled in. */
#include <plugline/plugline.h>

#include <stdio.h>
#include <string.h>

#define STR_(x) #x
#define STR(x) STR_(x)
#define HEADER_VERSION \
  STR(PLUGLINE_VERSION_MAJOR) "." STR(PLUGLINE_VERSION_MINOR) "." STR(PLUGLINE_VERSION_PATCH)

int main(void) {
  const char *library_version = plugline_version_string();
  printf("plugline %s (header %s, ABI %d)\n", library_version, HEADER_VERSION,
         plugline_abi_version());
  if (strcmp(library_version, HEADER_VERSION) != 0 ||
      plugline_abi_version() != PLUGLINE_ABI_VERSION) {
    fprintf(stderr, "test_package: library and header disagree\n");
    return 1;
  }
  return 0;
}
