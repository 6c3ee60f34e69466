/* A minimal exec hook plugin in C, so hooks_benchmark measures plugline's own cost of a call
 * rather than an interpreter's start-up.
 *   hook_echo_plugin oneshot      read the payload to EOF, answer {}
 *   hook_echo_plugin persistent   answer every request line {"id":N,...} with {"id":N} */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  static char line[1 << 20];
  if (argc > 1 && strcmp(argv[1], "persistent") == 0) {
    while (fgets(line, sizeof line, stdin) != NULL) {
      const char *id = strstr(line, "\"id\":");
      if (id == NULL) continue;
      printf("{\"id\":%lld}\n", strtoll(id + 5, NULL, 10));
      fflush(stdout);
    }
    return 0;
  }
  while (fread(line, 1, sizeof line, stdin) > 0) {
  }
  fputs("{}\n", stdout);
  return 0;
}
