#!/usr/bin/env python3
##===----------------------------------------------------------------------===##
##
## This source file is part of the Kiln open source project
##
## Copyright (c) 2026 the Kiln project authors
## Licensed under Apache License v2.0
##
## See LICENSE for license information
##
## SPDX-License-Identifier: Apache-2.0
##
##===----------------------------------------------------------------------===##
"""A real SMTP server on 127.0.0.1 (or --host) for Kiln's tests (Debian's python3-aiosmtpd).

Writes each message it accepts to DIR/<n>.json with the envelope, whether the session was
encrypted and authenticated, and the message text. Prints "listening on PORT" and writes PORT to DIR/port once ready and runs
until stopped or its standard input closes.

    smtp_server.py --dir DIR [--host ADDRESS] [--port N] [--tls CERT KEY] [--require-starttls]
                   [--auth USER:PASSWORD] [--reject ADDRESS ...]
"""
import argparse
import email
import email.policy
import itertools
import json
import os
import socket
import ssl
import sys
import threading

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword


class Handler:
    def __init__(self, directory, reject):
        self.directory = directory
        self.reject = {address.lower() for address in reject}
        self.counter = itertools.count(1)

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.lower() in self.reject:
            return f"550 5.1.1 <{address}>: Recipient address rejected: User unknown"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        number = next(self.counter)
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        parts = {}
        for part in message.walk():
            if not part.is_multipart():
                parts[part.get_content_type()] = part.get_content()
        record = {
            "subject": str(message.get("Subject", "")),
            "headers": {name: str(value) for name, value in message.items()},
            "parts": parts,
            "from": envelope.mail_from,
            "to": envelope.rcpt_tos,
            "tls": session.ssl is not None,
            "authenticated": bool(session.authenticated),
            "data": envelope.content.decode("utf-8", errors="replace"),
        }
        path = os.path.join(self.directory, f"{number:06d}.json")
        with open(path + ".tmp", "w") as file:
            json.dump(record, file)
        os.rename(path + ".tmp", path)
        return "250 Message accepted for delivery"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    parser.add_argument("--require-starttls", action="store_true")
    parser.add_argument("--auth")
    parser.add_argument("--reject", nargs="*", default=[])
    options = parser.parse_args()

    tls_context = None
    if options.tls:
        tls_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        tls_context.load_cert_chain(*options.tls)

    def authenticator(server, session, envelope, mechanism, auth_data):
        user, _, password = options.auth.partition(":")
        if isinstance(auth_data, LoginPassword) and auth_data.login.decode() == user and auth_data.password.decode() == password:
            return AuthResult(success=True)
        # handled=False: aiosmtpd answers 535 at once (handled=True would leave the client waiting).
        return AuthResult(success=False, handled=False)

    extra = {}
    if options.auth:
        extra = dict(authenticator=authenticator, auth_required=True, auth_require_tls=bool(tls_context))
    port = options.port
    if port == 0:
        with socket.socket() as probe:
            probe.bind((options.host, 0))
            port = probe.getsockname()[1]
    controller = Controller(
        Handler(options.dir, options.reject), hostname=options.host, port=port,
        tls_context=tls_context, require_starttls=options.require_starttls, **extra)
    controller.start()
    print(f"listening on {port}", flush=True)
    with open(os.path.join(options.dir, "port.tmp"), "w") as file:
        file.write(str(port))
    os.rename(os.path.join(options.dir, "port.tmp"), os.path.join(options.dir, "port"))
    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    stop.wait()
    controller.stop()


if __name__ == "__main__":
    main()
