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

/// A real SMTP server on 127.0.0.1 (Debian's python3-aiosmtpd, `Tests/Servers/smtp_server.py`)
/// that keeps every message it accepts for the test to read.
public final class SMTPServer: @unchecked Sendable {
    // Only touched by the test that owns it.
    private let process: Process
    private let input: Pipe
    public let host: String
    public let port: Int
    public let directory: TemporaryDirectory

    public struct Options: Sendable {
        public var port: Int?
        /// Certificate and key files: offer STARTTLS with them.
        public var tls: (certificate: String, key: String)?
        public var requireSTARTTLS = false
        /// `user:password`: require AUTH.
        public var auth: String?
        /// Addresses answered `550` at RCPT.
        public var reject: [String] = []
        /// Where it listens: a network namespace the test made (nil: this process's), and an
        /// address in it.
        public var namespace: String?
        public var host = "127.0.0.1"

        public init(
            port: Int? = nil, tls: (certificate: String, key: String)? = nil, requireSTARTTLS: Bool = false, auth: String? = nil,
            reject: [String] = []
        ) {
            self.port = port
            self.tls = tls
            self.requireSTARTTLS = requireSTARTTLS
            self.auth = auth
            self.reject = reject
        }
    }

    /// A message as the server received it.
    public struct Received: Sendable {
        public var from: String
        public var to: [String]
        public var tls: Bool
        public var authenticated: Bool
        /// The whole message as sent (headers and MIME parts).
        public var data: String
        /// As Python's email package reads the message: headers decoded, parts by content type.
        public var subject: String
        public var headers: [String: String]
        public var parts: [String: String]
    }

    public static let python = "/usr/bin/python3"

    /// Starts a server and waits (without blocking a thread) until it accepts connections.
    public static func start(_ options: Options = Options()) async throws -> SMTPServer {
        guard (try? await runProcess(python, ["-c", "import aiosmtpd"]).status) == 0 else {
            throw SMTPServerError.missing("python3-aiosmtpd is not installed: apt-get install python3-aiosmtpd (make test installs it)")
        }
        let directory = try TemporaryDirectory("kiln-smtp")
        var arguments = ["--dir", directory.path, "--host", options.host]
        if let port = options.port { arguments += ["--port", "\(port)"] }
        if let tls = options.tls { arguments += ["--tls", tls.certificate, tls.key] }
        if options.requireSTARTTLS { arguments.append("--require-starttls") }
        if let auth = options.auth { arguments += ["--auth", auth] }
        if !options.reject.isEmpty { arguments += ["--reject"] + options.reject }
        let (process, input, port) = try await PythonServer.launch(
            "smtp_server.py", arguments: arguments, directory: directory, namespace: options.namespace, what: "the test SMTP server")
        return SMTPServer(process: process, input: input, host: options.host, port: port, directory: directory)
    }

    private init(process: Process, input: Pipe, host: String, port: Int, directory: TemporaryDirectory) {
        self.process = process
        self.input = input
        self.host = host
        self.port = port
        self.directory = directory
    }

    public var url: String { "smtp://\(host):\(port)" }

    /// Every message received so far, in order.
    public func messages() throws -> [Received] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }.sorted()
        return try names.map { name in
            let data = try Data(contentsOf: URL(fileURLWithPath: directory.url(name)))
            guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { throw SMTPServerError.missing(name) }
            return Received(
                from: object["from"] as? String ?? "", to: object["to"] as? [String] ?? [], tls: object["tls"] as? Bool ?? false,
                authenticated: object["authenticated"] as? Bool ?? false, data: object["data"] as? String ?? "",
                subject: object["subject"] as? String ?? "", headers: object["headers"] as? [String: String] ?? [:],
                parts: object["parts"] as? [String: String] ?? [:])
        }
    }

    /// Waits until at least `count` messages arrived (or `timeout` passed), and returns them all.
    public func waitForMessages(_ count: Int, timeout: Duration = .seconds(15)) async throws -> [Received] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let received = try messages()
            if received.count >= count { return received }
            try await Task.sleep(for: .milliseconds(50))
        }
        return try messages()
    }

    public func stop() {
        try? input.fileHandleForWriting.close()
        process.killAndWait()
    }

    deinit { stop() }

    /// A port nothing listens on now, for a server started later: below the ephemeral range
    /// (32768 and up on Linux), where no outgoing connection takes it meanwhile.
    public static func freePort() -> Int {
        for _ in 0..<50 {
            let candidate = Int.random(in: 10_000..<32_000)
            if GitDaemon.isFree(candidate) { return candidate }
        }
        return 0
    }

    /// A self-signed certificate for 127.0.0.1 and localhost, made with openssl in `directory`.
    public static func certificate(in directory: TemporaryDirectory) throws -> (certificate: String, key: String) {
        let certificate = directory.url("cert.pem")
        let key = directory.url("key.pem")
        let made = try runProcessSync(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1", "-addext",
                "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", key, "-out", certificate,
            ])
        guard made.status == 0 else { throw SMTPServerError.missing("openssl could not make a test certificate: \(made.standardError)") }
        return (certificate, key)
    }
}

public enum SMTPServerError: Error, CustomStringConvertible {
    case missing(String)
    public var description: String {
        switch self {
        case .missing(let what): what
        }
    }
}
