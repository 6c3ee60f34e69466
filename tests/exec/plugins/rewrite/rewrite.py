#!/usr/bin/env python3
import json, os, sys

payload = json.load(sys.stdin)
if payload.get("event") != "pre_tool_call" or payload.get("tool") != "terminal":
    print("{}")
    sys.exit(0)
arguments = json.loads(payload.get("arguments", "{}"))
arguments["command"] = arguments.get("command", "") + os.environ["SUFFIX"]
print("rewrote " + arguments["command"], file=sys.stderr)
print(json.dumps({"arguments": json.dumps(arguments)}))
