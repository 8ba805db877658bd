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
import KilnGit
import KilnTestSupport
import Testing

@Suite("https remotes: certificates and basic authentication, against a real git http-backend over TLS")
struct HTTPSTests {
    func repository(_ url: String, caFile: String?) throws -> Repository {
        Repository(url: try RepositoryURL(parsing: url, relativeTo: "/"), branch: "main", caFile: caFile)
    }

    @Test("A bot's ca-file makes its private CA trusted; basic auth from the URL; credentials never in errors")
    func caFileAndBasicAuth() async throws {
        let origin = try GitFixture()
        try origin.commit("first", files: ["README.md": "hello\n"])
        let server = try await GitHTTPSServer.start(repositories: ["app": origin.path], auth: "kiln:pa55word")
        let data = try TemporaryDirectory()
        let mirrors = Mirrors(directory: data.url("mirrors"))

        let good = try repository(server.url("app", credentials: "kiln:pa55word"), caFile: server.certificate)
        #expect(try await mirrors.remoteHead(good) == origin.head())
        #expect(try await mirrors.update(good) == origin.head())
        let second = try origin.commit("second", files: ["README.md": "hello again\n"])
        #expect(try await mirrors.update(good) == second)

        let wrong = try repository(server.url("app", credentials: "kiln:wrong-pa55"), caFile: server.certificate)
        do {
            _ = try await mirrors.remoteHead(wrong)
            Issue.record("a wrong password was accepted")
        } catch {
            #expect(error == .authenticationFailed(url: server.url("app")))
            #expect(!"\(error)".contains("wrong-pa55"))
        }
    }

    @Test("A certificate no one said to trust is refused, with an error that says so")
    func untrusted() async throws {
        let origin = try GitFixture()
        try origin.commit("first", files: ["README.md": "hello\n"])
        // Its own certificate, which no bot names as ca-file.
        let server = try await GitHTTPSServer.start(repositories: ["app": origin.path])
        let mirrors = Mirrors(directory: try TemporaryDirectory().url("mirrors"))
        do {
            _ = try await mirrors.remoteHead(try repository(server.url("app"), caFile: nil))
            Issue.record("an untrusted certificate was accepted")
        } catch {
            #expect("\(error)".lowercased().contains("certificate"), "\(error)")
        }
    }
}

@Suite("ssh remotes with a key file, against a real sshd on loopback")
struct SSHTests {
    @Test("The server's ssh key file logs in (the host key trusted on first use); a key the server does not know is an authentication error")
    func keyFile() async throws {
        let origin = try GitFixture()
        let head = try origin.commit("first", files: ["README.md": "hello\n"])
        let server = try SSHServer()
        let repository = Repository(url: try RepositoryURL(parsing: server.url(origin.path), relativeTo: "/"), branch: "main")
        let data = try TemporaryDirectory()
        let keyed = Mirrors(directory: data.url("mirrors"), sshKeyFile: server.clientKey)
        #expect(try await keyed.remoteHead(repository) == head)
        #expect(try await keyed.update(repository) == head)
        let known = try String(contentsOfFile: data.url("mirrors/known_hosts"), encoding: .utf8)
        #expect(known.hasPrefix("127.0.0.1:\(server.port) SHA256:"))

        let stranger = Mirrors(directory: data.url("mirrors"), sshKeyFile: server.strangerKey)
        do {
            _ = try await stranger.remoteHead(repository)
            Issue.record("a key the server does not know logged in")
        } catch {
            #expect(error == .authenticationFailed(url: repository.url.redacted), "\(error)")
        }
    }

    @Test("known_hosts: a line that is not UTF-8 costs no trusted key; a file that cannot be read refuses the host, rewriting nothing")
    func knownHostsKept() async throws {
        let origin = try GitFixture()
        let head = try origin.commit("first", files: ["README.md": "hello\n"])
        let server = try SSHServer()
        let repository = Repository(url: try RepositoryURL(parsing: server.url(origin.path), relativeTo: "/"), branch: "main")
        let data = try TemporaryDirectory()
        // Another host's key, and a comment someone wrote in Latin-1.
        let trusted = Data("git.example.com SHA256:AAAAtrustedkeyofanotherhost\n# caf".utf8) + Data([0xE9]) + Data("\n".utf8)
        try FileManager.default.createDirectory(atPath: data.url("mirrors"), withIntermediateDirectories: true)
        try trusted.write(to: URL(fileURLWithPath: data.url("mirrors/known_hosts")))
        let mirrors = Mirrors(directory: data.url("mirrors"), sshKeyFile: server.clientKey)
        #expect(try await mirrors.remoteHead(repository) == head)
        let known = try Data(contentsOf: URL(fileURLWithPath: data.url("mirrors/known_hosts")))
        #expect(known.starts(with: trusted), "the keys already trusted are kept byte for byte")
        #expect(String(decoding: known.dropFirst(trusted.count), as: UTF8.self).hasPrefix("127.0.0.1:\(server.port) SHA256:"))

        // A known_hosts that cannot be read (here a directory) would trust any key: refused.
        let other = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: other.url("mirrors/known_hosts"), withIntermediateDirectories: true)
        do {
            _ = try await Mirrors(directory: other.url("mirrors"), sshKeyFile: server.clientKey).remoteHead(repository)
            Issue.record("a host key was trusted while known_hosts could not be read")
        } catch {
            #expect(
                "\(error)".contains("cannot read") && "\(error)".contains("known_hosts"),
                "\(error) (the repository \(FileManager.default.fileExists(atPath: origin.path) ? "is" : "is not") there)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: other.url("mirrors/known_hosts")).isEmpty)
        // The repository and its server serve both connections: neither may go after its last use
        // above (once, in CI, the second connection was answered "repository not found").
        withExtendedLifetime((origin, server)) {}
    }
}
