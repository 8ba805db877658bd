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
import KilnTestSupport
import Testing

@Suite("SMTP over libcurl against a real SMTP server")
struct SMTPClientTests {
    static let from = EmailAddress(name: "Kiln", address: "kiln@example.com")

    static func message(to: [EmailAddress], cc: [EmailAddress] = [], subject: String = "[app] #3 succeeded") -> MailMessage {
        MailMessage(
            from: from, to: to, cc: cc, subject: subject, text: "Plain text: café, <b>not bold</b>\n", html: "<p>HTML: café</p>\n",
            listID: "app.kiln.example.com", date: Date())
    }

    @Test("A message arrives with its text and HTML parts; non-ASCII names and subjects decode exactly")
    func delivers() async throws {
        let server = try await SMTPServer.start()
        let client = SMTPClient(url: server.url)
        let alice = EmailAddress(name: "Zoë Ångström-Łukasz 山田", address: "zoe@example.com")
        let bob = EmailAddress(name: "Bob \"the builder\", Jr.", address: "bob@example.org")
        let subject = "[app] #12: 2 new issues from your commits — café ✓ " + String(repeating: "long ", count: 12)
        let message = Self.message(to: [alice], cc: [bob], subject: subject)
        try await client.send(message.rendered(), from: "kiln@example.com", to: message.recipients)
        let received = try #require(try await server.waitForMessages(1).first)
        #expect(received.from == "kiln@example.com")
        #expect(Set(received.to) == ["zoe@example.com", "bob@example.org"])
        #expect(received.subject == subject)
        #expect(received.headers["To"] == "Zoë Ångström-Łukasz 山田 <zoe@example.com>")
        #expect(received.headers["Cc"] == "\"Bob \\\"the builder\\\", Jr.\" <bob@example.org>")
        #expect(received.headers["List-Id"] == "<app.kiln.example.com>")
        #expect(received.headers["Message-ID"]?.hasSuffix("@example.com>") == true)
        #expect(received.headers["Date"]?.hasSuffix("+0000") == true)
        #expect(received.parts["text/plain"] == "Plain text: café, <b>not bold</b>\n")
        #expect(received.parts["text/html"] == "<p>HTML: café</p>\n")
        #expect(!received.tls)
    }

    @Test("STARTTLS with a test certificate and AUTH; a wrong password and an untrusted certificate are clear errors")
    func starttlsAndAuth() async throws {
        let scratch = try TemporaryDirectory()
        let tls = try SMTPServer.certificate(in: scratch)
        let server = try await SMTPServer.start(.init(tls: tls, requireSTARTTLS: true, auth: "kiln:hunter2"))
        let message = Self.message(to: [EmailAddress(address: "team@example.com")])
        let client = SMTPClient(url: server.url, username: "kiln", password: "hunter2", starttls: .required, caFile: tls.certificate)
        try await client.send(message.rendered(), from: "kiln@example.com", to: message.recipients)
        let received = try #require(try await server.waitForMessages(1).first)
        #expect(received.tls && received.authenticated)

        let wrong = SMTPClient(url: server.url, username: "kiln", password: "nope", starttls: .required, caFile: tls.certificate)
        await #expect {
            try await wrong.send(message.rendered(), from: "kiln@example.com", to: message.recipients)
        } throws: { error in
            guard case .loginDenied = error as? MailError else { return false }
            return !(error as? MailError)!.isPermanent && "\(error)".contains("smtp.password-file")
        }
        let untrusting = SMTPClient(url: server.url, username: "kiln", password: "hunter2", starttls: .required)
        await #expect {
            try await untrusting.send(message.rendered(), from: "kiln@example.com", to: message.recipients)
        } throws: { error in
            if case .insecure = error as? MailError { return true }
            return false
        }
        #expect(try server.messages().count == 1)
    }

    @Test("A 550 for every recipient is a permanent error with the server's answer; one refused recipient does not stop the others")
    func rejection() async throws {
        let server = try await SMTPServer.start(.init(reject: ["nobody@example.com"]))
        let client = SMTPClient(url: server.url)
        let refused = Self.message(to: [EmailAddress(address: "nobody@example.com")])
        do {
            try await client.send(refused.rendered(), from: "kiln@example.com", to: refused.recipients)
            Issue.record("a refused recipient was accepted")
        } catch {
            #expect(error.isPermanent)
            #expect(error == .rejected(code: 550, detail: error.rejectedDetail))
        }
        let mixed = Self.message(to: [EmailAddress(address: "nobody@example.com"), EmailAddress(address: "team@example.com")])
        try await client.send(mixed.rendered(), from: "kiln@example.com", to: mixed.recipients)
        #expect(try await server.waitForMessages(1).map(\.to) == [["team@example.com"]])
    }

    @Test("No server listening is a temporary error naming the server")
    func unreachable() async throws {
        let client = SMTPClient(url: "smtp://127.0.0.1:\(SMTPServer.freePort())", connectTimeout: .seconds(2))
        let message = Self.message(to: [EmailAddress(address: "team@example.com")])
        do {
            try await client.send(message.rendered(), from: "kiln@example.com", to: message.recipients)
            Issue.record("sent to nothing")
        } catch {
            guard case .unreachable(let server, _) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(server.hasPrefix("smtp://127.0.0.1:"))
            #expect(!error.isPermanent)
        }
    }
}

extension MailError {
    var rejectedDetail: String {
        if case .rejected(_, let detail) = self { return detail }
        return ""
    }
}
