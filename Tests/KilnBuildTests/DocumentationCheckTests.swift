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
import KilnTestSupport
import Testing

@testable import KilnBuild

@Suite("The documentation check never passes having checked nothing")
struct DocumentationCheckTests {
    @Test("Symbol graphs that cannot be listed, or none when every target is checked, are a failure that says so")
    func unreadableGraphs() throws {
        let directory = try TemporaryDirectory()
        let missing = DocumentationCheck.symbolGraphs(in: directory.url("nowhere"), everyTarget: true)
        #expect(missing.failure?.hasPrefix("cannot read the symbol graphs in \(directory.url("nowhere")): ") == true, "\(missing)")
        let file = try directory.write("graphs", "not a folder")
        #expect(DocumentationCheck.symbolGraphs(in: file, everyTarget: false).failure?.hasPrefix("cannot read the symbol graphs") == true)

        try FileManager.default.createDirectory(atPath: directory.url("empty"), withIntermediateDirectories: true)
        let empty = DocumentationCheck.symbolGraphs(in: directory.url("empty"), everyTarget: true)
        #expect(empty.failure == "swift package dump-symbol-graph wrote no symbol graph in \(directory.url("empty")): no target was checked")
        // Named targets: each one missing is reported by name further on (DocC.convert).
        #expect(DocumentationCheck.symbolGraphs(in: directory.url("empty"), everyTarget: false).failure == nil)

        _ = try directory.write("full/Lib.symbols.json", "{}")
        _ = try directory.write("full/Lib@Swift.symbols.json", "{}")
        _ = try directory.write("full/Other.symbols.json", "{}")
        let full = DocumentationCheck.symbolGraphs(in: directory.url("full"), everyTarget: true)
        #expect(full.failure == nil && full.modules == ["Lib", "Other"])
    }
}
