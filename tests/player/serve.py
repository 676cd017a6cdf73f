#!/usr/bin/python3
"""The player test's HTTP server: the page, the players (node_modules) and a package, on loopback.

Each URL prefix maps to one directory, so the page, the npm cache and the test's temp dir stay
where they are. MIME types are those a player expects (Python's own table has no .m3u8, .mpd or
.m4s, and MSE rejects nothing by type, but hls.js and dash.js check the manifests' types).

    tests/player/serve.py /=tests/player /lib=CACHE/node_modules /media=TMP/package
prints the URL it listens on (127.0.0.1, a free port) and serves until interrupted.
"""

import functools
import http.server
import os
import sys
import threading
import time
import urllib.parse
from pathlib import Path

MIME_TYPES = {
    ".m3u8": "application/vnd.apple.mpegurl",
    ".mpd": "application/dash+xml",
    ".m4s": "video/iso.segment",
    ".mp4": "video/mp4",
    ".m4a": "audio/mp4",
    ".ts": "video/mp2t",
    ".vtt": "text/vtt",
    ".jpg": "image/jpeg",
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".html": "text/html",
    ".json": "application/json",
}


class _Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **MIME_TYPES}

    def __init__(self, *args, routes, **kwargs):
        self._routes = routes
        super().__init__(*args, directory="/nonexistent", **kwargs)

    def do_GET(self):
        """/pace?ms=N answers after N ms (at most 1000): the page's clock (see player.js)."""
        url = urllib.parse.urlsplit(self.path)
        if url.path != "/pace":
            return super().do_GET()
        milliseconds = urllib.parse.parse_qs(url.query).get("ms", ["100"])[0]
        if not milliseconds.isdigit():
            self.send_error(400, "ms must be a whole number")
            return None
        time.sleep(min(int(milliseconds), 1000) / 1000)
        self.send_response(204)
        self.end_headers()
        return None

    def translate_path(self, path):
        """Maps /prefix/rest to ROOT/rest for the longest matching prefix; nothing above ROOT."""
        url_path = urllib.parse.unquote(urllib.parse.urlsplit(path).path)
        for prefix, root in self._routes:
            if url_path == prefix or url_path.startswith(prefix.rstrip("/") + "/"):
                rest = url_path[len(prefix.rstrip("/")):].lstrip("/")
                target = (root / rest).resolve()
                if target == root or root in target.parents:
                    return str(target)
        return "/nonexistent"

    def end_headers(self):
        # Every run serves a fresh package under the same names: no caching between loads.
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, format, *args):  # noqa: A002 (the base class's name)
        if os.environ.get("TC_PLAYER_HTTP_LOG"):
            super().log_message(format, *args)


class Server:
    """A threaded HTTP server on 127.0.0.1 and a free port, stopped by close() or `with`."""

    def __init__(self, routes):
        ordered = sorted(((p, Path(r).resolve()) for p, r in routes.items()),
                         key=lambda route: len(route[0]), reverse=True)
        handler = functools.partial(_Handler, routes=ordered)
        self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self):
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def close(self):
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def main(argv):
    routes = dict(arg.split("=", 1) for arg in argv[1:])
    if not routes:
        print(__doc__, file=sys.stderr)
        return 2
    with Server(routes) as server:
        print(server.url, flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
