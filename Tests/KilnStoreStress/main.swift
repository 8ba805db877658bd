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

// A helper process for the store's tests: several real processes writing one store, a SQLite file
// (logs in `logs/` beside it) or a PostgreSQL database (a postgres:// URL).
//
//   kiln-store-stress cycle STORE BOT COUNT   queue, claim and complete COUNT integrations; print each number
//   kiln-store-stress hold STORE BOT          queue and claim one integration, print "claimed N", then wait to be stopped
//
// With KILN_STRESS_START set (seconds since 1970), it waits for that instant before opening the
// store, so that processes started milliseconds apart open a new store together.
import Foundation
import KilnCore
import KilnStore

let arguments = CommandLine.arguments
guard arguments.count >= 4 else {
    FileHandle.standardError.write(Data("usage: kiln-store-stress cycle|hold DB BOT [COUNT]\n".utf8))
    exit(2)
}
let (mode, path, bot) = (arguments[1], arguments[2], arguments[3])
if let start = ProcessInfo.processInfo.environment["KILN_STRESS_START"].flatMap(Double.init) {
    let wait = start - Date().timeIntervalSince1970
    if wait > 0 { try await Task.sleep(for: .seconds(wait)) }
}
do {
    let store: any Store =
        path.hasPrefix("postgres")
        ? try await PostgresStore.open(DatabaseSettings(url: path))
        : try SQLiteStore.open(path: path, logsDirectory: (path as NSString).deletingLastPathComponent + "/logs")
    let owner = ProcessOwner.current(host: ProcessInfo.processInfo.hostName)
    switch mode {
    case "cycle":
        let count = arguments.count > 4 ? Int(arguments[4]) ?? 1 : 1
        var done = 0
        while done < count {
            _ = try await store.enqueue(QueueRequest(bot: bot, cause: .manual, branch: "main"), now: Date())
            guard let claimed = try await store.claimNext(owner: owner, now: Date()) else { continue }
            try await store.complete(claimed, outcome: IntegrationOutcome(result: .succeeded), now: Date())
            FileHandle.standardOutput.write(Data("\(claimed.number)\n".utf8))
            done += 1
        }
    case "hold":
        _ = try await store.enqueue(QueueRequest(bot: bot, cause: .manual, commit: String(repeating: "a", count: 40), branch: "main"), now: Date())
        guard let claimed = try await store.claimNext(owner: owner, now: Date()) else { exit(3) }
        try await store.advance(claimed, to: .building, now: Date())
        FileHandle.standardOutput.write(Data("claimed \(claimed.number)\n".utf8))
        while true { sleep(60) }
    default:
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("kiln-store-stress: \(error)\n".utf8))
    exit(1)
}
