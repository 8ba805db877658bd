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

/// Line coverage from the JSON `swift test --enable-code-coverage` exports (llvm-cov's format).
public enum Coverage {
    /// The percentage of lines covered in the package's own sources: files under `root`, outside
    /// `.build/` (dependencies) and `Tests/`. Nil when the file holds no such lines.
    public static func percentage(exportAt path: String, root: String) -> Double? {
        guard let data = FileManager.default.contents(atPath: path),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let exports = object["data"] as? [[String: Any]]
        else { return nil }
        let prefix = root.hasSuffix("/") ? root : root + "/"
        var count = 0
        var covered = 0
        for export in exports {
            for file in export["files"] as? [[String: Any]] ?? [] {
                guard let name = file["filename"] as? String, name.hasPrefix(prefix) else { continue }
                let relative = name.dropFirst(prefix.count)
                guard !relative.hasPrefix(".build/"), !relative.hasPrefix("Tests/") else { continue }
                let lines = (file["summary"] as? [String: Any])?["lines"] as? [String: Any]
                count += lines?["count"] as? Int ?? 0
                covered += lines?["covered"] as? Int ?? 0
            }
        }
        guard count > 0 else { return nil }
        return (Double(covered) / Double(count) * 1000).rounded() / 10
    }
}
