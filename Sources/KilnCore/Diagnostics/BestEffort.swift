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

import Logging

extension Logger {
    /// Runs `work`, whose failure Kiln survives but must not hide: when it throws, logs at
    /// `warning` what was being done, what its failure loses and the error, and returns nil.
    ///
    /// The one way Kiln does best-effort work whose failure changes a result (a store read a
    /// verdict rests on, a store write, a file the build relies on), so that a reader of the log can
    /// tell a quiet success from a quiet loss. `try?` stays for what is truly nothing when it
    /// fails (an optional parse, a cache), and `make lint` (scripts/lint-quiet-failures) refuses
    /// every `try? await`, and every `try?` on a write or removal, that no comment explains.
    ///
    /// - Parameters:
    ///   - doing: what was being done, as "reading the history of MathTests/testAdds".
    ///   - loses: what its failure costs, as "the test's failure is not checked against its history".
    ///   - metadata: more for the log line, as the bot and the integration's number.
    ///   - work: the work itself.
    @discardableResult
    public func bestEffort<T, Failure: Error>(
        _ doing: @autoclosure () -> String, loses: @autoclosure () -> String, metadata: Metadata = [:], _ work: () async throws(Failure) -> T
    ) async -> T? {
        do {
            return try await work()
        } catch {
            warning("\(doing()) failed: \(loses())", metadata: metadata.merging(["error": "\(error)"]) { _, new in new })
            return nil
        }
    }

    /// The same for synchronous work: a file written, a directory made.
    @discardableResult
    public func bestEffort<T, Failure: Error>(
        _ doing: @autoclosure () -> String, loses: @autoclosure () -> String, metadata: Metadata = [:], _ work: () throws(Failure) -> T
    ) -> T? {
        do {
            return try work()
        } catch {
            warning("\(doing()) failed: \(loses())", metadata: metadata.merging(["error": "\(error)"]) { _, new in new })
            return nil
        }
    }
}
