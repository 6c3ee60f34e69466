/*
 * plugline.h — the stable C ABI of plugline, an embeddable plugin system for AI-agent hosts.
 *
 * This one header is the whole stable interface of libplugline.so. Python (ctypes) and Node
 * (N-API) bindings use nothing else.
 *
 * Conventions
 *  - Every fallible function returns a plugline_status: 0 (PLUGLINE_OK) or a negative error
 *    code. Codes never change once released. On error, plugline_last_error_message() tells
 *    what went wrong, and out-parameters are left untouched.
 *  - Out-parameters come first (libgit2 style).
 *  - Strings are UTF-8. Payloads carry explicit lengths and may contain any bytes (NUL
 *    included); other strings are NUL-terminated.
 *  - Buffers the library returns (char **out_json, ...) belong to the caller and are released
 *    with plugline_free(). Handles are released with their own _free(); every _free(NULL) is a
 *    no-op.
 *  - No C++ exception ever crosses this boundary.
 *
 * Thread safety
 *  - The version getters, plugline_status_str, plugline_last_error_message, plugline_free and
 *    plugline_js_call may be called from any thread at any time.
 *  - A plugline_config is used by one thread at a time.
 *  - A plugline_host may be used from several threads at once.
 *  - The last-error message is per thread: read it on the thread whose call failed.
 *  - A host's own callbacks (its native hooks, its client) may not call into that host: such a
 *    call returns PLUGLINE_ESTATE and does nothing. Other hosts may be called.
 */
#ifndef PLUGLINE_PLUGLINE_H
#define PLUGLINE_PLUGLINE_H

#include <stddef.h>
#include <stdint.h>

#define PLUGLINE_VERSION_MAJOR 0
#define PLUGLINE_VERSION_MINOR 1
#define PLUGLINE_VERSION_PATCH 0

/* Incremented whenever a released function's signature or behaviour changes incompatibly.
 * Bindings compare it with plugline_abi_version() at load. */
#define PLUGLINE_ABI_VERSION 1

#if defined(_WIN32)
#define PLUGLINE_API
#elif defined(__GNUC__) || defined(__clang__)
#define PLUGLINE_API __attribute__((visibility("default")))
#else
#define PLUGLINE_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Status codes ------------------------------------------------------------------------ */

typedef enum plugline_status {
  PLUGLINE_OK = 0,
  PLUGLINE_EINVALID = -1,     /* an argument is NULL, malformed, or not valid UTF-8 */
  PLUGLINE_ENOTFOUND = -2,    /* a file, plugin or shaper does not exist */
  PLUGLINE_EEXISTS = -3,      /* it already exists */
  PLUGLINE_EPERMISSION = -4,  /* the operating system refused access */
  PLUGLINE_ETIMEOUT = -5,     /* a time budget ran out */
  PLUGLINE_ERESOURCE = -6,    /* memory, disk or an output bound ran out */
  PLUGLINE_EUNAVAILABLE = -7, /* a feature not built in, or a backend that failed to load */
  PLUGLINE_ESTATE = -8,       /* the call is not valid in the current state */
  PLUGLINE_ECANCELLED = -9,   /* the operation was cancelled */
  PLUGLINE_EIO = -10,         /* data was lost or corrupted */
  PLUGLINE_EINTERNAL = -11,   /* a bug in plugline; the message says where */
  PLUGLINE_EPLUGIN = -12      /* a plugin failed: it threw, crashed or answered wrongly */
} plugline_status;

/* The name of a status code ("PLUGLINE_EINVALID"); "PLUGLINE_UNKNOWN" for other values.
 * The string is static. */
PLUGLINE_API const char *plugline_status_str(int status);

/* The message of the last failed call on this thread; "" when there was none. Never NULL.
 * Valid until the next plugline call on this thread. */
PLUGLINE_API const char *plugline_last_error_message(void);

/* ---- Versions ---------------------------------------------------------------------------- */

PLUGLINE_API int plugline_version_major(void);
PLUGLINE_API int plugline_version_minor(void);
PLUGLINE_API int plugline_version_patch(void);
/* "0.1.0". Static string. */
PLUGLINE_API const char *plugline_version_string(void);
/* The PLUGLINE_ABI_VERSION the library was built with. */
PLUGLINE_API int plugline_abi_version(void);

/* ---- Memory ------------------------------------------------------------------------------ */

/* Releases a buffer returned by the library. NULL is a no-op. */
PLUGLINE_API void plugline_free(void *buffer);

/* ---- Host configuration ------------------------------------------------------------------ */

typedef struct plugline_config plugline_config;

/* Creates a configuration with the defaults: home from $PLUGLINE_HOME (else ~/.plugline), no
 * project directory, raw outputs stored, plugline's token estimate.
 * Returns PLUGLINE_OK, PLUGLINE_EINVALID (out is NULL) or PLUGLINE_ERESOURCE. */
PLUGLINE_API plugline_status plugline_config_new(plugline_config **out);

/* Releases a configuration. NULL is a no-op. A host created from it does not need it. */
PLUGLINE_API void plugline_config_free(plugline_config *config);

/* Sets the state directory (config.yaml, plugins/, outputs/). NULL restores the default. */
PLUGLINE_API plugline_status plugline_config_set_home(plugline_config *config, const char *path);

/* Sets the project directory whose .plugline/ adds configuration and plugins. NULL: none.
 * A project's .plugline/ loads only when it is trusted (plugline_config_set_project_trust). */
PLUGLINE_API plugline_status plugline_config_set_project_dir(plugline_config *config,
                                                             const char *path);

/* Who decides whether the project's .plugline/ (its config.yaml, plugins/ and the packages its
 * config names from its node_modules) may load (docs/security.md). Until it may, its plugins
 * are listed with state "untrusted" and nothing of it runs; plugline_host_diagnostics says
 * what to run. Even a trusted project cannot disable, reconfigure or replace a protected
 * global plugin. */
#define PLUGLINE_PROJECT_TRUST_STORE 0     /* default: the user's trust store, written by
                                              `plugline trust`, for the project as it is now */
#define PLUGLINE_PROJECT_TRUST_TRUSTED 1   /* the host asked the user itself (an editor's
                                              workspace trust): the project loads */
#define PLUGLINE_PROJECT_TRUST_UNTRUSTED 2 /* the host says no: nothing of the project loads */

/* Sets who decides (one of PLUGLINE_PROJECT_TRUST_*). Returns PLUGLINE_OK or
 * PLUGLINE_EINVALID (NULL config, another value). */
PLUGLINE_API plugline_status plugline_config_set_project_trust(plugline_config *config,
                                                               int trust);

/* 1 (default): store raw outputs under <home>/outputs and name the file in summaries.
 * 0: the host keeps raw outputs itself; summaries name no file, and a shaper that can only
 * elide by pointing at the stored copy (builtin-generic) shows the output in full. */
PLUGLINE_API plugline_status plugline_config_set_store_outputs(plugline_config *config,
                                                               int enabled);

/* 1 (default): keep per-shaper statistics in <home>/stats.json (match and shape counts, tokens
 * saved, shape time, a daily time series; see docs/stats.md). 0: keep none. */
PLUGLINE_API plugline_status plugline_config_set_record_stats(plugline_config *config,
                                                              int enabled);

/* Counts the tokens of `text` (`len` bytes) the way the host's model does. The text is a raw
 * output or a summary exactly as plugline holds it: usually UTF-8, but a raw output may hold
 * any bytes, NUL included. Called from any thread that shapes; must not call back into
 * plugline. */
typedef uint64_t (*plugline_token_count_fn)(const char *text, size_t len, void *user_data);

/* Uses the host's token counter instead of plugline's estimate. `user_data` is passed to every
 * call; `user_data_free` (may be NULL) is called once when no host or config uses it any
 * more. fn == NULL restores the estimate. */
PLUGLINE_API plugline_status plugline_config_set_token_counter(plugline_config *config,
                                                               plugline_token_count_fn fn,
                                                               void *user_data,
                                                               void (*user_data_free)(void *));

/* ---- Host -------------------------------------------------------------------------------- */

typedef struct plugline_host plugline_host;

/* Creates a host. `config` may be NULL for the defaults; it is copied, not kept.
 * Problems in configuration files do not fail creation (see plugline_host_diagnostics).
 * Returns PLUGLINE_OK, PLUGLINE_EINVALID (out is NULL), PLUGLINE_ESTATE (no home directory
 * can be found) or PLUGLINE_ERESOURCE. */
PLUGLINE_API plugline_status plugline_host_new(plugline_host **out, const plugline_config *config);

/* Releases a host. NULL is a no-op. No call on the host may be running. */
PLUGLINE_API void plugline_host_free(plugline_host *host);

/* Problems found while opening the host (an unreadable or malformed config file, an unknown
 * key, a project that is not trusted with the command that trusts it, a project's attempt to
 * change a protected plugin), and problems with state files met since (a malformed stats.json,
 * trust.json or guards.json moved aside, a newer one left alone), as a JSON array of strings,
 * each naming the file or project. The buffer is released with plugline_free(). */
PLUGLINE_API plugline_status plugline_host_diagnostics(char **out_json, size_t *out_len,
                                                       plugline_host *host);

/* The per-shaper statistics of the host's state directory as a JSON object (docs/stats.md):
 *   {"version": 1, "shapers": {"<id>": {"match_count", "shape_count", "fail_count",
 *    "tokens_saved", "shape_ms_total", "average_shape_ms"}}, "daily": {"YYYY-MM-DD": {...}}}
 * Counts from every process that used the same home. Released with plugline_free().
 * A malformed stats file is moved aside (see plugline_host_diagnostics) and gives empty stats.
 * Returns PLUGLINE_OK, PLUGLINE_EINVALID, PLUGLINE_EPERMISSION when the stats file is
 * unreadable, or PLUGLINE_ESTATE when a newer plugline wrote it (the message names it). */
PLUGLINE_API plugline_status plugline_host_stats(char **out_json, size_t *out_len,
                                                 plugline_host *host);

/* Every plugin the host can use — the built-in shapers, the plugins found in its plugin
 * directories, its native hooks — with its state, as a JSON object (docs/plugins-shapers.md,
 * docs/plugins-exec.md):
 *   {"plugins": [{"id", "kind", "tier", "state", "reason", "path", "source", "version",
 *                 "description", "events", "warnings", "protected"}]}
 * kind is "builtin-shaper", "js-shaper", "exec-hook", "opencode" or "native-hook"; state is
 * "enabled", "disabled", "broken" (reason says why: syntax error with file and line, bad
 * exports, invalid meta, a bad plugin.yaml), "shadowed" or "untrusted" (a project's plugin
 * that is not trusted; reason says what to run). "protected" is true for a global plugin a
 * project cannot disable or replace.
 * Loads plugins not loaded yet. Released with plugline_free(). */
PLUGLINE_API plugline_status plugline_host_plugins(char **out_json, size_t *out_len,
                                                   plugline_host *host);

/* Re-reads the configuration files and rescans the plugin directories. Plugins whose files
 * did not change stay loaded; new, changed and broken ones load on next use. Must not run
 * concurrently with another call on the same host. Returns PLUGLINE_OK or PLUGLINE_EINVALID. */
PLUGLINE_API plugline_status plugline_host_reload(plugline_host *host);

/* ---- Managing plugins (docs/managing-plugins.md, docs/catalog.md) ------------------------- */

/* Told how a download is going: its URL, the bytes received so far, and the total (0 when the
 * server did not say). Called on the thread that called install or sync. */
typedef void (*plugline_progress_fn)(void *user_data, const char *url, uint64_t received,
                                     uint64_t total);

/* Every plugin, as plugline_host_plugins returns it, each entry also carrying "stats" (a
 * shaper's figures, or null) and "install" (where a plugin installed from a catalog came
 * from, or null). Released with plugline_free(). */
PLUGLINE_API plugline_status plugline_plugins_list(char **out_json, size_t *out_len,
                                                   plugline_host *host);

/* The entries of plugline_plugins_list whose id is `id` ({"plugins": [...]}, more than one
 * when one shadows another). PLUGLINE_ENOTFOUND when no plugin has the id (the message names
 * a near one). */
PLUGLINE_API plugline_status plugline_plugins_info(char **out_json, size_t *out_len,
                                                   plugline_host *host, const char *id);

/* Turns the plugin or built-in shaper `id` on or off for every host of this home, recorded in
 * <home>/plugins.json, over config.yaml; this host reloads. PLUGLINE_ENOTFOUND when no plugin
 * has the id; PLUGLINE_EINVALID for a native hook; PLUGLINE_ESTATE when a newer plugline
 * wrote plugins.json. */
PLUGLINE_API plugline_status plugline_plugins_enable(plugline_host *host, const char *id);
PLUGLINE_API plugline_status plugline_plugins_disable(plugline_host *host, const char *id);

/* Fetches the index of every catalog config.yaml names (conditional requests; a signed
 * catalog's signature checked) into the home's local copies:
 *   {"catalogs": [{"url", "ok", "error", "not_modified", "plugins", "signature_verified",
 *                  "skipped"}]}
 * A catalog that fails is reported in its entry (the call still succeeds). `progress` may be
 * NULL. */
PLUGLINE_API plugline_status plugline_plugins_sync(char **out_json, size_t *out_len,
                                                   plugline_host *host,
                                                   plugline_progress_fn progress,
                                                   void *user_data);

/* What the catalogs offer, from the last synced copies (synced first only when none ever
 * was): {"catalogs": [{"url", "fetched_at", "age_seconds", "signature_verified", "error"}],
 *        "plugins": [{"id", "name", "version", "tier", "kind", "description", "author",
 *                     "homepage", "catalog", "installed_version", "update_available"}]} */
PLUGLINE_API plugline_status plugline_plugins_available(char **out_json, size_t *out_len,
                                                        plugline_host *host);

/* Installs (or upgrades, or reinstalls) plugin `id` from the first catalog that lists it:
 * `version`, or the newest when NULL. Downloaded within bounds, its size and SHA-256 checked
 * against the catalog before it is put in place in one rename; the host then reloads.
 *   {"id", "previous_version", "version", "catalog", "url", "sha256", "size", "verified",
 *    "signed", "installed_at", "author", "homepage", "isolation", "path"}
 * PLUGLINE_ENOTFOUND (no catalog lists it), PLUGLINE_EIO (size or checksum mismatch: the
 * message has both values), PLUGLINE_ESTATE (a plugin the user put there by hand has its
 * place; no catalog configured; a signature problem), PLUGLINE_ETIMEOUT,
 * PLUGLINE_EUNAVAILABLE (the network or the server failed), PLUGLINE_EINVALID (a bad id or
 * version). Nothing is installed on any error. */
PLUGLINE_API plugline_status plugline_plugins_install(char **out_json, size_t *out_len,
                                                      plugline_host *host, const char *id,
                                                      const char *version,
                                                      plugline_progress_fn progress,
                                                      void *user_data);

/* Removes a plugin installed from a catalog, and returns its record (as install returns it);
 * the host then reloads. PLUGLINE_ESTATE for a built-in shaper or a plugin that was not
 * installed from a catalog (the message says what to do instead). */
PLUGLINE_API plugline_status plugline_plugins_remove(char **out_json, size_t *out_len,
                                                     plugline_host *host, const char *id);

/* The exit code to pass when it is not known (the command was killed, or is still running). */
#define PLUGLINE_EXIT_CODE_UNKNOWN (-2147483647 - 1)

/* plugline_shape_options.max_tokens for a shaping with no token budget. */
#define PLUGLINE_NO_TOKEN_BUDGET UINT64_MAX

typedef struct plugline_shape_options {
  size_t struct_size; /* sizeof(plugline_shape_options); fields past it are taken as unset */
  const char *shaper; /* NULL: choose by match(); else use this shaper id ("builtin-generic") */
  /* The summary's token budget: 0 for config's shaping.max_summary_tokens (default 8000),
   * PLUGLINE_NO_TOKEN_BUDGET for none, else at least 200 (PLUGLINE_EINVALID for 1
   * to 199, as config.yaml and `plugline run --max-tokens` refuse them). A summary over it is
   * cut by priority, never mid-line, and says so (docs/shaping.md "The budget"). Since 0.1
   * (struct_size covers it). */
  uint64_t max_tokens;
} plugline_shape_options;

/* Every field unset, struct_size filled in:
 *   plugline_shape_options options = PLUGLINE_SHAPE_OPTIONS_INIT;  options.shaper = "..."; */
#define PLUGLINE_SHAPE_OPTIONS_INIT {sizeof(plugline_shape_options), NULL, 0}

/* Shapes one command's output.
 *
 * `command` (UTF-8, `command_len` bytes) is the command line as the agent ran it; `output`
 * (`output_len` bytes, any bytes) is what it printed, stdout and stderr interleaved;
 * `exit_code` is its exit code or PLUGLINE_EXIT_CODE_UNKNOWN. `options` may be NULL.
 *
 * On success *out_json is a NUL-terminated JSON object (length in *out_len, which may be NULL):
 *   {"summary", "render_mode": "summary"|"raw", "shaper", "confidence", "raw_path",
 *    "raw_bytes", "raw_lines", "raw_stored_bytes", "shaped_bytes", "tokens_raw",
 *    "tokens_summary", "tokens_saved" (raw minus summary: negative when the summary costs
 *    more), "token_counter": "o200k_base"|"cl100k_base"|"estimate"|"host", "max_tokens" (the
 *    budget that applied, 0: none), "budget_lines_left_out", "secrets_masked" (true: the
 *    output held secrets, masked in the summary and the raw file; a "raw" summary then
 *    differs from the output and should replace it), "fallback": null|"why", "skipped"}
 * raw_bytes/raw_lines describe the whole output; raw_stored_bytes is what the raw file holds
 * (less when outputs.max_file_mb capped it, 0 when not stored); shaped_bytes is what the
 * shapers saw (less when the output was larger than the shaping window, outputs.window_mb).
 * released with plugline_free(). A shaper that fails does not fail the call: the result falls
 * back to raw output and "fallback" says why.
 *
 * Returns PLUGLINE_OK, PLUGLINE_EINVALID (NULL host/out_json, NULL command or output with a
 * non-zero length, command not UTF-8, unknown forced shaper) or PLUGLINE_ERESOURCE. */
PLUGLINE_API plugline_status plugline_host_shape(char **out_json, size_t *out_len,
                                                 plugline_host *host, const char *command,
                                                 size_t command_len, const char *output,
                                                 size_t output_len, int exit_code,
                                                 const plugline_shape_options *options);

/* An output that arrives in pieces, for a host that runs commands itself: memory stays bounded
 * whatever the command prints. Each piece goes to the raw file at once (its complete lines,
 * secrets masked; up to the per-output cap, outputs.max_file_mb) and only the shaping window
 * is kept (all of an output up to outputs.window_mb, else its head, tail and error lines;
 * docs/shaping.md). The result is the
 * one plugline_host_shape gives for the same output, with "raw_bytes", "raw_lines" and
 * "tokens_raw" counting everything appended, "raw_stored_bytes" what the file holds and
 * "shaped_bytes" what the shapers saw. One capture is used by one thread at a time. */
typedef struct plugline_capture plugline_capture;

/* Starts a capture on `host`, which must outlive it. *out is released with
 * plugline_capture_free(). Returns PLUGLINE_OK, PLUGLINE_EINVALID (NULL out or host) or
 * PLUGLINE_ERESOURCE. */
PLUGLINE_API plugline_status plugline_capture_new(plugline_capture **out, plugline_host *host);

/* Adds the next `len` bytes (any bytes) of the output. A raw file that cannot be written is
 * not an error here: plugline_capture_finish reports it, as plugline_host_shape does.
 * Returns PLUGLINE_OK, PLUGLINE_EINVALID (NULL capture, NULL data with a non-zero length) or
 * PLUGLINE_ESTATE (after a successful finish). */
PLUGLINE_API plugline_status plugline_capture_append(plugline_capture *capture, const char *data,
                                                     size_t len);

/* Ends the output and shapes it; arguments and *out_json as for plugline_host_shape. On
 * PLUGLINE_EINVALID (command not UTF-8, unknown forced shaper) the capture is unchanged and
 * may be finished again. Returns PLUGLINE_OK, PLUGLINE_EINVALID, PLUGLINE_ESTATE (already
 * finished) or PLUGLINE_ERESOURCE. */
PLUGLINE_API plugline_status plugline_capture_finish(char **out_json, size_t *out_len,
                                                     plugline_capture *capture,
                                                     const char *command, size_t command_len,
                                                     int exit_code,
                                                     const plugline_shape_options *options);

/* Releases a capture; one never finished removes its partial raw file. NULL is a no-op. */
PLUGLINE_API void plugline_capture_free(plugline_capture *capture);

/* ---- Hooks ------------------------------------------------------------------------------- */

/* Dispatches one event to the host's hook plugins (exec plugins in its plugin directories,
 * then native hooks in the order they were added), one after another; a deny ends the chain
 * (docs/hooks.md).
 *
 * `event` is a canonical event name ("pre_tool_call", "post_tool_call", "session_start",
 * "session_end", "turn_end", "user_prompt", "tool_definition", "shell_env", "pre_compact") or
 * any other name, dispatched as observe-only. `payload_json` (`payload_len` bytes) is a JSON
 * object, e.g. {"session_id":"ses_1","tool":"terminal","arguments":"{\"command\":\"ls\"}"};
 * "arguments" and "result", when present, are strings; other fields pass through to plugins.
 *
 * On success *out_json is a JSON object released with plugline_free():
 *   {"event", "denied", "denied_by", "reason", "arguments", "result",
 *    "notices": [{"plugin", "text"}], "skipped": [{"plugin", "why", "detail"}],
 *    "plugins": [{"plugin", "action", "ms"}], "warnings": [{"plugin", "text"}],
 *    "broken": [{"plugin", "reason"}]}
 * A plugin that crashes, times out or answers wrongly does not fail the call: it is listed
 * under "skipped" (or denies, when it fails closed). "warnings" names an answer key plugline
 * does not read and, with "plugin" null, an event name one edit away from a canonical one.
 * "broken" lists every plugin that could not load (a bad plugin.yaml, a program that is not
 * executable); a broken one that fails closed denies the deny-capable events it subscribed to
 * (every pre_tool_call when its manifest cannot tell), with a reason naming it and why it is
 * broken.
 *
 * Returns PLUGLINE_OK or PLUGLINE_EINVALID (NULL or empty event, payload not a JSON object or
 * repeating a key). */
PLUGLINE_API plugline_status plugline_host_dispatch(char **out_json, size_t *out_len,
                                                    plugline_host *host, const char *event,
                                                    const char *payload_json,
                                                    size_t payload_len);

/* Where a native hook puts its answer; valid only during the callback. */
typedef struct plugline_hook_answer plugline_hook_answer;

/* Sets the hook's answer: a JSON object with the fields of an exec plugin's answer, every one
 * optional: {"deny": bool, "reason": "...", "arguments": "<JSON-encoded string>",
 * "result": "...", "notice": "..."}. Not calling it (or "{}") means no opinion. Returns
 * PLUGLINE_OK, or PLUGLINE_EINVALID when the JSON is not such an object or repeats a key
 * (the hook is then skipped with that reason, as if it had failed, also when the callback then
 * returns non-zero without plugline_hook_answer_fail). A key that is not one of these is
 * ignored and named in the dispatch result's "warnings". */
PLUGLINE_API plugline_status plugline_hook_answer_set(plugline_hook_answer *answer,
                                                      const char *answer_json, size_t len);

/* Records why the hook failed, for a callback that returns non-zero. */
PLUGLINE_API plugline_status plugline_hook_answer_fail(plugline_hook_answer *answer,
                                                       const char *message);

/* A native hook: gets the event name and the payload JSON (with "event" set), answers through
 * plugline_hook_answer_set, returns 0; any other return value is a failure (skipped, or a deny
 * when the hook fails closed). Called on the thread that calls plugline_host_dispatch; must
 * not call back into the same host. */
typedef int (*plugline_hook_fn)(const char *event, const char *payload_json, size_t payload_len,
                                plugline_hook_answer *answer, void *user_data);

typedef struct plugline_hook_options {
  size_t struct_size; /* sizeof(plugline_hook_options); fields past it are taken as unset */
  const char *id;     /* unique among the host's native hooks; shown in results */
  /* The events it subscribes to, a JSON array of names: ["pre_tool_call","post_tool_call"];
   * ["*"] = every event; NULL, "" or [] = none. (The comma-separated form of ABI version 1,
   * "pre_tool_call,post_tool_call" or "*", is still read.) Not a JSON array of strings when
   * it starts with '[': PLUGLINE_EINVALID. */
  const char *events;
  int fail_closed;    /* non-zero: a failure counts as a deny on pre_tool_call */
} plugline_hook_options;

/* Every field unset, struct_size filled in:
 *   plugline_hook_options options = PLUGLINE_HOOK_OPTIONS_INIT;  options.id = "guard"; */
#define PLUGLINE_HOOK_OPTIONS_INIT {sizeof(plugline_hook_options), NULL, NULL, 0}

/* Adds a native hook to the host's chain, after every plugin and every hook added before it.
 * `user_data` is passed to every call; `user_data_free` (may be NULL) is called once when the
 * hook is removed or the host freed.
 * Returns PLUGLINE_OK, PLUGLINE_EINVALID (NULL host/options/fn, empty id) or PLUGLINE_EEXISTS
 * (a native hook with that id exists; user_data_free is then not called). */
PLUGLINE_API plugline_status plugline_host_add_hook(plugline_host *host,
                                                    const plugline_hook_options *options,
                                                    plugline_hook_fn fn, void *user_data,
                                                    void (*user_data_free)(void *));

/* Removes a native hook. Returns PLUGLINE_OK, PLUGLINE_EINVALID or PLUGLINE_ENOTFOUND. */
PLUGLINE_API plugline_status plugline_host_remove_hook(plugline_host *host, const char *id);

/* ---- OpenCode plugins: hooks by name, tools, client ------------------------------------- */

/* Runs the OpenCode hook `name` ("shell.env", "chat.params", "tool.execute.before", …) of every
 * plugin that has it, in dispatch order, with `input_json` and `output_json` (JSON objects);
 * each plugin mutates the output the previous one left (docs/plugins-opencode.md).
 * *out_json: {"name", "output", "errors": [{"plugin","message"}], "plugins": [{"plugin","ms"}]}
 * — a hook that throws is listed under "errors" and the other plugins still run.
 * Returns PLUGLINE_OK or PLUGLINE_EINVALID (empty name, input/output not JSON objects). */
PLUGLINE_API plugline_status plugline_host_trigger(char **out_json, size_t *out_len,
                                                   plugline_host *host, const char *name,
                                                   const char *input_json, size_t input_len,
                                                   const char *output_json, size_t output_len);

/* The tools plugins add: {"tools": [{"name", "description", "parameters" (JSON Schema),
 * "plugin", "overrides_builtin"}]}. `builtin_tools` (a JSON array of names, ["read","bash"];
 * may be NULL; the comma-separated form of ABI version 1 is still read) are the host's own
 * tool names, so that a plugin tool replacing one says so. Returns PLUGLINE_OK or
 * PLUGLINE_EINVALID (builtin_tools starts with '[' but is not a JSON array of strings). */
PLUGLINE_API plugline_status plugline_host_tools(char **out_json, size_t *out_len,
                                                 plugline_host *host, const char *builtin_tools);

/* Runs a plugin tool with `args_json` (a JSON object; validated, defaults applied) and
 * `context_json` ({sessionID, messageID, agent, directory, worktree}; may be NULL).
 * *out_json: {"ok", "output", "error", "title", "metadata", "plugin"} — a tool that throws or
 * gets bad arguments is "ok": false with the error. Returns PLUGLINE_OK, PLUGLINE_EINVALID or
 * PLUGLINE_ENOTFOUND (no plugin has the tool). */
PLUGLINE_API plugline_status plugline_host_execute_tool(char **out_json, size_t *out_len,
                                                        plugline_host *host, const char *name,
                                                        const char *args_json, size_t args_len,
                                                        const char *context_json,
                                                        size_t context_len);

/* Where a callback puts its reply; valid only during the callback. */
typedef struct plugline_reply plugline_reply;
/* Sets the reply: JSON text. Returns PLUGLINE_EINVALID when it is not valid JSON. */
PLUGLINE_API plugline_status plugline_reply_set(plugline_reply *reply, const char *json,
                                                size_t len);

/* An OpenCode plugin's `client.<path>(...args)`: `path` is "app.log", `args_json` the JSON array
 * of arguments. Reply with plugline_reply_set and return 0 (the plugin's promise resolves to
 * the reply; no reply is null); return non-zero to reject it (plugline_reply_set may give the
 * message as a JSON string). Called on the thread running the plugin's hook. */
typedef int (*plugline_client_fn)(const char *path, const char *args_json, size_t args_len,
                                  plugline_reply *reply, void *user_data);

/* ---- OpenCode plugins the host runs itself ---------------------------------------------- */

/* Runs the plugin's OpenCode hook `name` ("tool.execute.before", "event", "shell.env", …) with
 * `input_json` and `output_json` (JSON objects, as OpenCode passes them; docs/plugins-opencode.md
 * "Plugins the host runs"). Reply with plugline_reply_set and return 0: the reply is
 * {"output": <the output the hook left>} or, when the hook threw, {"output": …, "error":
 * "<message>"} (a throw in tool.execute.before denies the call, its message the reason). No
 * reply: the output is unchanged. Return non-zero when the plugin itself failed (its engine is
 * gone, it timed out): it is skipped, or denies pre_tool_call when it fails closed;
 * plugline_reply_set may give the message as a JSON string. Called on the thread that
 * dispatches or triggers; must not call back into the same host. */
typedef int (*plugline_named_hook_fn)(const char *name, const char *input_json, size_t input_len,
                                      const char *output_json, size_t output_len,
                                      plugline_reply *reply, void *user_data);

/* Runs the plugin's tool `name` with `args_json` (a JSON object) and `context_json`
 * ({sessionID, messageID, agent, directory, worktree}). Reply {"ok": true, "output": "…",
 * "title": "…", "metadata": {…}} or {"ok": false, "error": "…"} (the tool threw, or refused
 * the arguments) and return 0; non-zero as for plugline_named_hook_fn. */
typedef int (*plugline_tool_fn)(const char *name, const char *args_json, size_t args_len,
                                const char *context_json, size_t context_len,
                                plugline_reply *reply, void *user_data);

typedef struct plugline_opencode_plugin_options {
  size_t struct_size; /* sizeof(plugline_opencode_plugin_options) */
  const char *id;     /* unique among the host's native hooks and OpenCode plugins */
  /* The OpenCode hooks it has, a JSON array of names: ["tool.execute.before","event"]. */
  const char *hooks;
  /* The tools it adds, a JSON array of {"name", "description", "parameters" (a JSON Schema
   * object)}; NULL or [] for none. */
  const char *tools;
  int fail_closed; /* non-zero: a failure counts as a deny on pre_tool_call */
} plugline_opencode_plugin_options;

#define PLUGLINE_OPENCODE_PLUGIN_OPTIONS_INIT \
  {sizeof(plugline_opencode_plugin_options), NULL, NULL, NULL, 0}

/* Adds an OpenCode plugin the host runs itself — in its own JavaScript engine, or written in
 * C — to the host: it joins the chain after every plugin found in plugin directories and
 * before the native hooks; canonical events reach its hooks as they reach an OpenCode plugin
 * file's (pre_tool_call → tool.execute.before, post_tool_call → tool.execute.after, session
 * and turn events → event, …), plugline_host_trigger reaches any hook it names, and its tools
 * are listed and run with the plugins' tools. `tool_fn` may be NULL when it has no tools.
 * `user_data_free` (may be NULL) is called once when the plugin is removed or the host freed.
 * Its `dispose` hook is the host's to run.
 * Returns PLUGLINE_OK, PLUGLINE_EINVALID (NULL host/options/hook_fn, empty id, hooks or tools
 * not the JSON described, tools without tool_fn) or PLUGLINE_EEXISTS (a native hook or
 * OpenCode plugin with that id exists; user_data_free is then not called). */
PLUGLINE_API plugline_status plugline_host_add_opencode_plugin(
    plugline_host *host, const plugline_opencode_plugin_options *options,
    plugline_named_hook_fn hook_fn, plugline_tool_fn tool_fn, void *user_data,
    void (*user_data_free)(void *));

/* Removes one. Returns PLUGLINE_OK, PLUGLINE_EINVALID or PLUGLINE_ENOTFOUND. */
PLUGLINE_API plugline_status plugline_host_remove_opencode_plugin(plugline_host *host,
                                                                 const char *id);

/* Installs the client callback OpenCode plugins' `client` calls reach. fn == NULL removes it
 * (client calls then reject). `user_data_free` (may be NULL) is called when no host uses it. */
PLUGLINE_API plugline_status plugline_config_set_client(plugline_config *config,
                                                        plugline_client_fn fn, void *user_data,
                                                        void (*user_data_free)(void *));

/* ctx.serverUrl of OpenCode plugins (NULL: none), and the JSON object their `config` hooks
 * receive after loading (NULL: {}). */
PLUGLINE_API plugline_status plugline_config_set_server_url(plugline_config *config,
                                                            const char *url);
PLUGLINE_API plugline_status plugline_config_set_plugin_config(plugline_config *config,
                                                               const char *json);

/* ---- Experimental: not covered by the stability promise ---------------------------------- */

/* Loads the ES module at `module_path` (relative imports inside its directory work), calls the
 * function `function` of its default export (or the default export itself when `function` is
 * NULL or "") with the arguments in `args_json` (a JSON array, `args_len` bytes), awaits a
 * returned promise, and returns the result as JSON in *out_json (released with plugline_free).
 * The call is bounded by `timeout_ms` (0: 5000).
 *
 * Returns PLUGLINE_OK, PLUGLINE_EINVALID, PLUGLINE_ENOTFOUND (no such file or function),
 * PLUGLINE_ETIMEOUT, PLUGLINE_ERESOURCE (heap limit), PLUGLINE_EUNAVAILABLE (built without
 * V8, or the V8 backend failed to load) or PLUGLINE_EPLUGIN (the module threw or did not
 * load: the message has the exception and its file:line).
 *
 * Each call loads the module into a fresh V8 isolate (a few milliseconds). `timeout_ms` bounds
 * the module's top level and, separately, the call. May be called from any thread. */
PLUGLINE_API plugline_status plugline_js_call(char **out_json, size_t *out_len,
                                              const char *module_path, const char *function,
                                              const char *args_json, size_t args_len,
                                              uint32_t timeout_ms);

#ifdef __cplusplus
}
#endif

#endif /* PLUGLINE_PLUGLINE_H */
