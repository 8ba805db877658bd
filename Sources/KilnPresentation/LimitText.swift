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

/// What a reached limit (`limits:`) is called where people read it.
public enum LimitText {
    /// "the tests used more than 512.0 MiB of memory (limits.memory) and were stopped".
    public static func sentence(_ reached: LimitReached) -> String {
        "\(doer(reached.step)) \(used(reached)) (limits.\(reached.limit.rawValue)) and \(reached.step == .testing ? "were" : "was") stopped"
    }

    /// What went over: "used more than 512.0 MiB of memory", "started more than 64 processes".
    public static func used(_ reached: LimitReached) -> String {
        switch reached.limit {
        case .memory: "used more than \(ByteCount.text(Int(reached.value))) of memory"
        case .processes: "started more than \(Int(reached.value)) processes at once"
        case .cpus: "used more than \(reached.value) cores"
        case .disk: "wrote more than \(ByteCount.text(Int(reached.value))) to its workspace"
        case .log: "printed more than \(ByteCount.text(Int(reached.value))) of output"
        }
    }

    /// Who ran the processes in `step`.
    static func doer(_ step: IntegrationStep) -> String {
        switch step {
        case .building: "the build"
        case .testing: "the tests"
        case .beforeTriggers, .afterTriggers: "a trigger"
        default: "step '\(step.rawValue)'"
        }
    }
}
