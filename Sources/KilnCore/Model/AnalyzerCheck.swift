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

/// Which check of the `analyze` step found an analyzer warning: the issue's `check` in the API,
/// pages, mails and `kiln run`, and a name `triggers[].issues` can filter on.
///
/// Adding a check is its case here, its producer (a `SoundnessCheck` in KilnBuild's
/// `Soundness/`), and its line in `SoundnessChecks.producer(of:)`. Its bot file key is its raw
/// value, and `soundness: true` turns it on.
public enum AnalyzerCheck: String, CaseIterable, Codable, Sendable, Hashable, Comparable {
    /// `swift format lint` (the bot file's `lint` key).
    case format
    /// `swift package diagnose-api-breaking-changes` against the baseline.
    case apiBreakage = "api-breakage"
    /// DocC's analysis of each documented target.
    case documentation
    /// Each tracked source file starts with the license header.
    case licenseHeader = "license-header"
    /// No word of the unacceptable-language list.
    case language
    /// Every tracked symbolic link resolves.
    case symlink
    /// `shellcheck` of the tracked shell scripts.
    case shell
    /// `yamllint` of the tracked YAML files.
    case yaml
    /// `flake8` of the tracked Python files.
    case python

    /// Its key in the bot file's `analyze` (`lint` for `format`, which predates the others).
    public var key: String { self == .format ? "lint" : rawValue }

    /// In the order they are declared (and run).
    public static func < (lhs: AnalyzerCheck, rhs: AnalyzerCheck) -> Bool {
        (allCases.firstIndex(of: lhs) ?? 0) < (allCases.firstIndex(of: rhs) ?? 0)
    }
}
