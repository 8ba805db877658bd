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
"""A forge double for Kiln's tests: exactly the three documented commit status endpoints, the
documented member lookups, and the review endpoints of forge_reviews.py.

    POST /repos/{owner}/{repo}/statuses/{sha}   GitHub (Authorization: Bearer TOKEN)
                                                Gitea  (Authorization: token TOKEN)
    POST /projects/{id}/statuses/{sha}          GitLab (PRIVATE-TOKEN: TOKEN; id URL-encoded)
    GET /repos/{owner}/{repo}/collaborators/{login}
                                                GitHub, Gitea: 204 a collaborator, 404 not
    GET /projects/{id}/members/all?query={text}
                                                GitLab: the members whose username holds text,
                                                [{id, username, access_level}]

The members are the logins in DIR/members (one per line, "login level" for a GitLab access
level other than 30, Developer); every lookup is appended to DIR/member-lookups.

A request with the right token and a valid body is answered 201 and written to DIR/<n>.json
(forge, project, sha, the JSON body, the time it arrived); a missing or wrong token is answered
401 with the forge's message, an invalid body 422, anything else 404. Writes its port to DIR/port
once it listens, and runs until stopped or its standard input closes.

    forge_server.py --dir DIR --token TOKEN [--host ADDRESS] [--port N]
"""
import argparse
import http.server
import itertools
import json
import os
import re
import sys
import threading
import time
import urllib.parse

from forge_reviews import Reviews

GITHUB_STATES = {"pending", "success", "failure", "error"}
GITEA_STATES = {"pending", "success", "failure", "error", "warning"}
GITLAB_STATES = {"pending", "running", "success", "failed", "canceled"}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    options = parser.parse_args()
    counter = itertools.count(1 + len([n for n in os.listdir(options.dir) if n.endswith(".json")]))
    lock = threading.Lock()
    reviews = Reviews(options.dir, options.token)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format, *args):
            pass

        def answer(self, code, body):
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def review(self, method):
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            answered = reviews.handle(method, self.path, self.headers, raw)
            if answered is not None:
                self.answer(*answered)
            return answered is not None, raw

        def members(self):
            try:
                with open(os.path.join(options.dir, "members")) as file:
                    lines = [line.split() for line in file if line.strip()]
            except FileNotFoundError:
                return {}
            return {fields[0]: int(fields[1]) if len(fields) > 1 else 30 for fields in lines}

        def member_lookup(self):
            split = urllib.parse.urlsplit(self.path)
            hub = re.fullmatch(r"/repos/([^/]+/[^/]+)/collaborators/([^/]+)", split.path)
            lab = re.fullmatch(r"/projects/([^/]+)/members/all", split.path)
            if not hub and not lab:
                return False
            authorization = self.headers.get("Authorization") or ""
            if hub:
                token = authorization.split(" ", 1)[1] if authorization.startswith(("Bearer ", "token ")) else None
            else:
                token = self.headers.get("PRIVATE-TOKEN")
                if "/" in lab.group(1):
                    self.answer(404, {"message": "404 Project Not Found"})
                    return True
            if token != options.token:
                self.answer(401, {"message": "Bad credentials"})
                return True
            members = self.members()
            with lock:
                with open(os.path.join(options.dir, "member-lookups"), "a") as file:
                    file.write(self.path + "\n")
            if hub:
                login = urllib.parse.unquote(hub.group(2))
                if login in members:
                    self.send_response(204)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                else:
                    self.answer(404, {"message": "Not Found"})
                return True
            query = urllib.parse.parse_qs(split.query).get("query", [""])[0]
            found = [
                {"id": n + 1, "username": login, "access_level": level}
                for n, (login, level) in enumerate(sorted(members.items()))
                if query.lower() in login.lower()
            ]
            self.answer(200, found)
            return True

        def do_GET(self):
            if self.member_lookup():
                return
            if not self.review("GET")[0]:
                self.answer(404, {"message": "Not Found"})

        def do_PATCH(self):
            if not self.review("PATCH")[0]:
                self.answer(404, {"message": "Not Found"})

        def do_PUT(self):
            if not self.review("PUT")[0]:
                self.answer(404, {"message": "Not Found"})

        def do_POST(self):
            answered, raw = self.review("POST")
            if answered:
                return
            path = urllib.parse.urlsplit(self.path).path
            hub = re.fullmatch(r"/repos/([^/]+/[^/]+)/statuses/([0-9a-f]{40})", path)
            lab = re.fullmatch(r"/projects/([^/]+)/statuses/([0-9a-f]{40})", path)
            authorization = self.headers.get("Authorization") or ""
            if hub:
                project, sha = hub.group(1), hub.group(2)
                if authorization.startswith("Bearer "):
                    forge, states, name_key = "github", GITHUB_STATES, "context"
                elif authorization.startswith("token "):
                    forge, states, name_key = "gitea", GITEA_STATES, "context"
                else:
                    return self.answer(401, {"message": "Requires authentication"})
                if authorization.split(" ", 1)[1] != options.token:
                    return self.answer(401, {"message": "Bad credentials"})
            elif lab:
                project, sha = urllib.parse.unquote(lab.group(1)), lab.group(2)
                forge, states, name_key = "gitlab", GITLAB_STATES, "name"
                if "/" in lab.group(1):
                    return self.answer(404, {"message": "404 Project Not Found"})
                if self.headers.get("PRIVATE-TOKEN") != options.token:
                    return self.answer(401, {"message": "401 Unauthorized"})
            else:
                return self.answer(404, {"message": "Not Found"})
            try:
                body = json.loads(raw)
            except ValueError:
                return self.answer(400, {"message": "Problems parsing JSON"})
            if not isinstance(body, dict) or body.get("state") not in states or not isinstance(body.get(name_key), str):
                return self.answer(422, {"message": "Validation Failed", "body": body})
            with lock:
                number = next(counter)
                record = {"forge": forge, "project": project, "sha": sha, "body": body, "received": time.time(), "n": number}
                temporary = os.path.join(options.dir, f"{number:06d}.tmp")
                with open(temporary, "w") as file:
                    json.dump(record, file)
                os.rename(temporary, os.path.join(options.dir, f"{number:06d}.json"))
            self.answer(201, {"id": number, "state": body["state"], "context": body.get(name_key)})

    server = http.server.ThreadingHTTPServer((options.host, options.port), Handler)
    server.daemon_threads = True
    with open(os.path.join(options.dir, "port.tmp"), "w") as file:
        file.write(str(server.server_address[1]))
    os.rename(os.path.join(options.dir, "port.tmp"), os.path.join(options.dir, "port"))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    # Until stopped, or until the test's end of the pipe closes.
    sys.stdin.read()


if __name__ == "__main__":
    main()
