// The usage text of the `plugline` command line.
#ifndef PLUGLINE_CLI_USAGE_H_
#define PLUGLINE_CLI_USAGE_H_

#include <string_view>

namespace plugline::cli {

inline constexpr std::string_view kUsage =
    "usage: plugline <command> [options]\n"
    "\n"
    "commands:\n"
    "  run [--raw] [--json] [--shaper ID] [--] COMMAND [ARG...]\n"
    "        run COMMAND, store its full output under $PLUGLINE_HOME/outputs, print a\n"
    "        summary, and exit with COMMAND's exit code\n"
    "          --raw         no shaping: pass the output through unchanged\n"
    "          --json        print the shaping result as JSON\n"
    "          --shaper ID   use this shaper instead of the best match\n"
    "  shape --command CMD [--exit-code N] [--json] [--shaper ID]\n"
    "        shape output read from standard input, as if CMD had printed it\n"
    "  hook EVENT [--payload FILE]\n"
    "        dispatch EVENT (pre_tool_call, post_tool_call, session_start, ...) to the hook\n"
    "        plugins with the JSON payload read from FILE (- or none: standard input) and\n"
    "        print the result as JSON; exit status 0, or 3 when a plugin denied\n"
    "  hook --agent AGENT [--fail-closed] [--shaping auto|replace|wrap|off] [EVENT]\n"
    "        be AGENT's hook command (claude-code, codex, gemini, cursor, copilot; opencode\n"
    "        for plugline's OpenCode plugin): read its\n"
    "        hook call on standard input, dispatch it, answer in AGENT's format; a shell\n"
    "        command is wrapped in `plugline run --` where AGENT would run it without asking,\n"
    "        else its output shaped into the answer where AGENT can replace it\n"
    "        (docs/agents.md). plugline's own failure fails open, or blocks with --fail-closed\n"
    "  install --agent AGENT [--project] [--dry-run] [--uninstall]\n"
    "        write plugline's hook command into AGENT's hook settings (yours, or the\n"
    "        project's), merged, with a backup; --dry-run prints the diff; --uninstall takes\n"
    "        out exactly what it added\n"
    "  trigger NAME [--input JSON] [--output JSON]\n"
    "        run the OpenCode hook NAME (shell.env, chat.params, ...) of every plugin that has\n"
    "        it with (input, output) and print the result JSON (the final output, errors);\n"
    "        `-` for one of them reads that JSON from standard input\n"
    "  tools [--json]\n"
    "        the tools plugins add: name, plugin, description (--json: with JSON Schema)\n"
    "  tool NAME [--args JSON] [--context JSON]\n"
    "        run a plugin tool and print its result JSON; exit status 0, or 1 when it failed\n"
    "  plugins [--json]\n"
    "        every plugin: built-in shapers, JS shapers, exec hooks (id, kind, tier, state,\n"
    "        statistics); broken plugins with the reason they do not run\n"
    "  stats [--json]\n"
    "        per-shaper statistics: matches, shapes, tokens saved, shape time\n"
    "  trust [DIR]\n"
    "        trust the project DIR (default: the current directory): its .plugline/ config\n"
    "        and plugins may load from now on, as they are now (a changed or added file needs\n"
    "        trusting again); prints each file it trusts with its SHA-256\n"
    "  trust --show [DIR]\n"
    "        what `trust DIR` would trust, and whether DIR is trusted now (files added,\n"
    "        changed or removed since); trusts nothing\n"
    "  trust --revoke [DIR]   (or: untrust [DIR])\n"
    "        stop trusting the project DIR\n"
    "  trust --list\n"
    "        the trusted projects\n"
    "  server [--idle-timeout SECONDS] | server start | server status [--json] | server stop\n"
    "        the per-user server of $PLUGLINE_HOME (a Unix socket in $PLUGLINE_HOME/run/) that\n"
    "        keeps plugins loaded between commands: run it in the foreground, start it in the\n"
    "        background, show it (exit 3 when none runs), stop it. run, shape, hook, trigger,\n"
    "        tools, tool and plugins use it when it runs, and start it when a JS plugin is\n"
    "        enabled (config.yaml server: auto | always | never; docs/server.md)\n"
    "  version\n"
    "        print plugline's version\n"
    "\n"
    "environment: PLUGLINE_HOME (default ~/.plugline), PLUGLINE_SERVER=0 (no server: every\n"
    "command in its own process)\n";


}  // namespace plugline::cli

#endif  // PLUGLINE_CLI_USAGE_H_
