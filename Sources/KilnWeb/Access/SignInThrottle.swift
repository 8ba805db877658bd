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

/// Slows the guessing of tokens: after `limit` failed sign-ins from one address within `window`
/// (a wrong token at `/login`, as a bearer token or in a cookie), that address is refused for
/// `window` (429 with `Retry-After`), whatever it presents; other addresses and right tokens are
/// not slowed. Each host keeps its own count, in memory.
actor SignInThrottle {
    static let limit = 10
    static let window: TimeInterval = 60
    /// Addresses remembered at most; past it, those whose failures have all aged out are forgotten.
    static let addresses = 10_000

    private var failures: [String: [Date]] = [:]
    private var refusedUntil: [String: Date] = [:]

    /// Whole seconds until `address` may try again; nil when it may now.
    func wait(for address: String, now: Date) -> Int? {
        guard let until = refusedUntil[address] else { return nil }
        guard until > now else {
            refusedUntil[address] = nil
            return nil
        }
        return Int(until.timeIntervalSince(now).rounded(.up))
    }

    /// Counts a failure from `address`; true when it is the one that starts a refusal.
    func failed(_ address: String, now: Date) -> Bool {
        if failures.count >= Self.addresses { forgetStale(now: now) }
        var recent = (failures[address] ?? []).filter { now.timeIntervalSince($0) < Self.window }
        recent.append(now)
        guard recent.count >= Self.limit else {
            failures[address] = recent
            return false
        }
        failures[address] = nil
        refusedUntil[address] = now.addingTimeInterval(Self.window)
        return true
    }

    private func forgetStale(now: Date) {
        failures = failures.filter { _, times in times.contains { now.timeIntervalSince($0) < Self.window } }
        refusedUntil = refusedUntil.filter { $0.value > now }
    }
}
