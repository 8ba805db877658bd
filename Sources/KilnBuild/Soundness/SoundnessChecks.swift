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
import Synchronization

/// The checks of the `analyze` step that read the repository, by `AnalyzerCheck`: the one
/// table a new check is added to.
public enum SoundnessChecks {
    static func producer(of check: AnalyzerCheck) -> (any SoundnessCheck)? {
        switch check {
        case .format, .apiBreakage: nil  // PackageBuild.lint, PackageBuild.apiBreakage
        case .documentation: DocumentationCheck()
        case .licenseHeader: LicenseHeaderCheck()
        case .language: LanguageCheck()
        case .symlink: SymlinkCheck()
        case .shell: ToolCheck.shell
        case .yaml: ToolCheck.yaml
        case .python: ToolCheck.python
        }
    }

    /// Whether `check` is one of these (not lint or API breakage, which `PackageBuild` runs).
    public static func covers(_ check: AnalyzerCheck) -> Bool { producer(of: check) != nil }
}

/// One integration's soundness checks: the tracked files are listed once, for all of them.
public final class SoundnessRun: Sendable {
    let package: PackageBuild
    let commit: String?
    let settings: AnalyzeSettings
    private let tracked = Mutex<TrackedFiles?>(nil)

    init(package: PackageBuild, commit: String?, settings: AnalyzeSettings) {
        self.package = package
        self.commit = commit
        self.settings = settings
    }

    /// Runs `check`: its findings, or why it could not run.
    public func run(_ check: AnalyzerCheck) async throws(ProcessError) -> AnalysisOutput {
        guard let producer = SoundnessChecks.producer(of: check) else { return AnalysisOutput(findings: [], failure: nil, end: .exited(0)) }
        var files = tracked.withLock { $0 }
        if files == nil {
            let listing = SoundnessContext(package: package, commit: commit, settings: settings, tracked: TrackedFiles(lsFiles: []))
            let listed = try await listing.lines(StepCommand("git", ["-c", "core.quotePath=false", "ls-files", "-s"]))
            guard listed.end.succeeded else {
                let why = "\(check.rawValue) not checked: git ls-files \(listed.end.description): \(listed.lines.last ?? "")"
                return AnalysisOutput(findings: [], failure: why, end: .exited(0))
            }
            files = TrackedFiles(lsFiles: listed.lines)
            tracked.withLock { $0 = files }
        }
        let context = SoundnessContext(package: package, commit: commit, settings: settings, tracked: files ?? TrackedFiles(lsFiles: []))
        return try await producer.run(context)
    }
}

extension PackageBuild {
    /// The soundness checks of `settings` for this workspace at `commit`.
    public func soundness(_ settings: AnalyzeSettings, commit: String?) -> SoundnessRun {
        SoundnessRun(package: self, commit: commit, settings: settings)
    }
}
