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

import ServiceLifecycle

/// Which of a server's services are still running: what a shutdown that outlasts its limit
/// (`KilnApplication.stopLimit`) names as the ones it waited for.
public actor ServiceLedger {
    private var running: [String] = []

    public init() {}

    func started(_ name: String) { running.append(name) }
    func stopped(_ name: String) { running.removeAll { $0 == name } }

    /// The services that have not stopped, in the order they started.
    public var stillRunning: [String] { running }
}

/// A service under a name, kept in a ledger while it runs.
struct NamedService: Service {
    let name: String
    let service: any Service
    let ledger: ServiceLedger

    func run() async throws {
        await ledger.started(name)
        do {
            try await service.run()
        } catch {
            await ledger.stopped(name)
            throw error
        }
        await ledger.stopped(name)
    }
}
