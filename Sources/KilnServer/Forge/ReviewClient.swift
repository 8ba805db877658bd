//===----------------------------------------------------------------------===//
//
// This source file is part of the Kiln open source project
//
// Copyright (c) 2026 the Kiln project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import KilnCore
import KilnMail
import KilnPresentation

/// Delivers one review to its forge's API with the bot's token: the line comments (one review
/// on GitHub and Gitea, one discussion each on GitLab), the edits or resolutions of comments
/// whose findings went away, and the summary comment, posted once and edited in place after.
/// Every comment the forge takes is recorded at once (`record`), so that an attempt that fails
/// halfway is taken up where it stopped, never posting a comment twice.
struct ReviewClient: Sendable {
    let http: HTTPPost

    /// Why a delivery stopped: refused for good (4xx but 408 and 429), or worth another attempt.
    enum Failure: Error, Sendable {
        case refused(code: Int, message: String)
        case failed(code: Int?, message: String)
    }

    /// What an attempt may record as it goes.
    struct Recorder: Sendable {
        var comments: @Sendable ([ReviewComment]) async throws -> Void
        var progress: @Sendable (String) async throws -> Void
    }

    func deliver(_ queued: QueuedReview, token: String, commented: [ReviewComment], record: Recorder) async throws(Failure) -> Int {
        let draft = queued.draft
        let plan = ReviewPlan(draft, commented: commented)
        let api = API(draft.request, token: token, http: http)
        var summarized = plan.summarized
        var code = 200
        switch draft.request.forge {
        case .gitlab:
            summarized += try await api.gitlabDiscussions(plan.comment, draft: draft, record: record)
        default:
            summarized += try await api.review(plan.comment, draft: draft, progress: queued.progress, record: record)
        }
        for comment in plan.resolve {
            var resolved = comment
            resolved.resolvedIn = draft.request.head
            resolved.body = ReviewText.resolved(comment, draft: draft)
            code = try await api.resolve(resolved)
            try await recording { try await record.comments([resolved]) }
        }
        let existing = commented.first { $0.fingerprint == ReviewComment.summary }
        // A summary is started by findings it lists, or by changed lines no test ran.
        let uncovered = draft.request.patch?.files.contains { !$0.uncovered.isEmpty } == true
        guard existing != nil || !summarized.isEmpty || uncovered else { return code }
        let body = ReviewText.summary(summarized, draft: draft)
        guard body != existing?.body else { return code }
        let id = try await api.summary(body, replacing: existing?.id)
        try await recording { try await record.comments([ReviewComment(fingerprint: ReviewComment.summary, id: id, body: body)]) }
        return code
    }

    private func recording(_ body: () async throws -> Void) async throws(Failure) {
        do { try await body() } catch { throw .failed(code: nil, message: "cannot record what the forge took: \(error)") }
    }
}

extension ReviewClient {
    /// One forge's endpoints, with the token.
    struct API: Sendable {
        let request: ReviewRequest
        let token: String
        let http: HTTPPost

        init(_ request: ReviewRequest, token: String, http: HTTPPost) {
            self.request = request
            self.token = token
            self.http = http
        }

        var root: String { request.apiURL.hasSuffix("/") ? String(request.apiURL.dropLast()) : request.apiURL }
        var number: Int { request.pullRequest }
        /// `/repos/OWNER/NAME` (GitHub, Gitea) or `/projects/ID` (GitLab, the path URL-encoded).
        var repository: String {
            request.forge == .gitlab
                ? "/projects/" + (request.project.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? request.project)
                : "/repos/\(request.project)"
        }

        var headers: [String] {
            var headers = ["Content-Type: application/json", "User-Agent: kiln"]
            switch request.forge {
            case .github: headers += ["Accept: application/vnd.github+json", "X-GitHub-Api-Version: 2022-11-28", "Authorization: Bearer \(token)"]
            case .gitlab: headers += ["Accept: application/json", "PRIVATE-TOKEN: \(token)"]
            default: headers += ["Accept: application/json", "Authorization: token \(token)"]
            }
            return headers
        }

        /// Sends one request; its JSON answer on 2xx.
        @discardableResult
        func call(_ method: String, _ path: String, _ body: Any? = nil) async throws(Failure) -> (code: Int, json: Any?) {
            let data = body.flatMap { try? JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys, .withoutEscapingSlashes]) }
            let response = await http.send(method, root + path, headers: headers, body: data.map(Array.init) ?? [])
            guard let code = response.code, code > 0 else { throw .failed(code: nil, message: response.error ?? "no answer") }
            let message = "\(method) \(path): " + (ForgeClient.message(in: response.body) ?? "HTTP \(code)")
            switch code {
            case 200..<300: return (code, try? JSONSerialization.jsonObject(with: Data(response.body)))
            case 408, 429: throw .failed(code: code, message: message)
            case 400..<500: throw .refused(code: code, message: message)
            default: throw .failed(code: code, message: message)
            }
        }

        /// GitHub's and Gitea's review of `findings` on their lines; the findings left for the
        /// summary (all of them when the forge refuses a line as outside the diff).
        func review(_ findings: [ReviewFinding], draft: ReviewDraft, progress: String?, record: Recorder) async throws(Failure) -> [ReviewFinding] {
            guard !findings.isEmpty else { return [] }
            var reviewID = progress
            if reviewID == nil {
                let comments: [[String: Any]] = findings.map { finding in
                    var comment: [String: Any] = ["path": finding.file ?? "", "body": ReviewText.comment(finding, draft: draft)]
                    if request.forge == .github {
                        comment["line"] = finding.line ?? 1
                        comment["side"] = "RIGHT"
                        // a run of uncovered lines is one comment over all of them
                        if let run = finding.uncovered, run.count > 1 {
                            comment["start_line"] = run.lowerBound
                            comment["start_side"] = "RIGHT"
                            comment["line"] = run.upperBound
                        }
                    } else {
                        comment["new_position"] = finding.line ?? 1
                    }
                    return comment
                }
                let body: [String: Any] = ["commit_id": request.head, "event": "COMMENT", "body": "", "comments": comments]
                let posted: (code: Int, json: Any?)
                do {
                    posted = try await call("POST", "\(repository)/pulls/\(number)/reviews", body)
                } catch .refused(422, _) {
                    return findings  // a line the forge does not count as changed: in the summary, never lost
                }
                guard let id = (posted.json as? [String: Any])?["id"].flatMap(Self.text) else {
                    throw .failed(code: posted.code, message: "the forge's answer to a review names no id")
                }
                reviewID = id
                do { try await record.progress(id) } catch { throw .failed(code: nil, message: "cannot record the review's id: \(error)") }
            }
            let listed = try await call("GET", "\(repository)/pulls/\(number)/reviews/\(reviewID ?? "")/comments")
            let comments = (listed.json as? [[String: Any]] ?? []).compactMap { item -> ReviewComment? in
                guard let body = item["body"] as? String, let fingerprint = ReviewText.fingerprint(in: body), let id = item["id"].flatMap(Self.text)
                else { return nil }
                return ReviewComment(fingerprint: fingerprint, id: id, body: body)
            }
            do { try await record.comments(comments) } catch { throw .failed(code: nil, message: "cannot record review comments: \(error)") }
            return []
        }

        /// GitLab: one discussion per finding, at the merge request's `diff_refs`.
        func gitlabDiscussions(_ findings: [ReviewFinding], draft: ReviewDraft, record: Recorder) async throws(Failure) -> [ReviewFinding] {
            guard !findings.isEmpty else { return [] }
            let mergeRequest = try await call("GET", "\(repository)/merge_requests/\(number)")
            guard let refs = (mergeRequest.json as? [String: Any])?["diff_refs"] as? [String: Any] else {
                throw .failed(code: mergeRequest.code, message: "the merge request has no diff_refs yet")
            }
            var left: [ReviewFinding] = []
            for finding in findings {
                let body = ReviewText.comment(finding, draft: draft)
                let position: [String: Any] = [
                    "position_type": "text", "base_sha": refs["base_sha"] ?? "", "start_sha": refs["start_sha"] ?? "",
                    "head_sha": refs["head_sha"] ?? request.head, "new_path": finding.file ?? "", "new_line": finding.line ?? 1,
                ]
                let posted: (code: Int, json: Any?)
                do {
                    posted = try await call("POST", "\(repository)/merge_requests/\(number)/discussions", ["body": body, "position": position])
                } catch .refused(400, _) {
                    left.append(finding)  // GitLab answers a line outside the diff with 400
                    continue
                }
                let discussion = posted.json as? [String: Any]
                let note = (discussion?["notes"] as? [[String: Any]])?.first?["id"].flatMap(Self.text) ?? ""
                let comment = ReviewComment(fingerprint: finding.fingerprint, id: note, discussion: discussion?["id"].flatMap(Self.text), body: body)
                do { try await record.comments([comment]) } catch { throw .failed(code: nil, message: "cannot record a discussion: \(error)") }
            }
            return left
        }

        /// Marks a comment resolved: GitLab resolves its discussion; GitHub and Gitea edit it.
        func resolve(_ comment: ReviewComment) async throws(Failure) -> Int {
            switch request.forge {
            case .gitlab:
                return try await call("PUT", "\(repository)/merge_requests/\(number)/discussions/\(comment.discussion ?? "")?resolved=true").code
            case .github:
                return try await call("PATCH", "\(repository)/pulls/comments/\(comment.id)", ["body": comment.body]).code
            default:
                return try await call("PATCH", "\(repository)/issues/comments/\(comment.id)", ["body": comment.body]).code
            }
        }

        /// Posts the summary, or edits it in place; its id.
        func summary(_ body: String, replacing id: String?) async throws(Failure) -> String {
            let notes = request.forge == .gitlab ? "\(repository)/merge_requests/\(number)/notes" : "\(repository)/issues/\(number)/comments"
            if let id {
                let path = request.forge == .gitlab ? "\(notes)/\(id)" : "\(repository)/issues/comments/\(id)"
                try await call(request.forge == .gitlab ? "PUT" : "PATCH", path, ["body": body])
                return id
            }
            let posted = try await call("POST", notes, ["body": body])
            guard let id = (posted.json as? [String: Any])?["id"].flatMap(Self.text) else {
                throw .failed(code: posted.code, message: "the forge's answer to a comment names no id")
            }
            return id
        }

        /// An id as JSON gives it (a number, or GitLab's discussion id, a string).
        static func text(_ value: Any) -> String? {
            if let number = value as? Int { return String(number) }
            if let number = value as? Double { return String(Int(number)) }
            return value as? String
        }
    }
}
