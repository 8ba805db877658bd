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

/// `archive`: the product an integration builds in release configuration and keeps, with other
/// files of the workspace, as one asset of the integration (`<bot>.tar.gz`).
public struct ArchiveSettings: Sendable, Hashable {
    /// Executable products, each built with `swift build -c release --product NAME`, at `bin/NAME`.
    public var products: [String]
    /// Extra arguments for those builds (`--static-swift-stdlib`).
    public var arguments: [String]
    /// Other files of the workspace, by glob (`docs/**/*.html`), at their relative paths.
    public var files: [String]
    /// The results that keep an archive.
    public var on: Set<IntegrationResult>
    /// The largest archive kept, in bytes.
    public var maxSize: Int
    /// Whether pull requests from forks archive too (never with secrets).
    public var pullRequests: Bool
    /// For a bot with a matrix: the cell that archives (`Cell.name`); nil, its first.
    public var cell: String?

    public init(
        products: [String] = [], arguments: [String] = [], files: [String] = [], on: Set<IntegrationResult> = [.succeeded, .warnings],
        maxSize: Int = 512 << 20, pullRequests: Bool = false
    ) {
        self.products = products
        self.arguments = arguments
        self.files = files
        self.on = on
        self.maxSize = maxSize
        self.pullRequests = pullRequests
    }

    /// Whether anything is archived.
    public var enabled: Bool { !products.isEmpty || !files.isEmpty }

    /// "512MiB", "20 MB", "4096": a size in bytes; nil when it is not one.
    public static func bytes(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let digits = trimmed.prefix { $0.isNumber }
        guard let number = Int(digits), number > 0 else { return nil }
        let units: [String: Int] = ["": 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "KB": 1_000, "MB": 1_000_000, "GB": 1_000_000_000]
        guard let unit = units[trimmed.dropFirst(digits.count).trimmingCharacters(in: .whitespaces)] else { return nil }
        let (bytes, overflow) = number.multipliedReportingOverflow(by: unit)
        return overflow ? nil : bytes
    }
}

/// A file an integration keeps for download: its archive.
public struct Asset: Sendable, Hashable, Codable {
    public var name: String
    /// Bytes.
    public var size: Int
    /// The SHA-256 of its bytes, in lowercase hex: the download's ETag.
    public var sha256: String

    public init(name: String, size: Int, sha256: String) {
        self.name = name
        self.size = size
        self.sha256 = sha256
    }
}
