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

/// A directory under the system's temp dir, removed when the value is released.
public final class TemporaryDirectory: Sendable {
    public let path: String

    /// `under` another directory than the system's temp dir: a sandboxed build gets a private
    /// /tmp, so a test that checks what the sandbox hides puts its files elsewhere.
    public init(_ label: String = "kiln", under parent: URL = FileManager.default.temporaryDirectory) throws {
        let base = parent.appendingPathComponent("\(label)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        path = base.path
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The absolute path of `relative` inside the directory.
    public func url(_ relative: String) -> String { path + "/" + relative }

    /// Writes `contents` to `relative`, creating folders as needed; returns the absolute path.
    @discardableResult
    public func write(_ relative: String, _ contents: String) throws -> String {
        let file = url(relative)
        try FileManager.default.createDirectory(
            atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try contents.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }
}
