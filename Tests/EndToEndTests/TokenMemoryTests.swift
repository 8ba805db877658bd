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
import KilnTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension SeveralHostsTests {
    @Test(
        "Hosts answer tokens from memory: one revoked on the command line is refused within a second by each of two hosts, one made works at once; a host cut off from the database refuses rather than trust its memory"
    )
    func tokensFromMemory() async throws {
        let database = try await Cluster.shared.database()
        let repo = try ServerTests.quickRepository()
        let bot = "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\ntest: {enabled: false}\n"
        let closed = "access: {anonymous: none}\n"
        let first = try await Host("build-1", database: database, bots: ["app": bot], config: closed)
        let second = try await Host("build-2", database: database, bots: ["app": bot], config: closed)
        func make(_ name: String) async throws -> String {
            let made = try await runProcess(Executables.kiln, ["token", "add", name, "--role", "viewer"], in: first.home.path)
            return try #require(made.standardOutput.split(separator: "\n").last.map(String.init), "\(made.standardError)")
        }
        func status(_ host: Host, _ token: String) async throws -> Int {
            var request = URLRequest(url: try host.url("/api/bots/app"))
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            let (_, response) = try await URLSession.shared.data(for: request)
            return (response as? HTTPURLResponse)?.statusCode ?? 0
        }
        let alice = try await make("alice")
        for _ in 0..<3 { #expect(try await [status(first, alice), status(second, alice)] == [200, 200]) }
        let revoked = try await runProcess(Executables.kiln, ["token", "revoke", "alice"], in: first.home.path)
        #expect(revoked.status == 0, "\(revoked.standardError)")
        // Each host hears of it by its database's notice, a moment after the commit; one that has
        // heard nothing for a second trusts no memory: refused on both within that second.
        var answers: [Int] = []
        try await eventually("alice refused on both hosts", timeout: .seconds(2), context: "\(answers)") {
            answers = try await [status(first, alice), status(second, alice)]
            return answers == [401, 401]
        }
        let bob = try await make("bob")
        #expect(try await [status(first, bob), status(second, bob)] == [200, 200], "a new token works at once, on both hosts")

        // build-2 loses its database: past a second without hearing it, it answers no token from
        // memory. bob is revoked meanwhile, where build-2 cannot hear it.
        let lab = try await Cluster.shared.lab()
        try lab.cut(second.namespace)
        try await Task.sleep(for: .seconds(2))
        #expect(try await runProcess(Executables.kiln, ["token", "revoke", "bob"], in: first.home.path).status == 0)
        let script = """
            import sys, urllib.request, urllib.error
            request = urllib.request.Request(sys.argv[1], headers={"Authorization": "Bearer " + sys.argv[2]})
            try:
                print(urllib.request.urlopen(request, timeout=60).status)
            except urllib.error.HTTPError as error:
                print(error.code)
            """
        let inside = NetworkLab.inNamespace(
            second.namespace, ["/usr/bin/python3", "-c", script, try second.url("/api/bots/app").absoluteString, bob])
        let cutOff = try await runProcess(NetworkLab.ip, Array(inside.dropFirst()))
        #expect(cutOff.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "503", "\(cutOff.standardOutput) \(cutOff.standardError)")
        try lab.restore(second.namespace)
        try await eventually("build-2 to hear its database again", timeout: .seconds(30)) { try await status(second, bob) == 401 }
        _ = try await first.server.terminate()
        let stopped = try await second.server.terminate()
        // Twice in CI (never alone, nor in 12 runs under load here), the host cut off and restored
        // did not finish its graceful stop: it now exits at stop-limit, saying which services it
        // waited for, which this records (with its threads' stacks, were it to stall past it).
        withKnownIssue("the cut-off host's stop outlasted stop-limit: see its log", isIntermittent: true) {
            #expect(stopped.status == 0, "\(stopped.standardError)")
        }
    }
}
