#!/usr/bin/env python3
"""A real HTTP server on loopback for the catalog tests.

usage: serve.py DIRECTORY PORT_FILE

Serves DIRECTORY on 127.0.0.1 at a free port, writes the port to PORT_FILE once listening,
and stops on GET /quit (or after 120 s). /redirect/<name> answers 302 to /<name>;
/redirect-file/<path> answers 302 to file:///<path>; /slow/<name> waits 5 s before answering;
/truncated/<name> promises the whole file and sends half of it. Every request path is
appended to DIRECTORY/../requests.log with the If-Modified-Since and If-None-Match it carried
and the status sent.
"""
import functools
import http.server
import os
import sys
import threading
import time


class Handler(http.server.SimpleHTTPRequestHandler):
    def send_response(self, code, message=None):
        log = os.path.join(os.path.dirname(os.path.abspath(self.directory)), "requests.log")
        with open(log, "a") as f:
            f.write("%s %d ims=%s inm=%s\n" % (self.path, code,
                                               self.headers.get("If-Modified-Since", "-"),
                                               self.headers.get("If-None-Match", "-")))
        super().send_response(code, message)

    def do_GET(self):
        if self.path == "/quit":
            self.send_response(200)
            self.end_headers()
            threading.Thread(target=self.server.shutdown).start()
            return
        if self.path.startswith("/redirect-file/"):
            self.send_response(302)
            self.send_header("Location", "file:///" + self.path[len("/redirect-file/"):])
            self.end_headers()
            return
        if self.path.startswith("/slow/"):
            time.sleep(5)
            self.path = "/" + self.path[len("/slow/"):]
        if self.path.startswith("/truncated/"):
            name = os.path.join(self.directory, self.path[len("/truncated/"):])
            with open(name, "rb") as f:
                data = f.read()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
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
