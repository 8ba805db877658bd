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
"""The review endpoints of forge_server.py: pull request reviews and comments as GitHub, Gitea
and GitLab publish them, with their auth headers and JSON shapes.

GitHub (Authorization: Bearer TOKEN)
    POST  /repos/{owner}/{repo}/pulls/{n}/reviews            {commit_id, event, body, comments[{path, line, side, body}]}
    GET   /repos/{owner}/{repo}/pulls/{n}/reviews/{id}/comments
    PATCH /repos/{owner}/{repo}/pulls/comments/{id}           {body}
    POST  /repos/{owner}/{repo}/issues/{n}/comments           {body}
    PATCH /repos/{owner}/{repo}/issues/comments/{id}          {body}
Gitea (Authorization: token TOKEN)
    POST  /repos/{owner}/{repo}/pulls/{n}/reviews            {commit_id, event, body, comments[{path, new_position, body}]}
    GET   /repos/{owner}/{repo}/pulls/{n}/reviews/{id}/comments
    POST  /repos/{owner}/{repo}/issues/{n}/comments           {body}
    PATCH /repos/{owner}/{repo}/issues/comments/{id}          {body}   (review comments too)
GitLab (PRIVATE-TOKEN: TOKEN; the project's path URL-encoded)
    GET   /projects/{id}/merge_requests/{iid}                 -> {iid, diff_refs{base_sha, start_sha, head_sha}}
    POST  /projects/{id}/merge_requests/{iid}/discussions     {body, position{position_type, base_sha, start_sha, head_sha, new_path, new_line}}
    PUT   /projects/{id}/merge_requests/{iid}/discussions/{id}?resolved=true
    POST  /projects/{id}/merge_requests/{iid}/notes           {body}
    PUT   /projects/{id}/merge_requests/{iid}/notes/{id}      {body}

A comment on a line the pull request did not change is refused as each forge refuses it
(GitHub 422, the whole review; Gitea 422; GitLab 400): the test writes each pull request's changed
lines to DIR/reviews/diff-{n}.txt, one `path:line` a line, and GitLab's diff_refs are the SHAs in
DIR/reviews/refs-{n}.txt. Every request that is answered is recorded in DIR/reviews/NNNNNN.json
(forge, method, path, body, code), and the forge's state is kept in DIR/reviews/state.json, so
that a restart keeps it.
"""
import json
import os
import re
import threading
import time
import urllib.parse


class Reviews:
    def __init__(self, directory, token):
        self.directory = os.path.join(directory, "reviews")
        os.makedirs(self.directory, exist_ok=True)
        self.token = token
        self.lock = threading.Lock()
        self.state_file = os.path.join(self.directory, "state.json")
        if os.path.exists(self.state_file):
            with open(self.state_file) as file:
                self.state = json.load(file)
        else:
            self.state = {"next": 1, "requests": 0, "comments": {}, "reviews": {}, "discussions": {}}

    # Routing: None when the request is not a review endpoint.
    def handle(self, method, path, headers, raw):
        split = urllib.parse.urlsplit(path)
        route = split.path
        query = urllib.parse.parse_qs(split.query)
        hub = re.fullmatch(r"/repos/([^/]+/[^/]+)/(pulls|issues)/(.+)", route)
        lab = re.fullmatch(r"/projects/([^/]+)/merge_requests/([0-9]+)(/.*)?", route)
        if hub:
            authorization = headers.get("Authorization") or ""
            if authorization.startswith("Bearer "):
                forge = "github"
            elif authorization.startswith("token "):
                forge = "gitea"
            else:
                return self.refuse("github", method, path, 401, {"message": "Requires authentication"})
            if authorization.split(" ", 1)[1] != self.token:
                return self.refuse(forge, method, path, 401, {"message": "Bad credentials"})
            if forge == "github" and "application/vnd.github+json" not in (headers.get("Accept") or ""):
                return self.refuse(forge, method, path, 415, {"message": "Unsupported 'Accept' header"})
            body = self.json(method, raw)
            if body is False:
                return 400, {"message": "Problems parsing JSON"}
            answer = self.hub(forge, method, hub.group(2), hub.group(3), body)
        elif lab:
            if "/" in lab.group(1):
                return 404, {"message": "404 Project Not Found"}
            if headers.get("PRIVATE-TOKEN") != self.token:
                return self.refuse("gitlab", method, path, 401, {"message": "401 Unauthorized"})
            body = self.json(method, raw)
            if body is False:
                return 400, {"message": "400 Bad request - JSON"}
            forge = "gitlab"
            answer = self.lab(method, int(lab.group(2)), lab.group(3) or "", body, query)
        else:
            return None
        if answer is None:
            return None
        code, reply = answer
        self.record(forge, method, path, body, code)
        return code, reply

    def refuse(self, forge, method, path, code, reply):
        self.record(forge, method, path, None, code)
        return code, reply

    @staticmethod
    def json(method, raw):
        if method == "GET":
            return None
        try:
            return json.loads(raw) if raw else {}
        except ValueError:
            return False

    def record(self, forge, method, path, body, code):
        with self.lock:
            self.state["requests"] += 1
            number = self.state["requests"]
            record = {"forge": forge, "method": method, "path": path, "body": body, "code": code, "received": time.time()}
            temporary = os.path.join(self.directory, f"{number:06d}.tmp")
            with open(temporary, "w") as file:
                json.dump(record, file)
            os.rename(temporary, os.path.join(self.directory, f"{number:06d}.json"))
            self.save()

    def save(self):
        temporary = self.state_file + ".tmp"
        with open(temporary, "w") as file:
            json.dump(self.state, file)
        os.rename(temporary, self.state_file)

    def new_id(self):
        with self.lock:
            value = self.state["next"]
            self.state["next"] += 1
            return value

    def changed(self, number):
        lines = set()
        try:
            with open(os.path.join(self.directory, f"diff-{number}.txt")) as file:
                for line in file.read().split():
                    lines.add(line)
        except FileNotFoundError:
            pass
        return lines

    # GitHub and Gitea.
    def hub(self, forge, method, kind, rest, body):
        review = re.fullmatch(r"([0-9]+)/reviews", rest)
        listed = re.fullmatch(r"([0-9]+)/reviews/([0-9]+)/comments", rest)
        comment = re.fullmatch(r"comments/([0-9]+)", rest)
        thread = re.fullmatch(r"([0-9]+)/comments", rest)
        if kind == "pulls" and review and method == "POST":
            return self.post_review(forge, int(review.group(1)), body)
        if kind == "pulls" and listed and method == "GET":
            found = self.state["reviews"].get(listed.group(2))
            if found is None or found["pull"] != int(listed.group(1)):
                return 404, {"message": "Not Found"}
            return 200, [self.state["comments"][str(i)] for i in found["comments"]]
        if comment and method == "PATCH" and (kind == "pulls" and forge == "github" or kind == "issues"):
            known = self.state["comments"].get(comment.group(1))
            # GitHub keeps review comments apart (/pulls/comments); Gitea edits both kinds
            # through /issues/comments (any comment type with content).
            if known is None or (forge == "github" and (kind == "pulls") != ("path" in known)):
                return 404, {"message": "Not Found"}
            if not isinstance(body, dict) or not isinstance(body.get("body"), str) or not body["body"]:
                return 422, {"message": "Validation Failed"}
            known["body"] = body["body"]
            return 200, known
        if kind == "issues" and thread and method == "POST":
            if not isinstance(body, dict) or not isinstance(body.get("body"), str) or not body["body"]:
                return 422, {"message": "Validation Failed"}
            identifier = self.new_id()
            created = {"id": identifier, "body": body["body"], "issue": int(thread.group(1))}
            self.state["comments"][str(identifier)] = created
            return 201, created
        return 404, {"message": "Not Found"}

    def post_review(self, forge, number, body):
        if not isinstance(body, dict) or not re.fullmatch(r"[0-9a-f]{40}", str(body.get("commit_id"))):
            return 422, {"message": "Validation Failed"}
        if body.get("event") not in ("COMMENT", "APPROVE", "REQUEST_CHANGES"):
            return 422, {"message": "Validation Failed", "errors": ["event"]}
        comments = body.get("comments") or []
        changed = self.changed(number)
        line_key = "line" if forge == "github" else "new_position"
        for item in comments:
            if not isinstance(item, dict) or not isinstance(item.get("path"), str) or not isinstance(item.get("body"), str):
                return 422, {"message": "Validation Failed"}
            if not isinstance(item.get(line_key), int) or (forge == "github" and item.get("side") not in ("LEFT", "RIGHT")):
                return 422, {"message": "Validation Failed"}
            # GitHub's comment over several lines: start_line before line, on the same side.
            start = item.get("start_line", item[line_key]) if forge == "github" else item[line_key]
            if not isinstance(start, int) or start > item[line_key] or ("start_line" in item and item.get("start_side") != item["side"]):
                return 422, {"message": "Validation Failed"}
            if any(f"{item['path']}:{line}" not in changed for line in (start, item[line_key])):
                message = "Line could not be resolved" if forge == "github" else "line is not in the diff"
                return 422, {"message": "Unprocessable Entity", "errors": [message]}
        review_id = self.new_id()
        ids = []
        for item in comments:
            identifier = self.new_id()
            self.state["comments"][str(identifier)] = {
                "id": identifier, "path": item["path"], "line": item[line_key], "body": item["body"], "pull_request_review_id": review_id,
                "start_line": item.get("start_line")}
            ids.append(identifier)
        self.state["reviews"][str(review_id)] = {"pull": number, "comments": ids, "commit_id": body["commit_id"]}
        # Neither answer lists the comments' ids: they are read back.
        return 200, {"id": review_id, "state": "COMMENTED", "commit_id": body["commit_id"], "body": body.get("body", "")}

    # GitLab.
    def lab(self, method, number, rest, body, query):
        refs = None
        try:
            with open(os.path.join(self.directory, f"refs-{number}.txt")) as file:
                base, start, head = file.read().split()
                refs = {"base_sha": base, "start_sha": start, "head_sha": head}
        except (FileNotFoundError, ValueError):
            pass
        if rest == "" and method == "GET":
            if refs is None:
                return 404, {"message": "404 Not found"}
            return 200, {"iid": number, "diff_refs": refs}
        if rest == "/discussions" and method == "POST":
            position = body.get("position") if isinstance(body, dict) else None
            if not isinstance(body, dict) or not isinstance(body.get("body"), str) or not isinstance(position, dict):
                return 400, {"message": "400 Bad request - body is missing"}
            wanted = {"position_type": "text", **(refs or {})}
            if any(position.get(key) != value for key, value in wanted.items()):
                return 400, {"message": "400 Bad request - position is invalid"}
            if not isinstance(position.get("new_line"), int) or not isinstance(position.get("new_path"), str):
                return 400, {"message": "400 Bad request - position is invalid"}
            if f"{position['new_path']}:{position['new_line']}" not in self.changed(number):
                return 400, {"message": {"base": ["line_code can't be blank", "must be a valid line code"]}}
            note = self.new_id()
            discussion = f"{note:040x}"
            self.state["comments"][str(note)] = {"id": note, "body": body["body"], "position": position}
            self.state["discussions"][discussion] = {"merge_request": number, "notes": [note], "resolved": False}
            return 201, {"id": discussion, "individual_note": False, "notes": [{"id": note, "body": body["body"], "resolvable": True}]}
        resolve = re.fullmatch(r"/discussions/([0-9a-f]+)", rest)
        if resolve and method == "PUT":
            found = self.state["discussions"].get(resolve.group(1))
            if found is None or found["merge_request"] != number:
                return 404, {"message": "404 Not found"}
            if query.get("resolved") != ["true"] and not (isinstance(body, dict) and body.get("resolved") is True):
                return 400, {"message": "400 Bad request - resolved is missing"}
            found["resolved"] = True
            return 200, {"id": resolve.group(1), "notes": [{"id": i, "resolved": True} for i in found["notes"]]}
        if rest == "/notes" and method == "POST":
            if not isinstance(body, dict) or not isinstance(body.get("body"), str) or not body["body"]:
                return 400, {"message": "400 Bad request - body is missing"}
            note = self.new_id()
            self.state["comments"][str(note)] = {"id": note, "body": body["body"], "merge_request": number}
            return 201, self.state["comments"][str(note)]
        edit = re.fullmatch(r"/notes/([0-9]+)", rest)
        if edit and method == "PUT":
            known = self.state["comments"].get(edit.group(1))
            if known is None or known.get("merge_request") != number:
                return 404, {"message": "404 Not found"}
            if not isinstance(body, dict) or not isinstance(body.get("body"), str):
                return 400, {"message": "400 Bad request - body is missing"}
            known["body"] = body["body"]
            return 200, known
        return 404, {"message": "404 Not found"}
