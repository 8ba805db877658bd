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
import KilnStore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Pull requests: a pull request webhook to the first process of its integration, and an
/// integration's end to its commit status arriving at a forge (the tests' forge double,
/// `Tests/Servers/forge_server.py`, on loopback).
struct PullRequestBench {
    let kiln: String
    let work: Workspace

    func run(into table: Table) async throws {
        let home = work.url("pulls")
        let marks = work.url("pulls-marks")
        let forgeDirectory = work.url("pulls-forge")
        for directory in [home + "/Bots", marks, forgeDirectory] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        let repository = try WebBench.makeRepository(work.url("pulls-repo"))
        try command("/usr/bin/git", ["branch", "-m", "main", "trunk"], in: repository)
        try "bench-token".write(toFile: home + "/token", atomically: false, encoding: .utf8)

        let forge = Process()
        forge.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        forge.arguments = ["Tests/Servers/forge_server.py", "--dir", forgeDirectory, "--token", "bench-token"]
        forge.standardInput = Pipe()
        forge.standardOutput = FileHandle.nullDevice
        try forge.run()
        defer { forge.terminate() }
        let forgePort = try await Self.port(in: forgeDirectory)

        try "executors: 1\npublic-url: https://ci.example.com\n".write(toFile: home + "/kiln.yml", atomically: false, encoding: .utf8)
        try """
        repository: {url: '\(repository)', branch: trunk}
        schedule: {poll: 0}
        test: {enabled: false}
        pull-requests: true
        forge: {kind: github, api-url: 'http://127.0.0.1:\(forgePort)', token-file: '\(home)/token'}
        sandbox: none  # the mark is written outside the workspace, where the benchmark reads it
        triggers: [{name: mark, phase: before, run: 'date +%s%N > \(marks)/$KILN_INTEGRATION; exit 1'}]

        """.write(toFile: home + "/Bots/timed.yml", atomically: false, encoding: .utf8)
        let server = try Server(kiln: kiln, home: home)
        let port = try await server.port()
        defer { server.stop() }
        let base = "http://127.0.0.1:\(port)"
        try await WebBench.waitForHTTP(base + "/health")

        var toProcess: [Double] = []
        var toStatus: [Double] = []
        let store = try SQLiteStore.open(dataDirectory: home + "/.kiln")
        for round in 1...9 {
            try command("/usr/bin/git", ["checkout", "-q", "-B", "feature"], in: repository)
            let head = try WebBench.commitTo(repository, round: round)
            try command("/usr/bin/git", ["checkout", "-q", "trunk"], in: repository)
            try command("/usr/bin/git", ["update-ref", "refs/pull/2/head", head], in: repository)
            let start = Date().timeIntervalSince1970
            let status = try await Self.post(base, repository: repository, head: head, action: round == 1 ? "opened" : "synchronize")
            guard status == 202 else { throw BenchError.unexpected("the pull request webhook answered \(status)") }
            toProcess.append((try await Measure.markTime("\(marks)/\(round)") - start) * 1000)
            var ended: Date?
            for _ in 0..<1000 where ended == nil {
                ended = try await store.integration(bot: "timed", number: round)?.integration.endedAt
                if ended == nil { try await Task.sleep(for: .milliseconds(10)) }
            }
            guard let ended else { throw BenchError.unexpected("the pull request's integration \(round) did not end") }
            let received = try await Self.finalStatus(of: head, in: forgeDirectory)
            toStatus.append((received - ended.timeIntervalSince1970) * 1000)
        }
        toProcess.sort()
        toStatus.sort()
        table.add(
            "pull request webhook answered 202 to its first process started", target: "median < 50 ms",
            measured: Measure.format(toProcess[toProcess.count / 2]),
            comparison: "9 GitHub pull_request deliveries (opened, then synchronize), SQLite")
        table.add(
            "integration end to its commit status received by the forge", target: "median < 100 ms",
            measured: Measure.format(toStatus[toStatus.count / 2]),
            comparison: "the tests' forge double on loopback; worst of 9: \(Measure.format(toStatus.last ?? 0))")
        try await reviews(home: home, repository: repository, base: base, store: store, forge: forgePort, forgeDirectory: forgeDirectory, into: table)
    }

    /// `forge.review`: from a pull request integration's end to its review's first request at
    /// the forge double (the summary of its build error: the repository is no package), 9 pushes.
    private func reviews(
        home: String, repository: String, base: String, store: SQLiteStore, forge: Int, forgeDirectory: String, into table: Table
    ) async throws {
        try FileManager.default.removeItem(atPath: home + "/Bots/timed.yml")
        try """
        repository: {url: '\(repository)', branch: trunk}
        schedule: {poll: 0}
        test: {enabled: false}
        pull-requests: true
        forge: {kind: github, api-url: 'http://127.0.0.1:\(forge)', token-file: '\(home)/token', review: true}

        """.write(toFile: home + "/Bots/reviewed.yml", atomically: false, encoding: .utf8)
        try await WebBench.waitForHTTP(base + "/api/bots/reviewed")
        var toReview: [Double] = []
        for round in 1...9 {
            try command("/usr/bin/git", ["checkout", "-q", "-B", "feature"], in: repository)
            let head = try WebBench.commitTo(repository, round: 100 + round)
            try command("/usr/bin/git", ["checkout", "-q", "trunk"], in: repository)
            try command("/usr/bin/git", ["update-ref", "refs/pull/2/head", head], in: repository)
            let status = try await Self.post(base, repository: repository, head: head, action: "synchronize")
            guard status == 202 else { throw BenchError.unexpected("the pull request webhook answered \(status)") }
            var ended: Date?
            for _ in 0..<1000 where ended == nil {
                ended = try await store.integration(bot: "reviewed", number: round)?.integration.endedAt
                if ended == nil { try await Task.sleep(for: .milliseconds(10)) }
            }
            guard let ended else { throw BenchError.unexpected("the reviewed pull request's integration \(round) did not end") }
            let received = try await Self.firstReviewRequest(of: round, in: forgeDirectory + "/reviews")
            toReview.append((received - ended.timeIntervalSince1970) * 1000)
        }
        toReview.sort()
        table.add(
            "integration end to its review's first request at the forge", target: "median ≤ 50 ms",
            measured: Measure.format(toReview[toReview.count / 2]),
            comparison: "forge.review, the tests' forge double on loopback; worst of 9: \(Measure.format(toReview.last ?? 0))")
    }

    /// When the forge double received the first review request naming integration `number`.
    static func firstReviewRequest(of number: Int, in directory: String) async throws -> Double {
        for _ in 0..<500 {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") && $0 != "state.json" }) ?? []
            for name in names.sorted() {
                guard let data = FileManager.default.contents(atPath: directory + "/" + name),
                    let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                    let body = object["body"] as? [String: Any], (body["body"] as? String)?.contains("integrations/\(number))") == true,
                    let received = object["received"] as? Double
                else { continue }
                return received
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw BenchError.unexpected("no review request of integration \(number) reached the forge double")
    }

    static func port(in directory: String) async throws -> Int {
        for _ in 0..<300 {
            if let text = try? String(contentsOfFile: directory + "/port", encoding: .utf8), let port = Int(text) { return port }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw BenchError.unexpected("the forge double did not start (python3 Tests/Servers/forge_server.py, from the repository's root)")
    }

    /// When the forge received the last status of `sha` that is not pending.
    static func finalStatus(of sha: String, in directory: String) async throws -> Double {
        for _ in 0..<500 {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") }) ?? []
            for name in names.sorted().reversed() {
                guard let data = FileManager.default.contents(atPath: directory + "/" + name),
                    let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], object["sha"] as? String == sha,
                    let body = object["body"] as? [String: Any], body["state"] as? String != "pending", let received = object["received"] as? Double
                else { continue }
                return received
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw BenchError.unexpected("no final status of \(sha) reached the forge double")
    }

    static func post(_ base: String, repository: String, head: String, action: String) async throws -> Int {
        let payload: [String: Any] = [
            "action": action, "number": 2,
            "pull_request": [
                "number": 2, "title": "Bench", "user": ["login": "bench"], "html_url": "https://github.com/o/r/pull/2",
                "head": ["ref": "feature", "sha": head, "repo": ["full_name": "o/r"]],
                "base": ["ref": "trunk", "repo": ["full_name": "o/r", "clone_url": repository]],
            ],
            "repository": ["full_name": "o/r", "clone_url": repository],
        ]
        guard let url = URL(string: base + "/hooks/github") else { throw BenchError.unexpected("bad URL \(base)") }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = try JSONSerialization.data(withJSONObject: payload)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("pull_request", forHTTPHeaderField: "X-GitHub-Event")
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }
}
