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

import KilnCore

extension Rerun {
    /// What a re-run is, on its page, in the JSON and on the command line: "re-run of #7",
    /// "re-run of #7's failed tests".
    public var sentence: String {
        switch only {
        case .all: "re-run of #\(number)"
        case .failed: "re-run of #\(number)'s failed tests"
        }
    }
}

extension Rerun.Refusal {
    /// Why the re-run was refused, and what to do instead.
    public var sentence: String {
        switch self {
        case .notEnded(let number): "integration #\(number) has not ended: run it again once it has, or cancel it first"
        case .noCommit(let number):
            "integration #\(number) ended before it knew its commit: there is no commit to run again; queue the branch instead"
        case .nothingFailed(let number, let result):
            "integration #\(number) ended as \(result.rawValue), with no failed test or cell: run it again whole ({\"rerun\": \(number)}, or kiln trigger --rerun \(number))"
        }
    }

}
