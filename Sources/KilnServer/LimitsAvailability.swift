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

import KilnBuild

/// What `kiln status` says of the host's limits: nothing while a `kiln serve` here would bound
/// steps with control groups; when it could only use rlimits, that sentence (as its start says).
public enum LimitsAvailability {
    /// Looked at without making a group or writing a control file: `kiln status` changes nothing.
    public static func weakness() -> String? {
        let groups = ControlGroups.lookingOnly()
        guard case .rlimits = groups else { return nil }
        return groups.sentence
    }
}
