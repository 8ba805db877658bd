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

extension WorkspaceOrigin {
    /// Where the workspace came from, as the log and the integration's page say it: "warm",
    /// "warm from this host's snapshot of #41 (68.2 MiB in 0.4 s)", "from build-2's snapshot of
    /// #41 (68.2 MiB in 0.4 s)", "cold: no snapshot of this cell yet".
    public var sentence: String {
        let size = [bytes.map(ByteCount.text), seconds.map { "in \(DurationText.prose($0))" }].compactMap { $0 }.joined(separator: " ")
        let made = snapshot.map { " of #\($0.number)\(size.isEmpty ? "" : " (\(size))")" } ?? ""
        switch origin {
        case .warm: return "warm: the workspace's own .build"
        case .copy: return "warm from this host's snapshot\(made)"
        case .snapshot: return "from \(snapshot?.host ?? "another host")'s snapshot\(made)"
        case .cold: return "cold: \(reason?.sentence ?? "built from nothing")"
        }
    }
}

extension WorkspaceOrigin.ColdReason {
    /// "no snapshot of this cell yet", "build-2's snapshot of #41 was refused: …".
    public var sentence: String {
        switch self {
        case .wiped(let clean): "clean: \(clean) wiped the workspace"
        case .cacheOff: "cache: none"
        case .noSnapshot: "no snapshot of this cell yet"
        case .refused(let refusals):
            refusals.map { refusal in
                let whose = "\(refusal.host.map { "\($0)'s" } ?? "this host's") snapshot of #\(refusal.number)"
                return refusal.toolchain.map { "\(whose) was made with \($0)" } ?? "\(whose) was refused: \(refusal.error ?? "unknown")"
            }.joined(separator: "; ")
        case .recorded(let text): text
        }
    }
}
