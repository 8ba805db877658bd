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

import KilnMail
import Testing

@Suite("libcurl")
struct CurlLibraryTests {
    @Test("libcurl is linked and speaks SMTP and SMTPS")
    func protocols() {
        #expect(CurlLibrary.version.split(separator: ".").count == 3)
        #expect(CurlLibrary.protocols.isSuperset(of: ["smtp", "smtps"]), "install libcurl4-openssl-dev (curl built with SMTP)")
    }
}
