"""
moto_server for the tests, with moto's request handling run one request at a time.

moto checks a PUT's If-Match / If-None-Match and then writes the object as two separate steps without a
lock (moto/s3/responses.py), so on its threaded server two racing conditional PUTs can both pass the check:
the contract suite's ifMatch race once ended with 49 of 50 increments, and two `create` winners are possible
the same way. Amazon S3 performs the check and the write atomically. A lock around moto's WSGI app gives
moto the same atomicity; the HTTP server stays threaded, so keep-alive connections stay concurrent.

Usage: python moto_atomic_server.py -H 127.0.0.1 -p PORT
"""

import argparse
import os
import threading

from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
from werkzeug.serving import run_simple


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-H", "--host", default="127.0.0.1")
    parser.add_argument("-p", "--port", type=int, required=True)
    args = parser.parse_args()
    os.environ.setdefault("MOTO_PORT", str(args.port))

    app = DomainDispatcherApplication(create_backend_app)
    app.debug = True
    lock = threading.Lock()

    def one_at_a_time(environ, start_response):
        with lock:
            # moto answers with whole bodies: build the response inside the lock.
            return list(app(environ, start_response))

    run_simple(args.host, args.port, one_at_a_time, threaded=True)


if __name__ == "__main__":
    main()
