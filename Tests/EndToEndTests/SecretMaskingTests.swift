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

@Suite("No secret in the clear: failures that print a bot's secret, through kiln serve")
struct SecretMaskingTests {
    /// A package whose XCTest and Swift Testing tests compare the secret with another value, so
    /// that both print it when they fail; the secret also reaches a warning by its base64.
    static func package() -> [String: String] {
        [
            ".gitignore": ".build/\n",
            "Package.swift": """
            // swift-tools-version: 6.0
            import PackageDescription
            let package = Package(
                name: "Leaky",
                targets: [.target(name: "Leaky"), .testTarget(name: "LeakyTests", dependencies: ["Leaky"])]
            )

            """,
            "Sources/Leaky/Leaky.swift": "public func expectedKey() -> String { \"not-the-key\" }\n",
            "Tests/LeakyTests/XCTestLeak.swift": """
            import Foundation
            import Leaky
            import XCTest

            final class XCTestLeak: XCTestCase {
                func testKeyMatches() {
                    let key = ProcessInfo.processInfo.environment["API_KEY"] ?? ""
                    print("authorization: Basic \\(Data(("ci:" + key).utf8).base64EncodedString())")
                    XCTAssertEqual(key, expectedKey())
                }
            }

            """,
            "Tests/LeakyTests/SwiftTestingLeak.swift": """
            import Foundation
            import Leaky
            import Testing

            @Test func keyMatches() {
                let key = ProcessInfo.processInfo.environment["API_KEY"] ?? ""
                #expect(key == expectedKey())
            }

            """,
        ]
    }

    @Test(
        "XCTest's and Swift Testing's failures print the secret: two test-failure issues, and the secret in no page, JSON, mail, test history, log or stored row"
    )
    func failuresPrintingTheSecret() async throws {
        let secret = "sk-live-\(UUID().uuidString.prefix(13).lowercased())"
        let repo = try GitFixture()
        try repo.commit("Leaky", files: Self.package())
        let smtp = try await SMTPServer.start()
        let served = try await ServedHome(
            bots: [
                "app": """
                repository: {url: '\(repo.url)'}
                schedule: {poll: 0}
                secrets: [API_KEY]
                triggers: [{email: new-issues}, {email: report, every: integration, to: [team@example.com]}]

                """
            ],
            config: "executors: 1\nsmtp: {url: '\(smtp.url)', from: 'Kiln <kiln@example.com>'}\n", environment: ["API_KEY": secret])
        _ = try await runProcess(Executables.kiln, ["trigger", "app"], in: served.home.path)
        try await served.eventually("the integration", timeout: .seconds(300)) {
            try await served.integrations("app").first?.step == .completed
        }
        let detail = try #require(try await served.store().integration(bot: "app", number: 1))
        let failures = detail.issues.filter { $0.type == .testFailure }
        #expect(detail.integration.result == .testFailures && failures.count == 2, "\(detail.issues)")
        #expect(failures.allSatisfy { $0.message.contains("***") }, "each failure says what it compared, masked: \(failures.map(\.message))")
        let mails = try await smtp.waitForMessages(2, timeout: .seconds(30))
        #expect(mails.count == 2, "the new-issues mail to Alice and the report")

        let port = try await served.server.waitForPort()
        var seen: [String: String] = [:]
        let paths = [
            "/", "/bots/app", "/bots/app/integrations/1", "/bots/app/integrations/1/log", "/api/bots", "/api/bots/app",
            "/api/bots/app/integrations", "/api/bots/app/integrations/1",
        ]
        for path in paths { seen[path] = try await PullRequestTests.get(path, port: port) }
        // Each failing test's history, as the integration page links it.
        let page = seen["/bots/app/integrations/1"] ?? ""
        let links = Set(page.matches(of: /href="(\/bots\/app\/tests\/[^"]+)"/).map { String($0.output.1) })
        for address in links {
            seen[address] = try await PullRequestTests.get(address, port: port)
            seen["/api" + address] = try await PullRequestTests.get("/api" + address, port: port)
        }
        #expect(seen.count == paths.count + 4, "both failing tests' history pages and JSON")
        for mail in mails { seen["mail to \(mail.to)"] = mail.parts.values.joined(separator: "\n") + mail.subject }
        _ = try await served.server.terminate()
        for file in try FileManager.default.contentsOfDirectory(atPath: served.home.url(".kiln")) where file.hasPrefix("kiln.sqlite") {
            seen[file] = String(decoding: try Data(contentsOf: URL(fileURLWithPath: served.home.url(".kiln/\(file)"))), as: UTF8.self)
        }
        #expect(seen["kiln.sqlite"] != nil)
        let encoded = String(Data(("ci:" + secret).utf8).base64EncodedString().dropFirst(4).prefix(12))
        for (place, text) in seen {
            #expect(!text.contains(secret), "the secret in the clear in \(place)")
            #expect(!text.contains(encoded), "the secret's base64 in \(place)")
        }
        // `ci:` encoded is `Y2k6`; the secret's part that follows it is masked.
        let log = seen["/bots/app/integrations/1/log"] ?? ""
        #expect(log.contains("authorization: Basic Y2k6***\n"), "\(log)")
    }
}
