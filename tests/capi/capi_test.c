/* The C ABI from C11 (-pedantic -Werror): every function, with good and NULL arguments. */
#define _POSIX_C_SOURCE 200809L
#include <plugline/plugline.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int failures = 0;

#define EXPECT(cond)                                                      \
  do {                                                                    \
    if (!(cond)) {                                                        \
      fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                         \
    }                                                                     \
  } while (0)

#define EXPECT_STATUS(expr, code)                                                    \
  do {                                                                               \
    plugline_status got_ = (expr);                                                   \
    if (got_ != (code)) {                                                            \
      fprintf(stderr, "%s:%d: %s returned %s, expected %s (%s)\n", __FILE__, __LINE__, \
              #expr, plugline_status_str(got_), plugline_status_str(code),           \
              plugline_last_error_message());                                        \
      ++failures;                                                                    \
    }                                                                                \
  } while (0)

static uint64_t count_bytes(const char *text, size_t len, void *user_data) {
  int *calls = (int *)user_data;
  (void)text;
  ++*calls;
  return (uint64_t)len;
}

static int freed = 0;
static void free_counter(void *user_data) {
  (void)user_data;
  ++freed;
}

static void test_versions(void) {
  char expected[32];
  snprintf(expected, sizeof expected, "%d.%d.%d", PLUGLINE_VERSION_MAJOR, PLUGLINE_VERSION_MINOR,
           PLUGLINE_VERSION_PATCH);
  EXPECT(plugline_version_major() == PLUGLINE_VERSION_MAJOR);
  EXPECT(plugline_version_minor() == PLUGLINE_VERSION_MINOR);
  EXPECT(plugline_version_patch() == PLUGLINE_VERSION_PATCH);
  EXPECT(strcmp(plugline_version_string(), expected) == 0);
  EXPECT(plugline_abi_version() == PLUGLINE_ABI_VERSION);
}

static void test_status_strings(void) {
  EXPECT(strcmp(plugline_status_str(PLUGLINE_OK), "PLUGLINE_OK") == 0);
  EXPECT(strcmp(plugline_status_str(PLUGLINE_EINVALID), "PLUGLINE_EINVALID") == 0);
  EXPECT(strcmp(plugline_status_str(PLUGLINE_EPLUGIN), "PLUGLINE_EPLUGIN") == 0);
  EXPECT(strcmp(plugline_status_str(12345), "PLUGLINE_UNKNOWN") == 0);
  EXPECT(plugline_last_error_message() != NULL);
  /* Frozen values: changing one breaks every compiled host. */
  EXPECT(PLUGLINE_EINVALID == -1 && PLUGLINE_ENOTFOUND == -2 && PLUGLINE_ETIMEOUT == -5);
  EXPECT(PLUGLINE_EINTERNAL == -11 && PLUGLINE_EPLUGIN == -12);
}

static void test_null_arguments(void) {
  plugline_config *config = NULL;
  char *json = NULL;
  size_t len = 0;
  EXPECT_STATUS(plugline_config_new(NULL), PLUGLINE_EINVALID);
  EXPECT(strstr(plugline_last_error_message(), "out must not be NULL") != NULL);
  EXPECT_STATUS(plugline_config_set_home(NULL, "/tmp"), PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_config_set_project_dir(NULL, "/tmp"), PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_config_set_project_trust(NULL, PLUGLINE_PROJECT_TRUST_TRUSTED),
                PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_config_set_store_outputs(NULL, 1), PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_config_set_record_stats(NULL, 1), PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_host_stats(&json, &len, NULL), PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_host_stats(NULL, &len, NULL), PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_host_plugins(&json, &len, NULL), PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_host_plugins(NULL, &len, NULL), PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_host_reload(NULL), PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_config_set_token_counter(NULL, count_bytes, NULL, NULL),
                PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_host_new(NULL, NULL), PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_host_diagnostics(&json, &len, NULL), PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_host_diagnostics(NULL, &len, NULL), PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_host_shape(&json, &len, NULL, "ls", 2, "x", 1, 0, NULL),
                PLUGLINE_EINVALID);
  EXPECT(strstr(plugline_last_error_message(), "host must not be NULL") != NULL);
  EXPECT_STATUS(plugline_host_dispatch(&json, &len, NULL, "turn_end", "{}", 2), PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_host_trigger(&json, &len, NULL, "x", "{}", 2, "{}", 2), PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_host_tools(&json, &len, NULL, NULL), PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_host_execute_tool(&json, &len, NULL, "x", "{}", 2, NULL, 0),
                PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_reply_set(NULL, "{}", 2), PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_config_set_client(NULL, NULL, NULL, NULL), PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_config_set_server_url(NULL, "x"), PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_config_set_plugin_config(NULL, "{}"), PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_host_add_hook(NULL, NULL, NULL, NULL, NULL), PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_host_remove_hook(NULL, "x"), PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_hook_answer_set(NULL, "{}", 2), PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_hook_answer_fail(NULL, "x"), PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_js_call(&json, &len, NULL, "f", "[]", 2, 0), PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_js_call(NULL, &len, "/x.js", "f", "[]", 2, 0), PLUGLINE_EINVALID);
  EXPECT(json == NULL); /* out-parameters untouched on error */
  plugline_config_free(NULL);
  plugline_host_free(NULL);
  plugline_free(NULL);
  (void)config;
}

static void make_home(char *buf, size_t size) {
  const char *tmp = getenv("TMPDIR");
  snprintf(buf, size, "%s/plugline-capi-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (mkdtemp(buf) == NULL) {
    perror("mkdtemp");
    exit(2);
  }
}

static char *numbered_output(int lines, size_t *len) {
  char *out = malloc((size_t)lines * 16 + 1);
  size_t pos = 0;
  int i;
  for (i = 1; i <= lines; ++i) pos += (size_t)sprintf(out + pos, "line %d\n", i);
  *len = pos;
  return out;
}

static void test_shape(void) {
  char home[512];
  plugline_config *config = NULL;
  plugline_host *host = NULL;
  char *json = NULL;
  size_t json_len = 0;
  size_t output_len = 0;
  char *output = numbered_output(500, &output_len);
  int calls = 0;
  plugline_shape_options options = PLUGLINE_SHAPE_OPTIONS_INIT;
  static const char binary[] = {'a', '\0', (char)0xff, 'b', '\n'};

  make_home(home, sizeof home);
  EXPECT_STATUS(plugline_config_new(&config), PLUGLINE_OK);
  EXPECT_STATUS(plugline_config_set_home(config, home), PLUGLINE_OK);
  EXPECT_STATUS(plugline_config_set_project_dir(config, NULL), PLUGLINE_OK);
  EXPECT_STATUS(plugline_config_set_store_outputs(config, 1), PLUGLINE_OK);
  EXPECT_STATUS(plugline_config_set_record_stats(config, 1), PLUGLINE_OK);
  EXPECT_STATUS(plugline_config_set_token_counter(config, count_bytes, &calls, free_counter),
                PLUGLINE_OK);
  EXPECT_STATUS(plugline_host_new(&host, config), PLUGLINE_OK);
  plugline_config_free(config); /* the host keeps what it needs */
  EXPECT(freed == 0);

  EXPECT_STATUS(plugline_host_diagnostics(&json, &json_len, host), PLUGLINE_OK);
  EXPECT(json != NULL && strcmp(json, "[]") == 0 && json_len == 2);
  plugline_free(json);
  json = NULL;

  EXPECT_STATUS(plugline_host_shape(&json, &json_len, host, "seq 500", 7, output, output_len, 2, NULL),
                PLUGLINE_OK);
  EXPECT(json != NULL && strlen(json) == json_len);
  if (json != NULL) {
    EXPECT(strstr(json, "\"render_mode\":\"summary\"") != NULL);
    EXPECT(strstr(json, "\"shaper\":\"builtin-generic\"") != NULL);
    /* "line 1" … "line 500": alike but for their numbers, the first and the last shown. */
    EXPECT(strstr(json, "498 lines like the ones around, but for their numbers, omitted") != NULL);
    EXPECT(strstr(json, "\"raw_lines\":500") != NULL);
    EXPECT(strstr(json, "\"fallback\":null") != NULL);
  }
  EXPECT(calls >= 2); /* raw and summary counted by the host's counter */
  plugline_free(json);
  json = NULL;

  /* Forced shaper through the options struct; an unknown one fails with a message. */
  EXPECT(options.struct_size == sizeof options && options.shaper == NULL && options.max_tokens == 0);
  options.shaper = "builtin-generic";
  EXPECT_STATUS(plugline_host_shape(&json, NULL, host, "seq 500", 7, output, output_len,
                                    PLUGLINE_EXIT_CODE_UNKNOWN, &options),
                PLUGLINE_OK);
  plugline_free(json);
  json = NULL;
  options.shaper = "no-such-shaper";
  EXPECT_STATUS(plugline_host_shape(&json, NULL, host, "seq 500", 7, output, output_len, 0, &options),
                PLUGLINE_EINVALID);
  EXPECT(strstr(plugline_last_error_message(), "no-such-shaper") != NULL);
  EXPECT(json == NULL);
  /* A budget of 1 to 199 tokens has no room for a summary: refused, as config.yaml does. */
  options.shaper = NULL;
  options.max_tokens = 150;
  EXPECT_STATUS(plugline_host_shape(&json, NULL, host, "seq 500", 7, output, output_len, 0, &options),
                PLUGLINE_EINVALID);
  EXPECT(strstr(plugline_last_error_message(), "max_tokens 150: expected 0 (no budget) or at "
                                               "least 200") != NULL);
  EXPECT(json == NULL);
  options.max_tokens = 200;
  EXPECT_STATUS(plugline_host_shape(&json, NULL, host, "seq 500", 7, output, output_len, 0, &options),
                PLUGLINE_OK);
  EXPECT(json != NULL && strstr(json, "\"max_tokens\":200") != NULL);
  plugline_free(json);
  json = NULL;
  options.max_tokens = 0;

  /* Bytes with NUL and invalid UTF-8 are fine as output; a non-UTF-8 command is not. */
  EXPECT_STATUS(plugline_host_shape(&json, &json_len, host, "cat", 3, binary, sizeof binary, 0,
                                    NULL),
                PLUGLINE_OK);
  EXPECT(json != NULL && strlen(json) == json_len); /* no raw NUL inside the JSON */
  plugline_free(json);
  json = NULL;
  EXPECT_STATUS(plugline_host_shape(&json, &json_len, host, "c\xff", 2, "x", 1, 0, NULL),
                PLUGLINE_EINVALID);
  EXPECT(strstr(plugline_last_error_message(), "UTF-8") != NULL);
  /* NULL payload with non-zero length is refused; empty output is fine. */
  EXPECT_STATUS(plugline_host_shape(&json, &json_len, host, "x", 1, NULL, 5, 0, NULL),
                PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_host_shape(&json, &json_len, host, "true", 4, NULL, 0, 0, NULL),
                PLUGLINE_OK);
  plugline_free(json);

  /* Every shaping above was counted for builtin-generic. */
  EXPECT_STATUS(plugline_host_stats(&json, &json_len, host), PLUGLINE_OK);
  EXPECT(json != NULL && strstr(json, "\"builtin-generic\"") != NULL);
  EXPECT(json != NULL && strstr(json, "\"shape_count\":5") != NULL);
  plugline_free(json);
  json = NULL;

  EXPECT_STATUS(plugline_host_reload(host), PLUGLINE_OK);
  EXPECT_STATUS(plugline_host_plugins(&json, &json_len, host), PLUGLINE_OK);
  EXPECT(json != NULL && strstr(json, "\"id\":\"builtin-test\",\"kind\":\"builtin-shaper\"") != NULL);
  plugline_free(json);
  json = NULL;

  plugline_host_free(host);
  EXPECT(freed == 1); /* user_data_free ran once, when the last owner went away */
  free(output);
}

/* A native hook that rewrites the command to "ls -la" when it is "ls", denies "rm", and
 * fails on "boom". */
static int hook_calls = 0;
static int hook_freed = 0;
static int guard_hook(const char *event, const char *payload, size_t len,
                      plugline_hook_answer *answer, void *user_data) {
  static const char rewrite[] = "{\"arguments\":\"{\\\"command\\\":\\\"ls -la\\\"}\"}";
  static const char deny[] = "{\"deny\":true,\"reason\":\"no rm\"}";
  (void)event;
  (void)len;
  ++*(int *)user_data;
  if (strstr(payload, "boom") != NULL) {
    plugline_hook_answer_fail(answer, "boom is not allowed to happen");
    return 1;
  }
  if (strstr(payload, "rm ") != NULL) {
    return plugline_hook_answer_set(answer, deny, strlen(deny)) == PLUGLINE_OK ? 0 : 1;
  }
  if (strstr(payload, "\\\"ls\\\"") != NULL) {
    return plugline_hook_answer_set(answer, rewrite, strlen(rewrite)) == PLUGLINE_OK ? 0 : 1;
  }
  return 0;
}
static void free_hook(void *user_data) {
  (void)user_data;
  ++hook_freed;
}

/* A hook that calls back into its own host: refused with PLUGLINE_ESTATE, not re-entered. */
static plugline_status reentry_status = PLUGLINE_OK;
static int reentrant_hook(const char *event, const char *payload, size_t len,
                          plugline_hook_answer *answer, void *user_data) {
  char *json = NULL;
  size_t json_len = 0;
  (void)event;
  (void)payload;
  (void)len;
  (void)answer;
  reentry_status = plugline_host_stats(&json, &json_len, (plugline_host *)user_data);
  plugline_free(json);
  return 0;
}

static void test_reentry(void) {
  char home[512];
  plugline_config *config = NULL;
  plugline_host *host = NULL;
  char *json = NULL;
  size_t len = 0;
  plugline_hook_options options = PLUGLINE_HOOK_OPTIONS_INIT;
  make_home(home, sizeof home);
  EXPECT_STATUS(plugline_config_new(&config), PLUGLINE_OK);
  EXPECT_STATUS(plugline_config_set_home(config, home), PLUGLINE_OK);
  EXPECT_STATUS(plugline_host_new(&host, config), PLUGLINE_OK);
  plugline_config_free(config);
  options.id = "reenter";
  options.events = "*";
  EXPECT_STATUS(plugline_host_add_hook(host, &options, reentrant_hook, host, NULL), PLUGLINE_OK);
  EXPECT_STATUS(plugline_host_dispatch(&json, &len, host, "turn_end", "{}", 2), PLUGLINE_OK);
  plugline_free(json);
  EXPECT(reentry_status == PLUGLINE_ESTATE);
  /* Outside the callback the same call works. */
  EXPECT_STATUS(plugline_host_stats(&json, &len, host), PLUGLINE_OK);
  plugline_free(json);
  plugline_host_free(host);
}

static void test_hooks(void) {
  char home[512];
  plugline_config *config = NULL;
  plugline_host *host = NULL;
  char *json = NULL;
  size_t len = 0;
  plugline_hook_options options = PLUGLINE_HOOK_OPTIONS_INIT;
  static const char ls[] = "{\"tool\":\"terminal\",\"arguments\":\"{\\\"command\\\":\\\"ls\\\"}\"}";
  static const char rm[] = "{\"tool\":\"terminal\",\"arguments\":\"{\\\"command\\\":\\\"rm -rf /\\\"}\"}";
  static const char boom[] = "{\"tool\":\"boom\"}";

  make_home(home, sizeof home);
  EXPECT_STATUS(plugline_config_new(&config), PLUGLINE_OK);
  EXPECT_STATUS(plugline_config_set_home(config, home), PLUGLINE_OK);
  EXPECT_STATUS(plugline_host_new(&host, config), PLUGLINE_OK);
  plugline_config_free(config);

  EXPECT(options.struct_size == sizeof options && options.id == NULL && options.fail_closed == 0);
  options.id = "guard";
  options.events = "[\"pre_tool_call\", \"post_tool_call\"]";
  EXPECT_STATUS(plugline_host_add_hook(host, &options, guard_hook, &hook_calls, free_hook),
                PLUGLINE_OK);
  EXPECT_STATUS(plugline_host_add_hook(host, &options, guard_hook, &hook_calls, free_hook),
                PLUGLINE_EEXISTS);
  options.id = "";
  EXPECT_STATUS(plugline_host_add_hook(host, &options, guard_hook, NULL, NULL), PLUGLINE_EINVALID);
  /* A list that starts as JSON must be a JSON array of strings. */
  options.id = "bad-list";
  options.events = "[\"pre_tool_call\", 3]";
  EXPECT_STATUS(plugline_host_add_hook(host, &options, guard_hook, NULL, NULL), PLUGLINE_EINVALID);
  EXPECT(strstr(plugline_last_error_message(),
                "events: every item must be a string, not a number") != NULL);
  options.events = "[\"pre_tool_call\"";
  EXPECT_STATUS(plugline_host_add_hook(host, &options, guard_hook, NULL, NULL), PLUGLINE_EINVALID);
  /* The comma-separated form of ABI version 1 is still read. */
  options.id = "legacy-list";
  options.events = "session_start, session_end";
  EXPECT_STATUS(plugline_host_add_hook(host, &options, guard_hook, NULL, NULL), PLUGLINE_OK);
  EXPECT_STATUS(plugline_plugins_info(&json, &len, host, "legacy-list"), PLUGLINE_OK);
  EXPECT(json != NULL && strstr(json, "\"events\":[\"session_start\",\"session_end\"]") != NULL);
  plugline_free(json);
  json = NULL;
  EXPECT_STATUS(plugline_plugins_info(&json, &len, host, "guard"), PLUGLINE_OK);
  EXPECT(json != NULL && strstr(json, "\"events\":[\"pre_tool_call\",\"post_tool_call\"]") != NULL);
  plugline_free(json);
  json = NULL;
  EXPECT_STATUS(plugline_host_remove_hook(host, "legacy-list"), PLUGLINE_OK);

  EXPECT_STATUS(plugline_host_dispatch(&json, &len, host, "pre_tool_call", ls, strlen(ls)),
                PLUGLINE_OK);
  EXPECT(json != NULL && strstr(json, "\"arguments\":\"{\\\"command\\\":\\\"ls -la\\\"}\"") != NULL);
  EXPECT(json != NULL && strstr(json, "\"action\":\"rewrite\"") != NULL);
  plugline_free(json);
  json = NULL;

  EXPECT_STATUS(plugline_host_dispatch(&json, &len, host, "pre_tool_call", rm, strlen(rm)),
                PLUGLINE_OK);
  EXPECT(json != NULL && strstr(json, "\"denied\":true,\"denied_by\":\"guard\",\"reason\":\"no rm\"") != NULL);
  plugline_free(json);
  json = NULL;

  EXPECT_STATUS(plugline_host_dispatch(&json, &len, host, "pre_tool_call", boom, strlen(boom)),
                PLUGLINE_OK);
  EXPECT(json != NULL && strstr(json, "boom is not allowed to happen") != NULL);
  EXPECT(json != NULL && strstr(json, "\"denied\":false") != NULL);
  plugline_free(json);
  json = NULL;

  /* Not subscribed: the hook does not run. */
  EXPECT_STATUS(plugline_host_dispatch(&json, &len, host, "turn_end", "{}", 2), PLUGLINE_OK);
  EXPECT(json != NULL && strstr(json, "\"plugins\":[]") != NULL);
  plugline_free(json);
  json = NULL;
  EXPECT(hook_calls == 3);

  EXPECT_STATUS(plugline_host_dispatch(&json, &len, host, "pre_tool_call", "[1]", 3),
                PLUGLINE_EINVALID);
  EXPECT(json == NULL);
  EXPECT_STATUS(plugline_host_plugins(&json, &len, host), PLUGLINE_OK);
  EXPECT(json != NULL && strstr(json, "\"id\":\"guard\",\"kind\":\"native-hook\"") != NULL);
  plugline_free(json);
  json = NULL;

  EXPECT_STATUS(plugline_host_remove_hook(host, "guard"), PLUGLINE_OK);
  EXPECT(hook_freed == 1);
  EXPECT_STATUS(plugline_host_remove_hook(host, "guard"), PLUGLINE_ENOTFOUND);
  plugline_host_free(host);
}

/* Answers with the JSON text its user_data points to; returns what plugline_hook_answer_set
 * returned, so a refused answer is this hook's failure. */
static int answer_with(const char *event, const char *payload, size_t len,
                       plugline_hook_answer *answer, void *user_data) {
  const char *text = (const char *)user_data;
  (void)event;
  (void)payload;
  (void)len;
  return plugline_hook_answer_set(answer, text, strlen(text)) == PLUGLINE_OK ? 0 : 1;
}

/* Answers a reader could take two ways, and keys plugline does not read. */
static void test_hook_answer_faults(void) {
  char home[512];
  plugline_config *config = NULL;
  plugline_host *host = NULL;
  char *json = NULL;
  size_t len = 0;
  plugline_hook_options options;
  static const char twice[] = "{\"deny\":false,\"deny\":true}";
  static const char typo[] = "{\"denied\":true}";

  make_home(home, sizeof home);
  EXPECT_STATUS(plugline_config_new(&config), PLUGLINE_OK);
  EXPECT_STATUS(plugline_config_set_home(config, home), PLUGLINE_OK);
  EXPECT_STATUS(plugline_host_new(&host, config), PLUGLINE_OK);
  plugline_config_free(config);

  memset(&options, 0, sizeof options);
  options.struct_size = sizeof options;
  options.id = "typo";
  options.events = "pre_tool_call";
  EXPECT_STATUS(plugline_host_add_hook(host, &options, answer_with, (void *)typo, NULL),
                PLUGLINE_OK);
  EXPECT_STATUS(plugline_host_dispatch(&json, &len, host, "pre_tool_call", "{}", 2), PLUGLINE_OK);
  EXPECT(json != NULL && strstr(json, "\"denied\":false") != NULL);
  EXPECT(json != NULL &&
         strstr(json, "\"warnings\":[{\"plugin\":\"typo\",\"text\":\"unknown answer key "
                      "\\\"denied\\\" ignored (did you mean \\\"deny\\\"?)\"}]") != NULL);
  plugline_free(json);
  json = NULL;

  /* A duplicate key: plugline_hook_answer_set refuses it, the hook fails, and fails closed. */
  options.id = "twice";
  options.fail_closed = 1;
  EXPECT_STATUS(plugline_host_add_hook(host, &options, answer_with, (void *)twice, NULL),
                PLUGLINE_OK);
  EXPECT_STATUS(plugline_host_dispatch(&json, &len, host, "pre_tool_call", "{}", 2), PLUGLINE_OK);
  EXPECT(json != NULL && strstr(json, "\"denied\":true,\"denied_by\":\"twice\"") != NULL);
  EXPECT(json != NULL && strstr(json, "duplicate key \\\"deny\\\"") != NULL);
  plugline_free(json);
  json = NULL;

  /* A payload with a duplicate key is the host's mistake: refused, nothing runs. */
  EXPECT_STATUS(plugline_host_dispatch(&json, &len, host, "pre_tool_call",
                                       "{\"tool\":\"a\",\"tool\":\"b\"}", 23),
                PLUGLINE_EINVALID);
  EXPECT(json == NULL);
  EXPECT(strstr(plugline_last_error_message(), "duplicate key") != NULL);
  plugline_host_free(host);
}

/* mkdir -p of the directories above `path`, then the file with `content` and `mode`. */
static void write_file(const char *path, const char *content, mode_t mode) {
  char dir[1024];
  char *slash;
  FILE *f;
  snprintf(dir, sizeof dir, "%s", path);
  for (slash = strchr(dir + 1, '/'); slash != NULL; slash = strchr(slash + 1, '/')) {
    *slash = '\0';
    mkdir(dir, 0700);
    *slash = '/';
  }
  f = fopen(path, "w");
  if (f == NULL) {
    perror(path);
    exit(2);
  }
  fputs(content, f);
  fclose(f);
  chmod(path, mode);
}

/* A broken fail-closed exec guard denies and is listed under "broken"; a project's plugin is
 * inert until the project is trusted (here: by the host, PLUGLINE_PROJECT_TRUST_TRUSTED). */
static void test_broken_and_trust(void) {
  char home[512], project[512], path[1024], marker[1024], script[1200];
  plugline_config *config = NULL;
  plugline_host *host = NULL;
  char *json = NULL;
  size_t len = 0;
  static const char rm[] = "{\"tool\":\"terminal\",\"arguments\":\"{\\\"command\\\":\\\"rm\\\"}\"}";

  make_home(home, sizeof home);
  make_home(project, sizeof project);
  snprintf(path, sizeof path, "%s/plugins/guard/plugin.yaml", home);
  write_file(path, "name: guard\ncommand: ./run.sh\nhooks: [pre_tool_call]\non_error: closed\n",
             0644);
  snprintf(path, sizeof path, "%s/plugins/guard/run.sh", home);
  write_file(path, "#!/bin/sh\necho '{}'\n", 0644); /* not executable: broken */
  snprintf(marker, sizeof marker, "%s/ran", project);
  snprintf(path, sizeof path, "%s/.plugline/plugins/p/plugin.yaml", project);
  write_file(path, "name: p\ncommand: ./run.sh\nhooks: [turn_end]\n", 0644);
  snprintf(path, sizeof path, "%s/.plugline/plugins/p/run.sh", project);
  snprintf(script, sizeof script, "#!/bin/sh\ncat >/dev/null\ntouch '%s'\necho '{}'\n", marker);
  write_file(path, script, 0755);

  EXPECT_STATUS(plugline_config_new(&config), PLUGLINE_OK);
  EXPECT_STATUS(plugline_config_set_home(config, home), PLUGLINE_OK);
  EXPECT_STATUS(plugline_config_set_project_dir(config, project), PLUGLINE_OK);
  EXPECT_STATUS(plugline_config_set_project_trust(config, 7), PLUGLINE_EINVALID);
  EXPECT(strstr(plugline_last_error_message(), "PLUGLINE_PROJECT_TRUST_STORE") != NULL);
  EXPECT_STATUS(plugline_host_new(&host, config), PLUGLINE_OK);

  EXPECT_STATUS(plugline_host_dispatch(&json, &len, host, "pre_tool_call", rm, strlen(rm)),
                PLUGLINE_OK);
  EXPECT(json != NULL && strstr(json, "\"denied\":true,\"denied_by\":\"guard\"") != NULL);
  EXPECT(json != NULL && strstr(json, "plugin guard is broken and fails closed") != NULL);
  EXPECT(json != NULL && strstr(json, "\"broken\":[{\"plugin\":\"guard\",\"reason\":") != NULL);
  plugline_free(json);
  json = NULL;
  /* The project is not trusted: its plugin is listed, never started. */
  EXPECT_STATUS(plugline_host_dispatch(&json, &len, host, "turn_end", "{}", 2), PLUGLINE_OK);
  EXPECT(json != NULL && strstr(json, "\"plugins\":[]") != NULL);
  plugline_free(json);
  json = NULL;
  EXPECT(access(marker, F_OK) != 0);
  EXPECT_STATUS(plugline_host_plugins(&json, &len, host), PLUGLINE_OK);
  EXPECT(json != NULL && strstr(json, "\"state\":\"untrusted\"") != NULL);
  plugline_free(json);
  json = NULL;
  EXPECT_STATUS(plugline_host_diagnostics(&json, &len, host), PLUGLINE_OK);
  EXPECT(json != NULL && strstr(json, "is not trusted") != NULL &&
         strstr(json, "plugline trust") != NULL);
  plugline_free(json);
  json = NULL;
  plugline_host_free(host);

  /* The host vouches for the project. */
  EXPECT_STATUS(plugline_config_set_project_trust(config, PLUGLINE_PROJECT_TRUST_TRUSTED),
                PLUGLINE_OK);
  EXPECT_STATUS(plugline_host_new(&host, config), PLUGLINE_OK);
  EXPECT_STATUS(plugline_host_dispatch(&json, &len, host, "turn_end", "{}", 2), PLUGLINE_OK);
  EXPECT(json != NULL && strstr(json, "\"plugins\":[{\"plugin\":\"p\"") != NULL);
  plugline_free(json);
  json = NULL;
  EXPECT(access(marker, F_OK) == 0);
  plugline_host_free(host);
  plugline_config_free(config);
}

/* The client callback: answers app.log with {"logged":true}, fails anything else. */
static int client_calls = 0;
static int client_fn(const char *path, const char *args, size_t len, plugline_reply *reply,
                     void *user_data) {
  static const char logged[] = "{\"logged\":true}";
  static const char refused[] = "\"refused by the host\"";
  (void)args;
  (void)len;
  ++*(int *)user_data;
  if (strcmp(path, "app.log") == 0) {
    plugline_reply_set(reply, logged, strlen(logged));
    return 0;
  }
  plugline_reply_set(reply, refused, strlen(refused));
  return 1;
}

static void test_opencode(void) {
  char home[512];
  char path[700];
  plugline_config *config = NULL;
  plugline_host *host = NULL;
  char *json = NULL;
  size_t len = 0;
  FILE *file;
  static const char plugin[] =
      "import { tool } from '@opencode-ai/plugin';\n"
      "import os from 'node:os';\n"  /* Node's own module: the plugin runs in Node.js */
      "export default async ({ client }) => ({\n"
      "  'chat.params': async (input, output) => {\n"
      "    output.platform = os.platform();\n"
      "    output.logged = await client.app.log({ body: {} });\n"
      "    try { await client.session.abort(); } catch (e) { output.refused = e.message; }\n"
      "  },\n"
      "  tool: { twice: tool({ description: 'Doubles', args: { n: tool.schema.number() },\n"
      "                        async execute(args) { return String(args.n * 2); } }) },\n"
      "});\n";
  make_home(home, sizeof home);
  snprintf(path, sizeof path, "%s/plugins", home);
  EXPECT(mkdir(path, 0700) == 0);
  snprintf(path, sizeof path, "%s/plugins/oc.js", home);
  file = fopen(path, "w");
  EXPECT(file != NULL);
  if (file == NULL) return;
  fputs(plugin, file);
  fclose(file);

  EXPECT_STATUS(plugline_config_new(&config), PLUGLINE_OK);
  EXPECT_STATUS(plugline_config_set_home(config, home), PLUGLINE_OK);
  EXPECT_STATUS(plugline_config_set_client(config, client_fn, &client_calls, NULL), PLUGLINE_OK);
  EXPECT_STATUS(plugline_config_set_server_url(config, "http://127.0.0.1:4096"), PLUGLINE_OK);
  EXPECT_STATUS(plugline_config_set_plugin_config(config, "{\"model\":\"x\"}"), PLUGLINE_OK);
  EXPECT_STATUS(plugline_config_set_plugin_config(config, "[1]"), PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_host_new(&host, config), PLUGLINE_OK);
  plugline_config_free(config);

  EXPECT_STATUS(plugline_host_trigger(&json, &len, host, "chat.params", "{}", 2,
                                      "{\"temperature\":1}", 17),
                PLUGLINE_OK);
#if PLUGLINE_TEST_WITH_V8
  EXPECT(json != NULL && strstr(json, "\"logged\":{\"logged\":true}") != NULL);
  EXPECT(json != NULL && strstr(json, "\"platform\":\"linux\"") != NULL);
  EXPECT(json != NULL && strstr(json, "refused by the host") != NULL);
  EXPECT(client_calls == 2);
#endif
  plugline_free(json);
  json = NULL;
  EXPECT_STATUS(plugline_host_trigger(&json, &len, host, "chat.params", "[]", 2, "{}", 2),
                PLUGLINE_EINVALID);

  EXPECT_STATUS(plugline_host_tools(&json, &len, host, "[\"read\", \"twice\"]"), PLUGLINE_OK);
#if PLUGLINE_TEST_WITH_V8
  EXPECT(json != NULL && strstr(json, "\"name\":\"twice\"") != NULL);
  EXPECT(json != NULL && strstr(json, "\"overrides_builtin\":true") != NULL);
#endif
  plugline_free(json);
  json = NULL;
  EXPECT_STATUS(plugline_host_tools(&json, &len, host, "read,bash"), PLUGLINE_OK);  /* ABI 1's form */
#if PLUGLINE_TEST_WITH_V8
  EXPECT(json != NULL && strstr(json, "\"overrides_builtin\":false") != NULL);
#endif
  plugline_free(json);
  json = NULL;
  EXPECT_STATUS(plugline_host_tools(&json, &len, host, "[\"read\", null]"), PLUGLINE_EINVALID);
#if PLUGLINE_TEST_WITH_V8
  EXPECT_STATUS(plugline_host_execute_tool(&json, &len, host, "twice", "{\"n\":21}", 8, NULL, 0),
                PLUGLINE_OK);
  EXPECT(json != NULL && strstr(json, "\"ok\":true,\"output\":\"42\"") != NULL);
  plugline_free(json);
  json = NULL;
#endif
  EXPECT_STATUS(plugline_host_execute_tool(&json, &len, host, "nope", "{}", 2, NULL, 0),
                PLUGLINE_ENOTFOUND);
  plugline_host_free(host);
}

static void test_js_call(void) {
  char *json = NULL;
  size_t len = 0;
  const char *module = PLUGLINE_TEST_SOURCE_DIR "/js/modules/calc/index.js";
  plugline_status status = plugline_js_call(&json, &len, module, "sum", "[[1,2]]", 7, 0);
#if PLUGLINE_TEST_WITH_V8
  EXPECT_STATUS(status, PLUGLINE_OK);
  EXPECT(json != NULL && strstr(json, "\"total\":3") != NULL);
  plugline_free(json);
  json = NULL;
  EXPECT_STATUS(plugline_js_call(&json, &len, module, "fails", NULL, 0, 0), PLUGLINE_EPLUGIN);
  EXPECT(strstr(plugline_last_error_message(), "RangeError") != NULL);
  EXPECT_STATUS(plugline_js_call(&json, &len, module, "spin", "[]", 2, 100), PLUGLINE_ETIMEOUT);
  EXPECT_STATUS(plugline_js_call(&json, &len, module, "sum", "{", 1, 0), PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_js_call(&json, &len, "/nonexistent/x.js", NULL, "[]", 2, 0),
                PLUGLINE_ENOTFOUND);
#else
  EXPECT_STATUS(status, PLUGLINE_EUNAVAILABLE);
  EXPECT(strstr(plugline_last_error_message(), "PLUGLINE_WITH_V8=OFF") != NULL);
#endif
}

/* An output fed in pieces, larger than the shaping window: bounded memory, whole counts. */
static void test_capture(void) {
  char home[512];
  char config_path[600];
  char line[64];
  plugline_config *config = NULL;
  plugline_host *host = NULL;
  plugline_capture *capture = NULL;
  char *json = NULL;
  size_t json_len = 0;
  plugline_shape_options options;
  FILE *file;
  int i;

  make_home(home, sizeof home);
  /* A 1 MiB window: the 2 MB below are shaped from it. */
  snprintf(config_path, sizeof config_path, "%s/config.yaml", home);
  file = fopen(config_path, "w");
  EXPECT(file != NULL);
  if (file == NULL) return;
  fputs("outputs:\n  window_mb: 1\n", file);
  fclose(file);
  EXPECT_STATUS(plugline_config_new(&config), PLUGLINE_OK);
  EXPECT_STATUS(plugline_config_set_home(config, home), PLUGLINE_OK);
  EXPECT_STATUS(plugline_host_new(&host, config), PLUGLINE_OK);
  plugline_config_free(config);

  EXPECT_STATUS(plugline_capture_new(NULL, host), PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_capture_new(&capture, NULL), PLUGLINE_EINVALID);
  EXPECT(capture == NULL);
  EXPECT_STATUS(plugline_capture_new(&capture, host), PLUGLINE_OK);
  EXPECT(capture != NULL);
  for (i = 1; i <= 100000; ++i) {
    int n = snprintf(line, sizeof line, "step %d of the build is done\n", i);
    if (i == 50000) n = snprintf(line, sizeof line, "error: disk full at step %d\n", i);
    EXPECT_STATUS(plugline_capture_append(capture, line, (size_t)n), PLUGLINE_OK);
  }
  EXPECT_STATUS(plugline_capture_append(capture, NULL, 0), PLUGLINE_OK);
  EXPECT_STATUS(plugline_capture_append(capture, NULL, 3), PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_capture_append(NULL, "x", 1), PLUGLINE_EINVALID);

  /* An unknown shaper, or a budget too small for a summary, leaves the capture usable. */
  options.struct_size = sizeof options;
  options.shaper = "no-such-shaper";
  options.max_tokens = 0;
  EXPECT_STATUS(plugline_capture_finish(&json, &json_len, capture, "make", 4, 2, &options),
                PLUGLINE_EINVALID);
  EXPECT(json == NULL);
  options.shaper = NULL;
  options.max_tokens = 1;
  EXPECT_STATUS(plugline_capture_finish(&json, &json_len, capture, "make", 4, 2, &options),
                PLUGLINE_EINVALID);
  EXPECT(json == NULL);
  EXPECT_STATUS(plugline_capture_finish(&json, &json_len, capture, "make", 4, 2, NULL),
                PLUGLINE_OK);
  EXPECT(json != NULL && strlen(json) == json_len);
  if (json != NULL) {
    EXPECT(strstr(json, "\"raw_lines\":100000") != NULL);
    EXPECT(strstr(json, "error: disk full at step 50000") != NULL);
    EXPECT(strstr(json, "larger than the 1.0 MiB shaping window") != NULL);
    EXPECT(strstr(json, "\"shaped_bytes\":") != NULL);
  }
  plugline_free(json);
  json = NULL;
  EXPECT_STATUS(plugline_capture_finish(&json, &json_len, capture, "make", 4, 2, NULL),
                PLUGLINE_ESTATE);
  EXPECT_STATUS(plugline_capture_append(capture, "x", 1), PLUGLINE_ESTATE);
  plugline_capture_free(capture);
  plugline_capture_free(NULL);
  plugline_host_free(host);
}

static int progress_calls = 0;
static void count_progress(void *user_data, const char *url, uint64_t received, uint64_t total) {
  (void)total;
  if (user_data == &progress_calls && url != NULL && strncmp(url, "file://", 7) == 0 && received > 0) {
    ++progress_calls;
  }
}

/* Managing plugins: enable/disable, and a catalog on file:// (sync, available, install with
 * its checksum checked, info, remove). */
static void test_plugins_management(void) {
  char home[512], path[1024], config_text[2048], index[4096], sha[65] = {0};
  const char *plugin =
      "export default {\n  meta: { name: \"terra\", version: \"1.0.0\", description: \"d\", tier: "
      "\"community\" },\n  match(c) { return { matched: c.startsWith(\"terraform\"), confidence: 0.9 "
      "}; },\n  shape() { return { summary: \"planned\" }; },\n};\n";
  plugline_config *config = NULL;
  plugline_host *host = NULL;
  char *json = NULL;
  size_t len = 0;
  FILE *pipe;
  make_home(home, sizeof home);
  snprintf(path, sizeof path, "%s/www/terra.js", home);
  write_file(path, plugin, 0644);
  snprintf(config_text, sizeof config_text, "sha256sum '%s'", path);
  pipe = popen(config_text, "r");
  EXPECT(pipe != NULL && fread(sha, 1, 64, pipe) == 64);
  if (pipe != NULL) pclose(pipe);
  snprintf(index, sizeof index,
           "{\"catalog\": 1, \"plugins\": [{\"id\": \"terra\", \"version\": \"1.0.0\", \"kind\": "
           "\"js-shaper\", \"url\": \"terra.js\", \"sha256\": \"%s\", \"size\": %u}]}",
           sha, (unsigned)strlen(plugin));
  snprintf(path, sizeof path, "%s/www/index.json", home);
  write_file(path, index, 0644);
  snprintf(config_text, sizeof config_text, "catalog:\n  url: file://%s/www/index.json\n", home);
  snprintf(path, sizeof path, "%s/config.yaml", home);
  write_file(path, config_text, 0644);

  EXPECT_STATUS(plugline_config_new(&config), PLUGLINE_OK);
  EXPECT_STATUS(plugline_config_set_home(config, home), PLUGLINE_OK);
  EXPECT_STATUS(plugline_host_new(&host, config), PLUGLINE_OK);

  /* On and off, built-ins included. */
  EXPECT_STATUS(plugline_plugins_disable(host, "builtin-git-diff"), PLUGLINE_OK);
  EXPECT_STATUS(plugline_plugins_info(&json, &len, host, "builtin-git-diff"), PLUGLINE_OK);
  EXPECT(json != NULL && strstr(json, "\"state\":\"disabled\"") != NULL);
  plugline_free(json);
  json = NULL;
  EXPECT_STATUS(plugline_plugins_enable(host, "builtin-git-diff"), PLUGLINE_OK);
  EXPECT_STATUS(plugline_plugins_info(&json, &len, host, "builtin-git-diff"), PLUGLINE_OK);
  EXPECT(json != NULL && strstr(json, "\"state\":\"enabled\"") != NULL);
  plugline_free(json);
  json = NULL;
  EXPECT_STATUS(plugline_plugins_disable(host, "builtin-git-dif"), PLUGLINE_ENOTFOUND);
  EXPECT(strstr(plugline_last_error_message(), "builtin-git-diff") != NULL);
  EXPECT_STATUS(plugline_plugins_info(&json, &len, host, "nothing"), PLUGLINE_ENOTFOUND);

  /* The catalog. */
  EXPECT_STATUS(plugline_plugins_sync(&json, &len, host, count_progress, &progress_calls),
                PLUGLINE_OK);
  EXPECT(json != NULL && strstr(json, "\"ok\":true") != NULL && strstr(json, "\"plugins\":1") != NULL);
  plugline_free(json);
  json = NULL;
  EXPECT(progress_calls > 0);
  EXPECT_STATUS(plugline_plugins_available(&json, &len, host), PLUGLINE_OK);
  EXPECT(json != NULL && strstr(json, "\"id\":\"terra\"") != NULL &&
         strstr(json, "\"installed_version\":null") != NULL);
  plugline_free(json);
  json = NULL;
  progress_calls = 0;
  EXPECT_STATUS(plugline_plugins_install(&json, &len, host, "terra", NULL, count_progress,
                                         &progress_calls),
                PLUGLINE_OK);
  EXPECT(json != NULL && strstr(json, "\"verified\":true") != NULL &&
         strstr(json, "\"isolation\":\"process\"") != NULL);
  plugline_free(json);
  json = NULL;
  EXPECT(progress_calls > 0);
  EXPECT_STATUS(plugline_plugins_list(&json, &len, host), PLUGLINE_OK);
  EXPECT(json != NULL && strstr(json, "\"install\":{\"version\":\"1.0.0\"") != NULL);
  plugline_free(json);
  json = NULL;
  EXPECT_STATUS(plugline_plugins_install(&json, &len, host, "terra", "9.9.9", NULL, NULL),
                PLUGLINE_ENOTFOUND);
  EXPECT_STATUS(plugline_plugins_install(&json, &len, host, "../x", NULL, NULL, NULL),
                PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_plugins_remove(&json, &len, host, "builtin-test"), PLUGLINE_ESTATE);
  EXPECT(strstr(plugline_last_error_message(), "--disable builtin-test") != NULL);
  EXPECT_STATUS(plugline_plugins_remove(&json, &len, host, "terra"), PLUGLINE_OK);
  EXPECT(json != NULL && strstr(json, "\"id\":\"terra\"") != NULL);
  plugline_free(json);
  json = NULL;
  snprintf(path, sizeof path, "%s/plugins/terra.js", home);
  EXPECT(access(path, F_OK) != 0);

  /* A checksum that does not match: nothing installed, both digests named. */
  index[strstr(index, sha) - index] = sha[0] == 'a' ? 'b' : 'a';
  snprintf(path, sizeof path, "%s/www/index.json", home);
  write_file(path, index, 0644);
  EXPECT_STATUS(plugline_plugins_sync(&json, &len, host, NULL, NULL), PLUGLINE_OK);
  plugline_free(json);
  json = NULL;
  EXPECT_STATUS(plugline_plugins_install(&json, &len, host, "terra", NULL, NULL, NULL), PLUGLINE_EIO);
  EXPECT(strstr(plugline_last_error_message(), "checksum mismatch") != NULL);
  snprintf(path, sizeof path, "%s/plugins/terra.js", home);
  EXPECT(access(path, F_OK) != 0);

  EXPECT_STATUS(plugline_plugins_list(NULL, &len, host), PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_plugins_enable(NULL, "x"), PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_plugins_disable(host, NULL), PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_plugins_sync(&json, &len, NULL, NULL, NULL), PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_plugins_available(NULL, &len, host), PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_plugins_install(&json, &len, host, NULL, NULL, NULL, NULL), PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_plugins_remove(&json, &len, host, NULL), PLUGLINE_EINVALID);
  plugline_host_free(host);
  plugline_config_free(config);
}

/* An OpenCode plugin written in C: tool.execute.before throws on `rm`, tool.execute.after
 * masks, shell.env adds a variable; one tool, `shout`. */
static int opencode_plugin_calls = 0;
static int opencode_plugin_freed = 0;
static int c_plugin_hook(const char *name, const char *input, size_t input_len,
                         const char *output, size_t output_len, plugline_reply *reply,
                         void *user_data) {
  static const char thrown[] = "{\"output\":{},\"error\":\"rm is not for agents\"}";
  static const char masked[] = "{\"output\":{\"output\":\"token=***\"}}";
  static const char env[] = "{\"output\":{\"env\":{\"FROM_C\":\"1\"}}}";
  static const char broken[] = "\"engine gone\"";
  (void)input;
  (void)input_len;
  (void)output_len;
  ++*(int *)user_data;
  if (strcmp(name, "tool.execute.before") == 0) {
    if (strstr(output, "crash") != NULL) {
      plugline_reply_set(reply, broken, strlen(broken));
      return 1;
    }
    if (strstr(output, "rm ") != NULL) return plugline_reply_set(reply, thrown, strlen(thrown)) != PLUGLINE_OK;
    return 0; /* no reply: the output is unchanged */
  }
  if (strcmp(name, "tool.execute.after") == 0) return plugline_reply_set(reply, masked, strlen(masked)) != PLUGLINE_OK;
  if (strcmp(name, "shell.env") == 0) return plugline_reply_set(reply, env, strlen(env)) != PLUGLINE_OK;
  return 0;
}
static int c_plugin_tool(const char *name, const char *args, size_t args_len, const char *context,
                         size_t context_len, plugline_reply *reply, void *user_data) {
  static const char answer[] = "{\"ok\":true,\"output\":\"HELLO\",\"title\":\"shout\"}";
  (void)name;
  (void)args;
  (void)args_len;
  (void)context;
  (void)context_len;
  (void)user_data;
  return plugline_reply_set(reply, answer, strlen(answer)) != PLUGLINE_OK;
}
/* A plugin hook that calls back into its own host: refused with PLUGLINE_ESTATE. */
static plugline_status plugin_reentry_status = PLUGLINE_OK;
static int reentrant_plugin_hook(const char *name, const char *input, size_t input_len,
                                 const char *output, size_t output_len, plugline_reply *reply,
                                 void *user_data) {
  char *json = NULL;
  size_t len = 0;
  (void)name;
  (void)input;
  (void)input_len;
  (void)output;
  (void)output_len;
  (void)reply;
  plugin_reentry_status = plugline_host_stats(&json, &len, (plugline_host *)user_data);
  plugline_free(json);
  return 0;
}
static void free_opencode_plugin(void *user_data) {
  (void)user_data;
  ++opencode_plugin_freed;
}

static void test_host_opencode_plugin(void) {
  char home[512];
  plugline_config *config = NULL;
  plugline_host *host = NULL;
  char *json = NULL;
  size_t len = 0;
  plugline_opencode_plugin_options options = PLUGLINE_OPENCODE_PLUGIN_OPTIONS_INIT;
  static const char rm[] = "{\"tool\":\"terminal\",\"arguments\":\"{\\\"command\\\":\\\"rm -rf /\\\"}\"}";
  static const char crash[] = "{\"tool\":\"terminal\",\"arguments\":\"{\\\"command\\\":\\\"crash\\\"}\"}";
  static const char after[] = "{\"tool\":\"read\",\"arguments\":\"{}\",\"result\":\"token=abc\"}";
  make_home(home, sizeof home);
  EXPECT_STATUS(plugline_config_new(&config), PLUGLINE_OK);
  EXPECT_STATUS(plugline_config_set_home(config, home), PLUGLINE_OK);
  EXPECT_STATUS(plugline_host_new(&host, config), PLUGLINE_OK);
  plugline_config_free(config);

  options.id = "c-guard";
  options.hooks = "[\"tool.execute.before\",\"tool.execute.after\",\"shell.env\",\"tool\"]";
  options.tools = "[{\"name\":\"shout\",\"description\":\"Shouts\",\"parameters\":{\"type\":\"object\",\"properties\":{}}}]";
  EXPECT_STATUS(plugline_host_add_opencode_plugin(host, &options, c_plugin_hook, NULL,
                                                  &opencode_plugin_calls, NULL),
                PLUGLINE_EINVALID); /* tools without tool_fn */
  EXPECT(strstr(plugline_last_error_message(), "tool_fn is NULL") != NULL);
  EXPECT_STATUS(plugline_host_add_opencode_plugin(host, &options, NULL, NULL, NULL, NULL),
                PLUGLINE_EINVALID);
  EXPECT_STATUS(plugline_host_add_opencode_plugin(host, &options, c_plugin_hook, c_plugin_tool,
                                                  &opencode_plugin_calls, free_opencode_plugin),
                PLUGLINE_OK);
  EXPECT_STATUS(plugline_host_add_opencode_plugin(host, &options, c_plugin_hook, c_plugin_tool,
                                                  &opencode_plugin_calls, free_opencode_plugin),
                PLUGLINE_EEXISTS);
  EXPECT(opencode_plugin_freed == 0); /* not taken on failure */

  EXPECT_STATUS(plugline_host_dispatch(&json, &len, host, "pre_tool_call", rm, strlen(rm)), PLUGLINE_OK);
  EXPECT(json != NULL && strstr(json, "\"denied\":true") != NULL);
  EXPECT(json != NULL && strstr(json, "\"reason\":\"rm is not for agents\"") != NULL);
  EXPECT(json != NULL && strstr(json, "\"denied_by\":\"c-guard\"") != NULL);
  plugline_free(json);
  EXPECT_STATUS(plugline_host_dispatch(&json, &len, host, "pre_tool_call", crash, strlen(crash)), PLUGLINE_OK);
  EXPECT(json != NULL && strstr(json, "\"denied\":false") != NULL);
  EXPECT(json != NULL && strstr(json, "engine gone") != NULL); /* skipped, with the reason */
  plugline_free(json);
  EXPECT_STATUS(plugline_host_dispatch(&json, &len, host, "post_tool_call", after, strlen(after)), PLUGLINE_OK);
  EXPECT(json != NULL && strstr(json, "\"result\":\"token=***\"") != NULL);
  plugline_free(json);
  EXPECT_STATUS(plugline_host_trigger(&json, &len, host, "shell.env", "{}", 2, "{\"env\":{}}", 10), PLUGLINE_OK);
  EXPECT(json != NULL && strstr(json, "\"output\":{\"env\":{\"FROM_C\":\"1\"}}") != NULL);
  plugline_free(json);
  EXPECT_STATUS(plugline_host_tools(&json, &len, host, NULL), PLUGLINE_OK);
  EXPECT(json != NULL && strstr(json, "\"name\":\"shout\"") != NULL);
  EXPECT(json != NULL && strstr(json, "\"plugin\":\"c-guard\"") != NULL);
  plugline_free(json);
  EXPECT_STATUS(plugline_host_execute_tool(&json, &len, host, "shout", "{}", 2, NULL, 0), PLUGLINE_OK);
  EXPECT(json != NULL && strstr(json, "\"output\":\"HELLO\"") != NULL);
  plugline_free(json);
  EXPECT_STATUS(plugline_host_plugins(&json, &len, host), PLUGLINE_OK);
  EXPECT(json != NULL && strstr(json, "\"id\":\"c-guard\",\"kind\":\"opencode\"") != NULL);
  plugline_free(json);
  EXPECT(opencode_plugin_calls == 4);

  EXPECT_STATUS(plugline_host_remove_opencode_plugin(host, "c-guard"), PLUGLINE_OK);
  EXPECT(opencode_plugin_freed == 1);
  EXPECT_STATUS(plugline_host_remove_opencode_plugin(host, "c-guard"), PLUGLINE_ENOTFOUND);
  options.tools = "{\"name\":\"x\"}";
  EXPECT_STATUS(plugline_host_add_opencode_plugin(host, &options, c_plugin_hook, c_plugin_tool, NULL, NULL),
                PLUGLINE_EINVALID);
  EXPECT(strstr(plugline_last_error_message(), "tools must be a JSON array") != NULL);
  options.tools = NULL;
  options.hooks = "[\"event\"";
  EXPECT_STATUS(plugline_host_add_opencode_plugin(host, &options, c_plugin_hook, NULL, NULL, NULL),
                PLUGLINE_EINVALID);
  /* A plugin's callback cannot call back into its host. */
  options.id = "reenter";
  options.hooks = "[\"event\"]";
  EXPECT_STATUS(plugline_host_add_opencode_plugin(host, &options, reentrant_plugin_hook, NULL, host, NULL),
                PLUGLINE_OK);
  EXPECT_STATUS(plugline_host_dispatch(&json, &len, host, "turn_end", "{}", 2), PLUGLINE_OK);
  plugline_free(json);
  EXPECT(plugin_reentry_status == PLUGLINE_ESTATE);
  options.id = "c-guard";
  /* Freed with the host. */
  options.hooks = "[\"event\"]";
  EXPECT_STATUS(plugline_host_add_opencode_plugin(host, &options, c_plugin_hook, NULL,
                                                  &opencode_plugin_calls, free_opencode_plugin),
                PLUGLINE_OK);
  plugline_host_free(host);
  EXPECT(opencode_plugin_freed == 2);
}

int main(void) {
  test_versions();
  test_status_strings();
  test_null_arguments();
  test_shape();
  test_capture();
  test_hooks();
  test_hook_answer_faults();
  test_broken_and_trust();
  test_opencode();
  test_host_opencode_plugin();
  test_js_call();
  test_plugins_management();
  test_reentry();
  if (failures != 0) {
    fprintf(stderr, "%d expectation(s) failed\n", failures);
    return 1;
  }
  puts("capi: all expectations met");
  return 0;
}
