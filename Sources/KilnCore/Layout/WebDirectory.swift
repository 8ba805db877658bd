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

/// Where Kiln's `Web/` directory (page and mail templates, the stylesheet) is.
public enum WebDirectory {
    /// Looked for, in order: `$KILN_WEB`; `share/kiln/Web` beside the binary's directory (an
    /// installed Kiln: `/usr/local/bin/kiln` reads `/usr/local/share/kiln/Web`); `Web/` in the
    /// checkout the binary was built from (`make run`). Nil when none has the templates.
    public static func locate(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        var candidates: [String] = []
        if let configured = environment["KILN_WEB"] { candidates.append(configured) }
        let binary = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath().deletingLastPathComponent()
        candidates.append(binary.deletingLastPathComponent().appendingPathComponent("share/kiln/Web").path)
        // Sources/KilnCore/Layout/WebDirectory.swift → the package's Web/.
        var source = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { source.deleteLastPathComponent() }
        candidates.append(source.appendingPathComponent("Web").path)
        return candidates.first { FileManager.default.fileExists(atPath: $0 + "/index.mustache") }
    }

    /// Why the directory could not be used.
    public static let notFoundHint =
        "cannot find Kiln's Web directory (templates): set KILN_WEB to it, or install it as share/kiln/Web beside the binary's bin/"
}
