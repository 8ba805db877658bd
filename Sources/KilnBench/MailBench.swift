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
import KilnServer
import KilnStore
import Logging

/// Mail: 1,000 queued mails delivered by the Mailer to a local SMTP server (the tests' aiosmtpd).
struct MailBench {
    let work: Workspace

    func run(into table: Table) async throws {
        let received = work.url("mail-received")
        try FileManager.default.createDirectory(atPath: received, withIntermediateDirectories: true)
        // Tests/Servers/smtp_server.py of this checkout: Sources/KilnBench/MailBench.swift → the package root.
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        server.arguments = [root.appendingPathComponent("Tests/Servers/smtp_server.py").path, "--dir", received]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        server.standardInput = Pipe()
        try server.run()
        defer {
            sendSignal(SIGKILL, to: server.processIdentifier)
            server.waitUntilExit()
        }
        var port: Int?
        for _ in 0..<500 where port == nil {
            port = (try? String(contentsOfFile: received + "/port", encoding: .utf8)).flatMap { Int($0) }
            if port == nil { try await Task.sleep(for: .milliseconds(20)) }
        }
        guard let port else { throw BenchError.unexpected("the SMTP server did not start (apt-get install python3-aiosmtpd)") }

        let store = try SQLiteStore.open(dataDirectory: work.url("mail-store"))
        let from = EmailAddress(name: "Kiln", address: "kiln@example.com")
        for index in 0..<1000 {
            let message = MailMessage(
                from: from, to: [EmailAddress(name: "Person \(index)", address: "person\(index)@example.com")], subject: "[app] #\(index) succeeded",
                text: "app #\(index): succeeded\n", html: "<p>app #\(index): succeeded</p>\n", date: Date())
            _ = try await store.queueMail(
                OutgoingMail(dedupeKey: "bench:\(index)", recipients: message.recipients, subject: message.subject, message: message.rendered()),
                now: Date())
        }
        let logger = Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })
        let registry = BotRegistry(directory: work.url("mail-bots"), logger: logger)
        let notifier = Notifier(store: store, templates: try MailTemplates.load(), from: from, publicURL: "http://ci.example.com")
        let mailer = Mailer(
            store: store, registry: registry,
            delivery: Mailer.Delivery(notifier: notifier, client: SMTPClient(url: "smtp://127.0.0.1:\(port)"), sender: from.address), logger: logger)
        let start = ContinuousClock.now
        var delivered = 0
        while delivered < 1000, ContinuousClock.now - start < .seconds(120) { delivered += await mailer.round() }
        let elapsed = Measure.milliseconds(ContinuousClock.now - start)
        let arrived = try FileManager.default.contentsOfDirectory(atPath: received).filter { $0.hasSuffix(".json") }.count
        table.add(
            "1,000 queued mails delivered to a local SMTP server", target: "< 10 s", measured: Measure.format(elapsed),
            comparison: "\(arrived) received by aiosmtpd; 4 sends at a time, a connection each")
    }
}
