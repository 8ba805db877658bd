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

/// A forge's commit status API on 127.0.0.1 (`Tests/Servers/forge_server.py`): GitHub's, GitLab's
/// and Gitea's status endpoints with their auth headers, and nothing else. It keeps every status
/// it accepts for the test to read; `stop()` and `restart()` make an outage.
public final class ForgeDouble: @unchecked Sendable {
    // Only touched by the test that owns it.
    private var process: Process
    private var input: Pipe
    public let port: Int
    public let token: String
    public let directory: TemporaryDirectory

    /// A status as the forge received it.
    public struct Call: Sendable, Equatable {
        public var forge: String
        /// `owner/repo`, or GitLab's decoded project path.
        public var project: String
        public var sha: String
        public var state: String
        public var description: String
        public var targetURL: String?
        /// `context` (GitHub, Gitea) or `name` (GitLab).
        public var context: String
        /// When it arrived (seconds since 1970).
        public var received: Double
    }

    /// Starts the double on a port below the ephemeral range (32768 and up on Linux), so that no
    /// outgoing connection takes its port while it is down for an outage.
    public static func start(token: String = "forge-token-\(UUID().uuidString.prefix(8))") async throws -> ForgeDouble {
        let directory = try TemporaryDirectory("kiln-forge")
        for _ in 0..<20 {
            let candidate = Int.random(in: 10_000..<32_000)
            guard GitDaemon.isFree(candidate), let (process, input, port) = try? await launch(directory: directory, token: token, port: candidate)
            else { continue }
            return ForgeDouble(process: process, input: input, port: port, token: token, directory: directory)
        }
        let (process, input, port) = try await launch(directory: directory, token: token, port: nil)
        return ForgeDouble(process: process, input: input, port: port, token: token, directory: directory)
    }

    private static func launch(directory: TemporaryDirectory, token: String, port: Int?) async throws -> (Process, Pipe, Int) {
        var arguments = ["--dir", directory.path, "--token", token]
        if let port { arguments += ["--port", "\(port)"] }
        let launched = try await PythonServer.launch(
            "forge_server.py", arguments: arguments, directory: directory, namespace: nil, what: "the forge double")
        return (launched.process, launched.input, launched.port)
    }

    private init(process: Process, input: Pipe, port: Int, token: String, directory: TemporaryDirectory) {
        self.process = process
        self.input = input
        self.port = port
        self.token = token
        self.directory = directory
    }

    /// The API root bots name as `forge.api-url`.
    public var apiURL: String { "http://127.0.0.1:\(port)" }

    /// Every status accepted so far, in the order they arrived.
    public func calls() throws -> [Call] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }.sorted()
        return try names.map { name in
            let data = try Data(contentsOf: URL(fileURLWithPath: directory.url(name)))
            guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any], let body = object["body"] as? [String: Any] else {
                throw SMTPServerError.missing("an unreadable call record \(name)")
            }
            return Call(
                forge: object["forge"] as? String ?? "", project: object["project"] as? String ?? "", sha: object["sha"] as? String ?? "",
                state: body["state"] as? String ?? "", description: body["description"] as? String ?? "", targetURL: body["target_url"] as? String,
                context: (body["context"] as? String) ?? (body["name"] as? String) ?? "", received: object["received"] as? Double ?? 0)
        }
    }

    /// Waits until the calls satisfy `done` (or `timeout` passes), and returns them all.
    public func waitForCalls(timeout: Duration = .seconds(30), until done: ([Call]) -> Bool) async throws -> [Call] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let received = try calls()
            if done(received) { return received }
            try await Task.sleep(for: .milliseconds(25))
        }
        return try calls()
    }

    /// A request to the review endpoints, as the forge answered it.
    public struct ReviewCall: @unchecked Sendable {
        public var forge: String
        public var method: String
        public var path: String
        /// The JSON body (nil for a GET).
        public var body: [String: Any]?
        public var code: Int
    }

    /// Every review request answered so far, in order.
    public func reviewCalls() throws -> [ReviewCall] {
        let folder = directory.url("reviews")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".json") && $0 != "state.json" }
        return try names.sorted().map { name in
            let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
            guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw SMTPServerError.missing("an unreadable review record \(name)")
            }
            return ReviewCall(
                forge: object["forge"] as? String ?? "", method: object["method"] as? String ?? "", path: object["path"] as? String ?? "",
                body: object["body"] as? [String: Any], code: object["code"] as? Int ?? 0)
        }
    }

    /// Waits until the review requests satisfy `done` (or `timeout` passes), and returns them all.
    public func waitForReviewCalls(timeout: Duration = .seconds(30), until done: ([ReviewCall]) -> Bool) async throws -> [ReviewCall] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let received = try reviewCalls()
            if done(received) { return received }
            try await Task.sleep(for: .milliseconds(25))
        }
        return try reviewCalls()
    }

    /// The comments the forge holds now, by id: their bodies as last posted or edited.
    public func commentBodies() throws -> [String: String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: directory.url("reviews/state.json")))
        let state = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let comments = state?["comments"] as? [String: [String: Any]] ?? [:]
        return comments.compactMapValues { $0["body"] as? String }
    }

    /// GitLab's discussions by id: whether each is resolved.
    public func discussionsResolved() throws -> [String: Bool] {
        let data = try Data(contentsOf: URL(fileURLWithPath: directory.url("reviews/state.json")))
        let state = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return (state?["discussions"] as? [String: [String: Any]] ?? [:]).compactMapValues { $0["resolved"] as? Bool }
    }

    /// The lines pull request `number` changed, as the forge counts them (`path:line`): a
    /// comment elsewhere is refused. GitLab's merge request also gets its `diff_refs`.
    public func pullRequest(_ number: Int, changes lines: [String], refs: (base: String, start: String, head: String)? = nil) throws {
        try FileManager.default.createDirectory(atPath: directory.url("reviews"), withIntermediateDirectories: true)
        try lines.joined(separator: "\n").write(toFile: directory.url("reviews/diff-\(number).txt"), atomically: true, encoding: .utf8)
        if let refs {
            try "\(refs.base) \(refs.start) \(refs.head)".write(
                toFile: directory.url("reviews/refs-\(number).txt"), atomically: true, encoding: .utf8)
        }
    }

    /// The repository's members, as the forge's member lookups answer (GitLab's at Developer
    /// access unless `levels` says otherwise).
    public func members(_ logins: [String], levels: [String: Int] = [:]) throws {
        let lines = logins.map { login in levels[login].map { "\(login) \($0)" } ?? login }
        try (lines.joined(separator: "\n") + "\n").write(toFile: directory.url("members"), atomically: true, encoding: .utf8)
    }

    /// The member lookups the forge answered, as request paths, in order.
    public func memberLookups() -> [String] {
        ((try? String(contentsOfFile: directory.url("member-lookups"), encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// The forge goes down: connections to its port are refused.
    public func stop() {
        try? input.fileHandleForWriting.close()
        process.killAndWait()
    }

    /// The forge comes back on the same port, keeping what it received before.
    public func restart() async throws {
        (process, input, _) = try await Self.launch(directory: directory, token: token, port: port)
    }

    deinit { stop() }
}
