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
import Mustache

/// The mail templates of `Web/`: `mail-<name>.txt.mustache` and `mail-<name>.html.mustache` for
/// each kind of mail, read once.
public struct MailTemplates: Sendable {
    private let library: MustacheLibrary
    static let kinds = ["new-issues", "report", "digest"]

    public init(directory: String) throws(MailTemplatesError) {
        var library = MustacheLibrary()
        for kind in Self.kinds {
            for part in ["txt", "html"] {
                let path = "\(directory)/mail-\(kind).\(part).mustache"
                guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw .missing(path) }
                do {
                    try library.register(text, named: "\(kind).\(part)")
                } catch {
                    throw .invalid(path, "\(error)")
                }
            }
        }
        self.library = library
    }

    /// Locates `Web/` (see `WebDirectory`) and reads the templates.
    public static func load(environment: [String: String] = ProcessInfo.processInfo.environment) throws(MailTemplatesError) -> MailTemplates {
        guard let directory = WebDirectory.locate(environment: environment) else { throw .notFound }
        return try MailTemplates(directory: directory)
    }

    /// The text and HTML bodies of mail `kind` for `object`.
    public func render(_ kind: String, _ object: Any) -> (text: String, html: String) {
        (library.render(object, withTemplate: "\(kind).txt") ?? "", library.render(object, withTemplate: "\(kind).html") ?? "")
    }
}

public enum MailTemplatesError: Error, Sendable, CustomStringConvertible {
    case notFound
    case missing(String)
    case invalid(String, String)

    public var description: String {
        switch self {
        case .notFound: WebDirectory.notFoundHint
        case .missing(let path): "cannot read the mail template \(path): reinstall the Web directory"
        case .invalid(let path, let reason): "the mail template \(path) is not valid mustache: \(reason)"
        }
    }
}
