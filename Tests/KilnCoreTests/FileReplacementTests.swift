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

@Suite("Replacing a file that another process may be reading")
struct FileReplacementTests {
    @Test("A reader that opened the old file reads it whole; the next open reads the new one; nothing is left beside it")
    func replaced() throws {
        let directory = try TemporaryDirectory("kiln-replace")
        let path = try directory.write("home/.gitconfig", "[url \"/mirrors/a\"]\n\tinsteadOf = https://example.com/a\n")
        let reader = try #require(FileHandle(forReadingAtPath: path))
        defer { try? reader.close() }
        let new = "[url \"/mirrors/b\"]\n\tinsteadOf = https://example.com/b\n"
        #expect(try FileReplacement.replace(path, with: Data(new.utf8)))
        let old = try #require(try reader.readToEnd())
        #expect(String(decoding: old, as: UTF8.self) == "[url \"/mirrors/a\"]\n\tinsteadOf = https://example.com/a\n", "not cut short or emptied")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == new)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url("home")) == [".gitconfig"])
    }

    @Test("The same contents again: nothing written, the same file kept; a new file and its folder are made")
    func unchangedAndNew() throws {
        let directory = try TemporaryDirectory("kiln-replace")
        let path = directory.url("a/b/config")
        #expect(try FileReplacement.replace(path, with: Data("one\n".utf8)))
        let inode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? UInt64)
        #expect(try !FileReplacement.replace(path, with: Data("one\n".utf8)))
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? UInt64 == inode)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "one\n")
    }
}
