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
import KilnTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("/health of hosts on PostgreSQL, as a load balancer sees them")
struct HealthServeTests {
    /// `/health`'s status and body on `port`; a request that gets no answer in 5 s is a failure.
    static func health(_ port: Int) async throws -> (status: Int, body: String) {
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)/health")))
        request.timeoutInterval = 5
        let (body, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: body, as: UTF8.self))
    }

    @Test("The database refusing, then frozen: every host's /health turns 503 within 10 s, naming the store, and 200 once it is back")
    func databaseAway() async throws {
        let database = try PostgresServer.start(maxConnections: 100)
        defer { database.stop() }
        let url = try await database.database("health")
        let repo = try ServerTests.quickRepository()
        let bots = ["app": "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\ntest: {enabled: false}\n"]
        var hosts: [ServedHome] = []
        var ports: [Int] = []
        for name in ["build-1", "build-2"] {
            let served = try await ServedHome(bots: bots, config: "executors: 1\ndatabase: {url: '\(url)'}\nhost: \(name)\nhost-lease: 5s\n")
            hosts.append(served)
            ports.append(try await served.server.waitForPort())
        }
        func allAnswer(_ status: Int, within limit: Duration, _ what: String) async throws -> Duration {
            let start = ContinuousClock.now
            for port in ports {
                try await eventually("host on port \(port): /health \(status) \(what)", timeout: limit - (ContinuousClock.now - start)) {
                    (try? await Self.health(port).status) == status
                }
            }
            return ContinuousClock.now - start
        }
        _ = try await allAnswer(200, within: .seconds(30), "at start")

        // Refusing: new connections refused, the open ones ended.
        try await database.psql("ALTER DATABASE health ALLOW_CONNECTIONS false")
        try await database.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'health'")
        let refused = try await allAnswer(503, within: .seconds(10), "while the database refuses")
        let said = try await Self.health(ports[0]).body
        #expect(said.contains("\"store\":{\"detail\":\"cannot be queried") || said.contains("no answer to a query"), "\(said)")
        #expect(said.contains("\"status\":\"unavailable\""), "\(said)")
        try await database.psql("ALTER DATABASE health ALLOW_CONNECTIONS true")
        let back = try await allAnswer(200, within: .seconds(30), "once the database takes connections again")
        print("refusing database: 503 after \(refused), 200 again \(back) after it returned")

        // Frozen: nothing answers and nothing is refused; /health must not wait on it.
        database.pause()
        let frozen: Duration
        do {
            frozen = try await allAnswer(503, within: .seconds(10), "while the database is frozen")
        } catch {
            database.resume()
            throw error
        }
        let silent = try await Self.health(ports[1]).body
        #expect(silent.contains("no answer to a query for"), "\(silent)")
        database.resume()
        let thawed = try await allAnswer(200, within: .seconds(60), "once the database runs again")
        print("frozen database: 503 after \(frozen), 200 again \(thawed) after it resumed")
        for served in hosts { _ = try await served.server.terminate() }
    }
}
