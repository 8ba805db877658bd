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

/// Every tracked symbolic link resolves (the shared workflow's `check-broken-symlinks.sh`): a
/// broken one is a finding at the link's path.
struct SymlinkCheck: SoundnessCheck {
    func run(_ context: SoundnessContext) async throws(ProcessError) -> AnalysisOutput {
        let directory = context.workspace.directory
        var findings: [Diagnostic] = []
        for entry in context.tracked.entries where entry.mode == "120000" {
            var status = stat()
            guard stat(directory + "/" + entry.path, &status) != 0 else { continue }
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + entry.path)) ?? "?"
            findings.append(
                context.finding(
                    .symlink, file: entry.path, line: 1, "broken symbolic link: '\(target)' does not exist (remove the link or fix its target)"))
        }
        return AnalysisOutput(findings: findings, failure: nil, end: .exited(0))
    }
}
