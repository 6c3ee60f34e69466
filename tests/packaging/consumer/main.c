/* A minimal C11 host of plugline, built by the packaging tests three ways: against an installed
 * plugline through find_package and through pkg-config, and against plugline's source tree
 * through add_subdirectory. It uses nothing but <plugline/plugline.h>.
 *
 * usage: consumer HOME_DIR [--js]
 *   HOME_DIR  an existing, empty directory used as the plugline home
 *   --js      also run a JS function, to check that the V8 backend is found beside the library
 *
 * Prints one line per failed check on stderr and exits 1 if any failed. */
#include <plugline/plugline.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONSUMER_STR_(x) #x
#define CONSUMER_STR(x) CONSUMER_STR_(x)
#define HEADER_VERSION                                                                  \
  CONSUMER_STR(PLUGLINE_VERSION_MAJOR)                                                  \
  "." CONSUMER_STR(PLUGLINE_VERSION_MINOR) "." CONSUMER_STR(PLUGLINE_VERSION_PATCH)

#define LINE_COUNT 500

static int failures = 0;

static void fail(const char *what, const char *detail) {
  fprintf(stderr, "consumer: FAILED: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  failures++;
}

static void fail_status(const char *call, int status) {
  char detail[1024];
  snprintf(detail, sizeof detail, "%s (%s)", plugline_status_str(status),
           plugline_last_error_message());
  fail(call, detail);
}

/* Copies the value of the JSON string member "key" of `json` into a new buffer, or returns NULL
 * when the member is absent or not a string. Enough for paths (no escapes are decoded). */
static char *json_string_member(const char *json, const char *key) {
  char pattern[64];
  const char *start;
  const char *end;
  char *value;
  snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
  start = strstr(json, pattern);
  if (start == NULL) return NULL;
  start += strlen(pattern);
  end = strchr(start, '"');
  if (end == NULL) return NULL;
  value = malloc((size_t)(end - start) + 1);
  if (value == NULL) return NULL;
  memcpy(value, start, (size_t)(end - start));
  value[end - start] = '\0';
  return value;
}

static void check_versions(void) {
  char numbers[64];
  if (strcmp(plugline_version_string(), HEADER_VERSION) != 0) {
    char detail[256];
    snprintf(detail, sizeof detail, "library %s, header %s", plugline_version_string(),
             HEADER_VERSION);
    fail("plugline_version_string() == PLUGLINE_VERSION_*", detail);
  }
  snprintf(numbers, sizeof numbers, "%d.%d.%d", plugline_version_major(),
           plugline_version_minor(), plugline_version_patch());
  if (strcmp(numbers, HEADER_VERSION) != 0) {
    fail("plugline_version_major/minor/patch() == PLUGLINE_VERSION_*", numbers);
  }
  if (plugline_abi_version() != PLUGLINE_ABI_VERSION) {
    fail("plugline_abi_version() == PLUGLINE_ABI_VERSION", NULL);
  }
}

static void check_shape(const char *home) {
  plugline_config *config = NULL;
  plugline_host *host = NULL;
  char *output = NULL;
  size_t output_len = 0;
  char *json = NULL;
  size_t json_len = 0;
  char *raw_path = NULL;
  FILE *raw = NULL;
  const char *command = "./build.sh --all";
  int status;
  int i;

  status = plugline_config_new(&config);
  if (status != PLUGLINE_OK) {
    fail_status("plugline_config_new", status);
    return;
  }
  status = plugline_config_set_home(config, home);
  if (status != PLUGLINE_OK) fail_status("plugline_config_set_home", status);
  status = plugline_host_new(&host, config);
  plugline_config_free(config);
  if (status != PLUGLINE_OK) {
    fail_status("plugline_host_new", status);
    return;
  }

  output = malloc(LINE_COUNT * 64);
  if (output == NULL) {
    fail("malloc", NULL);
    plugline_host_free(host);
    return;
  }
  for (i = 1; i <= LINE_COUNT; ++i) {
    output_len += (size_t)sprintf(output + output_len, "step %d of %d: compiled unit_%d.o\n", i,
                                  LINE_COUNT, i);
  }

  status = plugline_host_shape(&json, &json_len, host, command, strlen(command), output,
                               output_len, 0, NULL);
  if (status != PLUGLINE_OK) {
    fail_status("plugline_host_shape", status);
  } else {
    if (json_len != strlen(json)) fail("plugline_host_shape: *out_len == strlen(json)", NULL);
    if (strstr(json, "\"render_mode\":\"summary\"") == NULL) {
      fail("shaping 500 lines gives \"render_mode\":\"summary\"", json);
    }
    raw_path = json_string_member(json, "raw_path");
    if (raw_path == NULL) {
      fail("the result names a raw_path", json);
    } else if (strncmp(raw_path, home, strlen(home)) != 0) {
      fail("raw_path lies under the home directory", raw_path);
    } else if ((raw = fopen(raw_path, "rb")) == NULL) {
      fail("raw_path can be opened", raw_path);
    } else {
      long size;
      fseek(raw, 0, SEEK_END);
      size = ftell(raw);
      fclose(raw);
      if (size != (long)output_len) fail("raw_path holds the whole output", raw_path);
    }
    printf("consumer: shaped %d lines (%lu bytes) into %lu bytes of JSON; raw output at %s\n",
           LINE_COUNT, (unsigned long)output_len, (unsigned long)json_len,
           raw_path ? raw_path : "(none)");
  }
  free(raw_path);
  plugline_free(json);
  free(output);
  plugline_host_free(host);
}

/* Runs `export default (a, b) => a + b` through the V8 backend: proves that libplugline.so finds
 * libplugline-v8.so where it was installed (or built) beside it, and that the backend loads. */
static void check_js(const char *home) {
  char path[4096];
  FILE *module;
  char *json = NULL;
  size_t json_len = 0;
  int status;

  snprintf(path, sizeof path, "%s/add.mjs", home);
  module = fopen(path, "w");
  if (module == NULL) {
    fail("writing the JS module", path);
    return;
  }
  fputs("export default (a, b) => a + b;\n", module);
  fclose(module);

  status = plugline_js_call(&json, &json_len, path, NULL, "[2,3]", 5, 10000);
  if (status != PLUGLINE_OK) {
    fail_status("plugline_js_call (is the V8 backend installed beside libplugline.so?)", status);
    return;
  }
  if (strcmp(json, "5") != 0) fail("plugline_js_call of (a, b) => a + b on [2,3] gives 5", json);
  printf("consumer: JS (2 + 3) = %s\n", json);
  plugline_free(json);
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "--js") != 0)) {
    fprintf(stderr, "usage: %s HOME_DIR [--js]\n", argv[0]);
    return 2;
  }
  printf("consumer: plugline %s (header %s, ABI %d)\n", plugline_version_string(), HEADER_VERSION,
         plugline_abi_version());
  check_versions();
  check_shape(argv[1]);
  if (argc == 3) check_js(argv[1]);
  if (failures != 0) {
    fprintf(stderr, "consumer: %d check(s) failed\n", failures);
    return 1;
  }
  printf("consumer: all checks passed\n");
  return 0;
}
