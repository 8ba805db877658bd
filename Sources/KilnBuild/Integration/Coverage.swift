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

/// Line coverage from the JSON `swift test --enable-code-coverage` exports (llvm-cov's format).
public enum Coverage {
    /// The percentage of lines covered in the package's own sources: files under `root`, outside
    /// `.build/` (dependencies) and `Tests/`. Nil when the file holds no such lines.
    public static func percentage(exportAt path: String, root: String) -> Double? {
        read(exportAt: path, root: root)?.percentage
    }

    /// The package's own sources' coverage in an export: its percentage, and each file's
    /// executable lines with how often each ran.
    public struct Export: Sendable {
        public var percentage: Double?
        /// By path relative to the package.
        public var lines: LineCoverage
    }

    /// Reads the export at `path` once, for both figures; nil when it cannot be read.
    public static func read(exportAt path: String, root: String) -> Export? {
        guard let data = FileManager.default.contents(atPath: path),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let exports = object["data"] as? [[String: Any]]
        else { return nil }
        let prefix = root.hasSuffix("/") ? root : root + "/"
        var count = 0
        var covered = 0
        var lines = LineCoverage()
        for export in exports {
            for file in export["files"] as? [[String: Any]] ?? [] {
                guard let name = file["filename"] as? String, name.hasPrefix(prefix) else { continue }
                let relative = String(name.dropFirst(prefix.count))
                guard !relative.hasPrefix(".build/"), !relative.hasPrefix("Tests/") else { continue }
                let summary = (file["summary"] as? [String: Any])?["lines"] as? [String: Any]
                count += summary?["count"] as? Int ?? 0
                covered += summary?["covered"] as? Int ?? 0
                let segments = (file["segments"] as? [[Any]] ?? []).compactMap(Segment.init)
                lines.files[relative] = executionCounts(segments)
            }
        }
        let percentage = count > 0 ? (Double(covered) / Double(count) * 1000).rounded() / 10 : nil
        return Export(percentage: percentage, lines: lines)
    }

    /// One segment of llvm-cov's export: `[line, column, count, hasCount, isRegionEntry, isGapRegion]`.
    struct Segment {
        var line: Int
        var count: Int
        var hasCount: Bool
        var isRegionEntry: Bool
        var isGapRegion: Bool

        init?(_ fields: [Any]) {
            guard fields.count >= 5, let line = fields[0] as? Int, let count = fields[2] as? Int else { return nil }
            (self.line, self.count) = (line, count)
            hasCount = fields[3] as? Bool ?? false
            isRegionEntry = fields[4] as? Bool ?? false
            isGapRegion = fields.count > 5 ? fields[5] as? Bool ?? false : false
        }

        var startsRegion: Bool { !isGapRegion && hasCount && isRegionEntry }
    }

    /// Each executable line of a file and how often it ran, from its segments (in order), as
    /// llvm-cov counts lines (`LineCoverageStats`, which `llvm-cov export -format=lcov` writes as
    /// `DA:` lines): a line is executable when a region with a count starts on it, or one that
    /// started before it wraps it, and not when a skipped region starts it; its count is the
    /// largest of the regions starting on it and the one wrapping it.
    static func executionCounts(_ segments: [Segment]) -> [Int: Int] {
        guard let last = segments.last?.line else { return [:] }
        var counts: [Int: Int] = [:]
        var wrapped: Segment?
        var index = 0
        var onLine: [Segment] = []
        for line in 1...last {
            if let previous = onLine.last { wrapped = previous }
            onLine.removeAll(keepingCapacity: true)
            while index < segments.count, segments[index].line == line {
                onLine.append(segments[index])
                index += 1
            }
            let starts = onLine.filter(\.startsRegion)
            let skipped = onLine.first.map { !$0.hasCount && $0.isRegionEntry } ?? false
            var mapped = !skipped && (wrapped?.hasCount == true || !starts.isEmpty)
            mapped = mapped || onLine.contains { $0.isRegionEntry && $0.hasCount }
            guard mapped else { continue }
            var count = wrapped?.count ?? 0
            if !starts.isEmpty { count = max(count, starts.map(\.count).max() ?? 0) }
            counts[line] = count
        }
        return counts
    }
}
