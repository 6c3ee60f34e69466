#!/usr/bin/env python3
# Answers each request line {"id":n,"event":...,"payload":{...}} with one line {"id":n,...}.
# What it does depends on the payload:
#   tool write_file outside /home/me/project  -> deny
#   tool terminal, command "crash"             -> says so on stderr, exits with status 3
#   tool terminal, command "hang"              -> touches the file `marker` (if given), hangs
#   tool terminal, command "hang-ignore-term"  -> the same, ignoring SIGTERM
#   tool terminal, command "garbage" / "array" / "no-id" / "id-ahead" / "huge"
#                                              -> a protocol violation of that kind
#   tool terminal, command "stale"             -> a stale answer (id - 1) first, then the real one
#   tool terminal, command "blank"             -> an empty line first, then the answer
#   tool terminal, command "bad-field"         -> {"id":n,"deny":"yes"}
#   tool terminal, command "stderr"            -> a line on stderr, then the notice below
#   tool terminal, any other command           -> rewrites it: command + $SUFFIX
#   anything else                              -> notice "pid=P calls=N event=E"
import json
import os
import signal
import sys
import time

calls = 0


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def hang(args, ignore_term):
    if ignore_term:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    marker = args.get("marker")
    if marker:
        with open(marker, "w") as f:
            f.write(str(os.getpid()))
    while True:
        time.sleep(1)


for line in iter(sys.stdin.readline, ""):
    request = json.loads(line)
    calls += 1
    rid = request["id"]
    payload = request["payload"]
    notice = "pid=%d calls=%d id=%d event=%s" % (os.getpid(), calls, rid, request["event"])
    tool = payload.get("tool")
    if tool == "write_file":
        path = json.loads(payload.get("arguments", "{}")).get("path", "")
        if path.startswith("/home/me/project/"):
            send({"id": rid})
        else:
            send({"id": rid, "deny": True, "reason": "writes are limited to /home/me/project"})
        continue
    if tool != "terminal":
        send({"id": rid, "notice": notice})
        continue
    args = json.loads(payload.get("arguments", "{}"))
    command = args.get("command", "")
    if command == "crash":
        sys.stderr.write("crashing on request %d\n" % rid)
        sys.stderr.flush()
        os._exit(3)
    elif command in ("hang", "hang-ignore-term"):
        hang(args, command == "hang-ignore-term")
    elif command == "garbage":
        sys.stdout.write("hello, world\n")
        sys.stdout.flush()
    elif command == "array":
        sys.stdout.write("[1, 2]\n")
        sys.stdout.flush()
    elif command == "no-id":
        send({"deny": True})
    elif command == "id-ahead":
        send({"id": rid + 1})
    elif command == "huge":
        send({"id": rid, "notice": "x" * (5 << 20)})
    elif command == "stale":
        send({"id": rid - 1, "deny": True, "reason": "stale"})
        send({"id": rid, "notice": notice})
    elif command == "blank":
        sys.stdout.write("\n")
        sys.stdout.flush()
        send({"id": rid, "notice": notice})
    elif command == "bad-field":
        send({"id": rid, "deny": "yes"})
    elif command == "stderr":
        sys.stderr.write("note from %d\n" % os.getpid())
        sys.stderr.flush()
        send({"id": rid, "notice": notice})
    else:
        args["command"] = command + os.environ["SUFFIX"]
        send({"id": rid, "arguments": json.dumps(args)})
