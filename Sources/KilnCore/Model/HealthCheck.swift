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

/// What `/health` judges on a host, each part as data: KilnPresentation says it in words.
public struct HealthCheck: Sendable, Hashable {
    /// How a part stands.
    public enum Finding: Sendable, Hashable {
        /// The store answered one query in `seconds`.
        case storeAnswered(seconds: Double)
        /// A query has been waiting `seconds`, over the `limit`.
        case storeSilent(seconds: Double, limit: Double)
        /// The store's last answer was an error.
        case storeFailed(reason: String)
        /// No query has been asked yet, or the asking stopped `seconds` ago.
        case storeNotAsked(seconds: Double?)
        /// `free` bytes free on the data directory's file system, `wanted` at least.
        case diskFree(free: Int, wanted: Int)
        /// The data directory's file system could not be read.
        case diskUnreadable(path: String, reason: String)
        /// The scheduler turned `seconds` ago; `limit`: how long it may be silent.
        case schedulerTurned(seconds: Double, limit: Double)
        /// This process runs no scheduler (a web application alone).
        case noScheduler

        /// Whether this finding lets the host take work.
        public var healthy: Bool {
            switch self {
            case .storeAnswered, .noScheduler: true
            case .storeSilent, .storeFailed, .storeNotAsked, .diskUnreadable: false
            case .diskFree(let free, let wanted): free >= wanted
            case .schedulerTurned(let seconds, let limit): seconds <= limit
            }
        }
    }

    public var store: Finding
    public var disk: Finding
    public var scheduler: Finding

    public init(store: Finding, disk: Finding, scheduler: Finding) {
        self.store = store
        self.disk = disk
        self.scheduler = scheduler
    }

    public var healthy: Bool { store.healthy && disk.healthy && scheduler.healthy }
}
