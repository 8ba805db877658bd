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

import Crypto
import Foundation
import KilnCore
import Mustache

/// The page templates and stylesheet of `Web/` (see `WebDirectory`), read once when the server starts.
public struct WebAssets: Sendable {
    public let directory: String
    let library: MustacheLibrary
    let stylesheet: String
    /// The SHA-256 of each inline script of the templates (the live log's), as
    /// `Content-Security-Policy` names them: the only scripts a page may run.
    let scriptHashes: [String]

    static let templates = [
        "header", "footer", "chart", "commit", "index", "bigscreen", "bot", "integration", "test", "source", "steps", "login", "audit", "error",
    ]

    public init(directory: String) throws(WebAssetsError) {
        self.directory = directory
        var library = MustacheLibrary()
        var scripts: [String] = []
        for name in Self.templates {
            let path = "\(directory)/\(name).mustache"
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw .missing(path) }
            scripts += Self.inlineScripts(in: text)
            do {
                try library.register(text, named: name)
            } catch {
                throw .invalid(path, "\(error)")
            }
        }
        self.library = library
        scriptHashes = scripts.map { "'sha256-" + Data(SHA256.hash(data: Data($0.utf8))).base64EncodedString() + "'" }
        guard let css = try? String(contentsOfFile: directory + "/style.css", encoding: .utf8) else { throw .missing(directory + "/style.css") }
        stylesheet = css
    }

    /// Locates and reads the assets.
    public static func load(environment: [String: String] = ProcessInfo.processInfo.environment) throws(WebAssetsError) -> WebAssets {
        guard let directory = WebDirectory.locate(environment: environment) else { throw .notFound }
        return try WebAssets(directory: directory)
    }

    /// The text of each `<script>…</script>` of a template, as a browser hashes it (the
    /// templates hold no tags inside their scripts, so the text is what is rendered).
    static func inlineScripts(in template: String) -> [String] {
        var scripts: [String] = []
        var rest = template[...]
        while let open = rest.range(of: "<script>"), let close = rest[open.upperBound...].range(of: "</script>") {
            scripts.append(String(rest[open.upperBound..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        return scripts
    }

    func render(_ page: Any, _ template: String) -> String {
        library.render(TemplateValues.of(page) ?? page, withTemplate: template) ?? ""
    }
}

public enum WebAssetsError: Error, Sendable, CustomStringConvertible {
    case notFound
    case missing(String)
    case invalid(String, String)

    public var description: String {
        switch self {
        case .notFound:
            WebDirectory.notFoundHint
        case .missing(let path): "cannot read the web template \(path): reinstall the Web directory"
        case .invalid(let path, let reason): "the web template \(path) is not valid mustache: \(reason)"
        }
    }
}
