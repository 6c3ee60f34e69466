/* agent_loop: an agent's tool loop with plugline between the model and the shell, in C,
 * through the stable C ABI (<plugline/plugline.h>) and cJSON for the JSON.
 *
 * A real agent gets its tool calls from a model; this one replays four scripted calls, so that
 * what plugline does at each step is plain to see:
 *
 *   session_start          plugins see the session begin
 *   rm -rf build/          a native hook denies it
 *   python -c '...'        a native hook rewrites it to python3, then it runs
 *   printf '...sk-...'     it runs; a plugin redacts the key in post_tool_call
 *   seq 1 3000             it runs; the model reads a shaped summary, not 3,000 lines
 *   session_end
 *
 * Usage (from the repository root, after building into build/):
 *
 *   mkdir -p /tmp/agent-home/plugins
 *   cp -r examples/plugins/redact-secrets /tmp/agent-home/plugins/
 *   build/bin/agent_loop_c /tmp/agent-home
 *
 * The transcript goes to stdout; tests/examples/agent_loop.expected is what every language's
 * agent loop prints. */
#define _POSIX_C_SOURCE 200809L

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "plugline/plugline.h"

/* What the model asks for, one tool call per turn. */
static const char *const TOOL_CALLS[] = {
    "rm -rf build/",
    "python -c 'print(6 * 7)'",
    "printf 'OPENAI_API_KEY=sk-proj-Ab12Cd34Ef56Gh78Ij90Kl\\n'",
    "seq 1 3000",
};

static const char SESSION[] = "ses_example";

/* Prints plugline's message for a failed call and exits. */
static void die(const char *what, plugline_status status) {
  fprintf(stderr, "agent_loop: %s: %s: %s\n", what, plugline_status_str(status),
          plugline_last_error_message());
  exit(1);
}

/* The "command" inside a tool call's payload ({"arguments": "{\"command\": ...}"}), as a
 * malloc'ed string, or NULL. */
static char *command_of(const char *payload_json, size_t len) {
  cJSON *payload = cJSON_ParseWithLength(payload_json, len);
  const char *arguments_json = cJSON_GetStringValue(cJSON_GetObjectItem(payload, "arguments"));
  cJSON *arguments = arguments_json ? cJSON_Parse(arguments_json) : NULL;
  const char *command = cJSON_GetStringValue(cJSON_GetObjectItem(arguments, "command"));
  char *copy = command ? strdup(command) : NULL;
  cJSON_Delete(arguments);
  cJSON_Delete(payload);
  return copy;
}

/* {"command": command} as JSON text (malloc'ed). */
static char *arguments_json(const char *command) {
  cJSON *arguments = cJSON_CreateObject();
  cJSON_AddStringToObject(arguments, "command", command);
  char *text = cJSON_PrintUnformatted(arguments);
  cJSON_Delete(arguments);
  return text;
}

/* [native-hooks] */
/* Denies destructive commands before they run. */
static int guard(const char *event, const char *payload_json, size_t payload_len,
                 plugline_hook_answer *answer, void *user_data) {
  (void)event;
  (void)user_data;
  char *command = command_of(payload_json, payload_len);
  if (command != NULL && strstr(command, "rm -rf") != NULL) {
    static const char deny[] =
        "{\"deny\":true,\"reason\":\"rm -rf is not allowed in this workspace\"}";
    plugline_hook_answer_set(answer, deny, strlen(deny));
  }
  free(command);
  return 0; /* no answer set: no opinion */
}

/* Rewrites `python ...` to `python3 ...` (this machine has no `python`). */
static int python3(const char *event, const char *payload_json, size_t payload_len,
                   plugline_hook_answer *answer, void *user_data) {
  (void)event;
  (void)user_data;
  char *command = command_of(payload_json, payload_len);
  if (command != NULL && strncmp(command, "python ", 7) == 0) {
    char *rewritten = malloc(strlen(command) + 2);
    sprintf(rewritten, "python3 %s", command + 7);
    char *arguments = arguments_json(rewritten);
    cJSON *reply = cJSON_CreateObject();
    cJSON_AddStringToObject(reply, "arguments", arguments); /* a JSON-encoded string */
    char *text = cJSON_PrintUnformatted(reply);
    plugline_hook_answer_set(answer, text, strlen(text));
    cJSON_free(text);
    cJSON_Delete(reply);
    cJSON_free(arguments);
    free(rewritten);
  }
  free(command);
  return 0;
}
/* [native-hooks] */

/* Dispatches `event` with a payload of the session, the tool call's command and, when not
 * NULL, its result. Returns the parsed decision (cJSON_Delete it). */
static cJSON *dispatch(plugline_host *host, const char *event, const char *command,
                       const char *result) {
  cJSON *payload = cJSON_CreateObject();
  cJSON_AddStringToObject(payload, "session_id", SESSION);
  if (command != NULL) {
    char *arguments = arguments_json(command);
    cJSON_AddStringToObject(payload, "tool", "bash");
    cJSON_AddStringToObject(payload, "arguments", arguments);
    cJSON_free(arguments);
  }
  if (result != NULL) cJSON_AddStringToObject(payload, "result", result);
  char *payload_json = cJSON_PrintUnformatted(payload);
  cJSON_Delete(payload);
  char *json = NULL;
  size_t len = 0;
  plugline_status status =
      plugline_host_dispatch(&json, &len, host, event, payload_json, strlen(payload_json));
  cJSON_free(payload_json);
  if (status != PLUGLINE_OK) die("dispatch", status);
  cJSON *decision = cJSON_ParseWithLength(json, len);
  plugline_free(json);
  return decision;
}

static const char *string_of(const cJSON *object, const char *key) {
  const char *value = cJSON_GetStringValue(cJSON_GetObjectItem(object, key));
  return value != NULL ? value : "";
}

/* Prints "  <label> <plugin>" for each plugin of the decision whose action is `action`. */
static void print_steps(const cJSON *decision, const char *action, const char *label,
                        const char *after) {
  const cJSON *step = NULL;
  cJSON_ArrayForEach(step, cJSON_GetObjectItem(decision, "plugins")) {
    if (strcmp(string_of(step, "action"), action) == 0) {
      printf("  %s %s%s\n", label, string_of(step, "plugin"), after);
    }
  }
}

/* Runs `command` with /bin/sh, stdout and stderr interleaved as an agent's terminal tool sees
 * them. Returns the output (malloc'ed, NUL-terminated) and its exit code in *exit_code. */
static char *run_shell(const char *command, int *exit_code) {
  char *line = malloc(strlen(command) + 8);
  sprintf(line, "%s 2>&1", command);
  FILE *pipe = popen(line, "r");
  free(line);
  size_t size = 0, capacity = 4096;
  char *output = malloc(capacity);
  size_t got;
  while (pipe != NULL && (got = fread(output + size, 1, capacity - size - 1, pipe)) > 0) {
    size += got;
    if (capacity - size < 2) output = realloc(output, capacity *= 2);
  }
  output[size] = '\0';
  int status = pipe != NULL ? pclose(pipe) : -1;
  *exit_code = status >= 0 && WIFEXITED(status) ? WEXITSTATUS(status) : 127;
  return output;
}

static int count_lines(const char *text) {
  int lines = 0;
  for (const char *p = text; *p != '\0'; ++p) lines += *p == '\n';
  if (*text != '\0' && text[strlen(text) - 1] != '\n') ++lines;
  return lines;
}

/* One tool call: prints what happens, and what the model reads. */
static void run_tool(plugline_host *host, const char *requested) {
  printf("model wants: %s\n", requested);
  /* [pre-tool-call] */
  cJSON *decision = dispatch(host, "pre_tool_call", requested, NULL);
  if (cJSON_IsTrue(cJSON_GetObjectItem(decision, "denied"))) {
    printf("  denied by %s: %s\n", string_of(decision, "denied_by"), string_of(decision, "reason"));
    cJSON_Delete(decision);
    return; /* the model reads "blocked: <reason>" */
  }
  /* The arguments as the hooks left them: possibly rewritten. */
  cJSON *arguments = cJSON_Parse(string_of(decision, "arguments"));
  const char *final = cJSON_GetStringValue(cJSON_GetObjectItem(arguments, "command"));
  char *command = strdup(final != NULL ? final : requested);
  cJSON_Delete(arguments);
  /* [pre-tool-call] */
  char label[4096];
  snprintf(label, sizeof label, ": %s", command);
  print_steps(decision, "rewrite", "rewritten by", label);
  cJSON_Delete(decision);

  int exit_code = 0;
  char *output = run_shell(command, &exit_code);
  printf("  ran: exit %d, %d lines\n", exit_code, count_lines(output));

  /* [post-tool-call] */
  /* post_tool_call first, so that a plugin's redaction reaches the summary and the stored raw
   * output alike; then shape what the plugins left. */
  cJSON *after = dispatch(host, "post_tool_call", command, output);
  const char *result = cJSON_GetStringValue(cJSON_GetObjectItem(after, "result"));
  if (result == NULL) result = output;
  plugline_shape_options options = PLUGLINE_SHAPE_OPTIONS_INIT;
  char *json = NULL;
  size_t len = 0;
  plugline_status status = plugline_host_shape(&json, &len, host, command, strlen(command),
                                               result, strlen(result), exit_code, &options);
  if (status != PLUGLINE_OK) die("shape", status);
  cJSON *shaped = cJSON_ParseWithLength(json, len);
  plugline_free(json);
  /* [post-tool-call] */
  print_steps(after, "replace", "redacted by", "");
  printf("  model reads (%s, %s, %.0f -> %.0f tokens):\n", string_of(shaped, "shaper"),
         string_of(shaped, "render_mode"),
         cJSON_GetNumberValue(cJSON_GetObjectItem(shaped, "tokens_raw")),
         cJSON_GetNumberValue(cJSON_GetObjectItem(shaped, "tokens_summary")));
  char *summary = strdup(string_of(shaped, "summary"));
  for (char *save = NULL, *line = strtok_r(summary, "\n", &save); line != NULL;
       line = strtok_r(NULL, "\n", &save)) {
    printf("    %s\n", line);
  }
  free(summary);
  cJSON_Delete(shaped);
  cJSON_Delete(after);
  free(output);
  free(command);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: agent_loop_c HOME\n");
    return 2;
  }
  /* [host] */
  plugline_config *config = NULL;
  plugline_host *host = NULL;
  plugline_status status = plugline_config_new(&config);
  if (status == PLUGLINE_OK) status = plugline_config_set_home(config, argv[1]);
  if (status == PLUGLINE_OK) status = plugline_host_new(&host, config);
  plugline_config_free(config);
  if (status != PLUGLINE_OK) die("host", status);

  plugline_hook_options hook = PLUGLINE_HOOK_OPTIONS_INIT;
  hook.id = "guard";
  hook.events = "[\"pre_tool_call\"]";
  hook.fail_closed = 1;
  if ((status = plugline_host_add_hook(host, &hook, guard, NULL, NULL)) != PLUGLINE_OK) {
    die("add_hook guard", status);
  }
  hook.id = "python3";
  hook.fail_closed = 0;
  if ((status = plugline_host_add_hook(host, &hook, python3, NULL, NULL)) != PLUGLINE_OK) {
    die("add_hook python3", status);
  }
  /* [host] */
  char *problems = NULL;
  if (plugline_host_diagnostics(&problems, NULL, host) == PLUGLINE_OK) {
    cJSON *list = cJSON_Parse(problems);
    const cJSON *problem = NULL;
    cJSON_ArrayForEach(problem, list) fprintf(stderr, "plugline: %s\n", problem->valuestring);
    cJSON_Delete(list);
    plugline_free(problems);
  }

  cJSON *started = dispatch(host, "session_start", NULL, NULL);
  printf("session_start: %d hooks ran\n", cJSON_GetArraySize(cJSON_GetObjectItem(started, "plugins")));
  cJSON_Delete(started);
  for (size_t i = 0; i < sizeof TOOL_CALLS / sizeof TOOL_CALLS[0]; ++i) run_tool(host, TOOL_CALLS[i]);
  cJSON *ended = dispatch(host, "session_end", NULL, NULL);
  printf("session_end: %d hooks ran\n", cJSON_GetArraySize(cJSON_GetObjectItem(ended, "plugins")));
  cJSON_Delete(ended);
  plugline_host_free(host);
  return 0;
}
