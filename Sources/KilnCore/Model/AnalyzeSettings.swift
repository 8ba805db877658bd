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

/// `analyze`: the static analysis an integration runs after its tests, whose findings are
/// `analyzer-warning` issues, each with the `AnalyzerCheck` that found it.
public struct AnalyzeSettings: Sendable, Hashable {
    /// What a public API that breaks is.
    public enum APIBreakage: String, Sendable, Hashable {
        /// Not checked.
        case off
        /// An analyzer warning.
        case warning
        /// An error, as a compiler error is: the result is `build-errors`.
        case error
    }

    /// The checks that run, in `AnalyzerCheck`'s order.
    public var checks: Set<AnalyzerCheck>
    /// Whether an API break is an error (`api-breakage: error`) rather than a warning.
    public var apiBreaksAreErrors: Bool
    /// The project named by the shared workflow's default license header, for a repository
    /// without `.license_header_template` (`license-header: {project: NAME}`).
    public var licenseProject: String?
    /// The unacceptable words (`language: {words: [...]}`).
    public var words: [String]
    /// The targets DocC analyzes when the repository's `.spi.yml` names none
    /// (`documentation: {targets: [...]}`); empty: every library target.
    public var documentationTargets: [String]

    /// The shared soundness workflow's list (swiftlang/github-workflows, `soundness.yml`).
    public static let defaultWords = [
        "blacklist", "whitelist", "slave", "master", "sane", "sanity", "insane", "insanity", "kill", "killed", "killing", "hang", "hung",
        "hanged", "hanging",
    ]  // ignore-unacceptable-language

    public init(
        checks: Set<AnalyzerCheck> = [], apiBreaksAreErrors: Bool = false, licenseProject: String? = nil, words: [String] = Self.defaultWords,
        documentationTargets: [String] = []
    ) {
        self.checks = checks
        self.apiBreaksAreErrors = apiBreaksAreErrors
        self.licenseProject = licenseProject
        self.words = words
        self.documentationTargets = documentationTargets
    }

    /// The settings of a bot file that names only `lint` and `api-breakage`.
    public init(lint: Bool, apiBreakage: APIBreakage = .off) {
        self.init(checks: [])
        self.lint = lint
        self.apiBreakage = apiBreakage
    }

    /// `swift format lint` of the whole package, with the repository's `.swift-format` when it has one.
    public var lint: Bool {
        get { checks.contains(.format) }
        set { set(.format, newValue) }
    }

    /// `swift package diagnose-api-breaking-changes` against the baseline: the previous
    /// integration's commit, or a pull request's base.
    public var apiBreakage: APIBreakage {
        get { checks.contains(.apiBreakage) ? (apiBreaksAreErrors ? .error : .warning) : .off }
        set {
            set(.apiBreakage, newValue != .off)
            apiBreaksAreErrors = newValue == .error
        }
    }

    /// Turns `check` on or off.
    public mutating func set(_ check: AnalyzerCheck, _ on: Bool) {
        if on { checks.insert(check) } else { checks.remove(check) }
    }

    /// Whether any analysis runs.
    public var enabled: Bool { !checks.isEmpty }
}
