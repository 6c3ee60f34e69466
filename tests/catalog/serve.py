#!/usr/bin/env python3
"""A real HTTP server on loopback for the catalog tests.

usage: serve.py DIRECTORY PORT_FILE

Serves DIRECTORY on 127.0.0.1 at a free port, writes the port to PORT_FILE once listening,
and stops on GET /quit (or after 120 s). /redirect/<name> answers 302 to /<name>.
"""
import functools
import http.server
import os
import sys
import threading


class Handler(http.server.SimpleHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/quit":
            self.send_response(200)
            self.end_headers()
            threading.Thread(target=self.server.shutdown).start()
            return
        if self.path.startswith("/redirect/"):
            self.send_response(302)
            self.send_header("Location", "/" + self.path[len("/redirect/"):])
            self.end_headers()
            return
        super().do_GET()

    def log_message(self, *args):
        pass


def main():
    directory, port_file = sys.argv[1], sys.argv[2]
    handler = functools.partial(Handler, directory=directory)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Timer(120, server.shutdown).start()
    tmp = port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(tmp, port_file)
    server.serve_forever()
    os._exit(0)


if __name__ == "__main__":
    main()
