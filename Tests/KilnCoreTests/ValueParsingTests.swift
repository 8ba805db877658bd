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

import KilnCore
import Testing

@Suite("Repository URLs and email addresses")
struct ValueParsingTests {
    @Test(
        "Credentials never survive into the redacted form",
        arguments: [
            ("https://ci:s3cret@github.com/example/app.git", "https://github.com/example/app.git"),
            ("https://token@gitlab.example.com/group/app.git", "https://gitlab.example.com/group/app.git"),
            ("ssh://git@example.com:2222/srv/app.git", "ssh://example.com:2222/srv/app.git"),
            ("git@github.com:example/app.git", "git@github.com:example/app.git"),
            ("file:///srv/git/app.git", "/srv/git/app.git"),
            ("/srv/git/app.git", "/srv/git/app.git"),
        ])
    func redacted(_ text: String, _ expected: String) throws {
        let url = try RepositoryURL(parsing: text, relativeTo: "/srv/kiln")
        #expect(url.redacted == expected)
        #expect(!url.redacted.contains("s3cret") && !url.redacted.contains("token@"))
    }

    @Test("Spellings of one repository share an identity (webhooks and mirrors match on it)")
    func identity() throws {
        let spellings = [
            "https://github.com/Example/App.git", "https://GitHub.com/Example/App", "https://user:pw@github.com/Example/App.git/",
            "ssh://git@github.com/Example/App.git", "git@github.com:Example/App.git",
        ]
        let identities = try Set(spellings.map { try RepositoryURL(parsing: $0, relativeTo: "/").identity })
        #expect(identities == ["github.com/Example/App"])
    }

    @Test(
        "Malformed URLs are refused with a reason",
        arguments: [
            ("", RepositoryURLError.empty), ("ftp://example.com/x.git", .unsupportedScheme("ftp")), ("https:///x.git", .missingHost),
            ("https://example.com", .missingPath), ("git@example.com:", .missingPath),
        ])
    func malformed(_ text: String, _ expected: RepositoryURLError) {
        #expect(throws: expected) { try RepositoryURL(parsing: text, relativeTo: "/") }
    }

    @Test("Email addresses with and without a display name")
    func emailAddresses() throws {
        let plain = try #require(EmailAddress("lead@example.com"))
        #expect(plain.name == nil && plain.address == "lead@example.com" && plain.domain == "example.com")
        let named = try #require(EmailAddress("Kiln <kiln@example.com>"))
        #expect(named.name == "Kiln" && named.address == "kiln@example.com")
        #expect(named.description == "Kiln <kiln@example.com>")
        let quoted = try #require(EmailAddress("\"Jörg Müller\" <jorg@example.org>"))
        #expect(quoted.name == "Jörg Müller")
        for bad in ["", "lead", "@example.com", "lead@", "a@b@c", "lead@exa mple.com", "lead@-example.com", "lead@example..com", "le ad@example.com"]
        {
            #expect(EmailAddress(bad) == nil, "\(bad) should be refused")
        }
    }
}
