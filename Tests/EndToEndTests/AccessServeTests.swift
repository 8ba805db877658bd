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

@Suite("Access through kiln serve: kiln token, a member's integration, a private bot")
struct AccessServeTests {
    static func request(_ method: String, _ path: String, port: Int, token: String? = nil) async throws -> (status: Int, text: String) {
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)\(path)")))
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (body, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: body, as: UTF8.self))
    }

    @Test(
        "kiln token add prints a token once; a member queues an integration of a private bot that runs; the anonymous never see it; kiln token revoke refuses the next request; kiln audit tells it all; no token in the clear on disk"
    )
    func memberQueues() async throws {
        let repo = try ServerTests.quickRepository()
        let served = try await ServedHome(
            bots: ["hush": "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\ntest: {enabled: false}\nvisibility: private\n"])
        let port = try await served.server.waitForPort()
        let made = try await runProcess(Executables.kiln, ["token", "add", "alice", "--role", "member", "--bot", "hush"], in: served.home.path)
        #expect(made.status == 0, "\(made.standardError)")
        let token = try #require(made.standardOutput.split(separator: "\n").last.map(String.init))
        #expect(token.hasPrefix("kiln_") && token.count > 40, "the token alone on the last line: \(made.standardOutput)")

        for path in ["/", "/api/bots", "/metrics"] {
            #expect(try await !Self.request("GET", path, port: port).text.contains("hush"), "\(path) shows the private bot")
        }
        #expect(try await Self.request("GET", "/api/bots/hush", port: port).status == 404)
        let queued = try await Self.request("POST", "/api/bots/hush/integrations", port: port, token: token)
        #expect(queued.status == 202, "\(queued.text)")
        try await served.eventually("the member's integration") { try await served.integrations("hush").first?.step == .completed }
        let integration = try #require(try await served.integrations("hush").first)
        #expect(integration.cause == .manual && integration.number == 1)
        #expect(try await Self.request("GET", "/api/bots/hush/integrations/1", port: port, token: token).status == 200)

        let list = try await runProcess(Executables.kiln, ["token", "list"], in: served.home.path)
        #expect(
            list.standardOutput.hasPrefix("alice\tmember\thush\tmade ") && !list.standardOutput.contains("last used never"), "\(list.standardOutput)")
        #expect(!list.standardOutput.contains(token))
        let revoked = try await runProcess(Executables.kiln, ["token", "revoke", "alice"], in: served.home.path)
        #expect(revoked.status == 0)
        #expect(try await Self.request("GET", "/api/bots/hush", port: port, token: token).status == 401, "refused on its next request")

        // The audit trail: made and revoked here, the queue from the web, the refused request.
        let audit = try await runProcess(Executables.kiln, ["audit"], in: served.home.path)
        let lines = audit.standardOutput.split(separator: "\n").map { $0.split(separator: "  ").dropFirst().joined(separator: "  ") }
        #expect(audit.status == 0, "\(audit.standardError)")
        #expect(lines.count == 4, "\(audit.standardOutput)")
        #expect(lines.first?.hasPrefix("token-added  token alice  command line  member, hush; by ") == true, "\(lines)")
        #expect(lines.dropFirst().first == "queued  token alice  from 127.0.0.1  hush #1", "\(lines)")
        #expect(lines.dropFirst(2).first?.hasPrefix("token-revoked  token alice  command line  by ") == true, "\(lines)")
        #expect(lines.last == "sign-in-failed  no token  from 127.0.0.1  bearer token", "\(lines)")
        let later = try await runProcess(Executables.kiln, ["audit", "--since", "2099-01-01"], in: served.home.path)
        #expect(
            later.status == 0 && later.standardOutput.hasPrefix("nothing in the audit trail since 2099-01-01T00:00:00Z"), "\(later.standardOutput)")
        #expect(try await runProcess(Executables.kiln, ["audit", "--since", "24h"], in: served.home.path).standardOutput == audit.standardOutput)
        let wrong = try await runProcess(Executables.kiln, ["audit", "--since", "yesterday"], in: served.home.path)
        #expect(wrong.status != 0 && wrong.standardError.contains("--since must be a date (2026-11-20)"), "\(wrong.standardError)")
        _ = try await served.server.terminate()

        // Nothing on disk holds the token: not the store, not its journal, not a log.
        let files = FileManager.default.enumerator(atPath: served.home.url(".kiln"))?.compactMap { $0 as? String } ?? []
        var read = 0
        for file in files {
            guard let data = FileManager.default.contents(atPath: served.home.url(".kiln/\(file)")) else { continue }
            read += 1
            #expect(!String(decoding: data, as: UTF8.self).contains(token), "the token in the clear in \(file)")
        }
        #expect(read > 3)
    }
}
