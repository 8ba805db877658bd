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
import KilnTestSupport
import Testing

/// The README and `docs/` as a reader meets them: every link leads somewhere, and every example
/// file is one `kiln validate` accepts.
@Suite("Documentation: links resolve, example files validate")
struct DocsTests {
    /// README.md and every page under docs/, as paths relative to the repository's root.
    static let pages: [String] = {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: Executables.packageRoot + "/docs")) ?? []
        return ["README.md", "ARCHITECTURE.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }()

    @Test("There is a guide: README links every page of docs/")
    func everyPageLinked() throws {
        let docs = Self.pages.filter { $0.hasPrefix("docs/") }
        #expect(docs.count >= 5, "docs/ holds \(docs)")
        let readme = try Markdown(path: "README.md")
        let linked = Set(readme.links.map { $0.target.split(separator: "#").first.map(String.init) ?? "" })
        #expect(docs.filter { !linked.contains($0) } == [], "pages of docs/ that README.md does not link")
    }

    @Test("Every relative link names a file that exists, and an anchor that is one of its headings", arguments: pages)
    func linksResolve(page: String) throws {
        let markdown = try Markdown(path: page)
        for link in markdown.links where !link.isExternal {
            let parts = link.target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let file = parts[0].isEmpty ? page : Markdown.resolve(parts[0], from: page)
            let path = Executables.packageRoot + "/" + file
            #expect(FileManager.default.fileExists(atPath: path), "\(page):\(link.line): [\(link.text)](\(link.target)): no file \(file)")
            guard parts.count == 2, file.hasSuffix(".md"), FileManager.default.fileExists(atPath: path) else { continue }
            let anchors = try Markdown(path: file).anchors
            #expect(anchors.contains(parts[1]), "\(page):\(link.line): [\(link.text)](\(link.target)): \(file) has no heading #\(parts[1])")
        }
    }

    @Test("Every YAML example names its file on its first line, and `kiln validate` accepts it", arguments: pages)
    func examplesValidate(page: String) async throws {
        for example in try Markdown(path: page).yamlBlocks {
            let first = example.text.prefix { $0 != "\n" }
            let name = first.hasPrefix("# ") ? String(first.dropFirst(2)).trimmingCharacters(in: .whitespaces) : ""
            let isBot = name.hasPrefix("Bots/") && name.hasSuffix(".yml")
            try #require(
                isBot || name == "kiln.yml",
                "\(page):\(example.line): a YAML example starts with a comment naming its file (# Bots/NAME.yml or # kiln.yml), so it can be checked")
            let home = try TemporaryDirectory()
            try home.write("Bots/.keep", "")
            try home.write(name, example.text)
            // A server file's own folders (`/etc/kiln/Bots`) are the reader's: the bots are checked apart.
            let arguments = isBot ? ["validate", name] : ["validate", "--config", name, "--bots", "Bots"]
            let result = try await runProcess(Executables.kiln, arguments, in: home.path)
            #expect(
                result.status == 0 && !result.standardOutput.contains("error:"),
                "\(page):\(example.line): kiln \(arguments.joined(separator: " ")): \(result.standardOutput)\(result.standardError)")
        }
    }
}

/// What the tests above read of a Markdown file: links outside code, headings' anchors as GitHub
/// makes them, and fenced YAML blocks with their indentation removed.
struct Markdown {
    struct Link {
        var text: String
        var target: String
        var line: Int
        var isExternal: Bool { target.contains("://") || target.hasPrefix("mailto:") }
    }
    struct Block {
        var text: String
        var line: Int
    }

    var links: [Link] = []
    var anchors: Set<String> = []
    var yamlBlocks: [Block] = []

    init(path: String) throws {
        let text = try String(contentsOfFile: Executables.packageRoot + "/" + path, encoding: .utf8)
        var fence: (language: String, indent: Int, line: Int, lines: [String])?
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            let trimmed = line.drop { $0 == " " }
            if trimmed.hasPrefix("```") {
                if let open = fence {
                    if open.language == "yaml" { yamlBlocks.append(Block(text: open.lines.joined(separator: "\n") + "\n", line: open.line)) }
                    fence = nil
                } else {
                    fence = (String(trimmed.dropFirst(3)), line.count - trimmed.count, index + 1, [])
                }
                continue
            }
            if let open = fence {
                fence?.lines.append(String(line.dropFirst(min(open.indent, line.count - line.drop { $0 == " " }.count))))
                continue
            }
            if line.hasPrefix("#") { anchors.insert(Self.anchor(line.drop { $0 == "#" })) }
            links += Self.links(in: line, line: index + 1)
        }
    }

    /// GitHub's anchor for a heading: lower case, punctuation dropped but `-` and `_`, spaces to `-`.
    static func anchor(_ heading: Substring) -> String {
        let words = heading.trimmingCharacters(in: .whitespaces).lowercased()
        return String(words.compactMap { $0 == " " ? "-" : ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") ? $0 : nil })
    }

    /// `[text](target)` outside inline code spans.
    static func links(in line: String, line number: Int) -> [Link] {
        var found: [Link] = []
        var inCode = false
        var index = line.startIndex
        while index < line.endIndex {
            let character = line[index]
            if character == "`" { inCode.toggle() }
            if character == "[", !inCode, let close = line[index...].firstIndex(of: "]"), line.index(after: close) < line.endIndex,
                line[line.index(after: close)] == "(", let end = line[close...].firstIndex(of: ")")
            {
                let target = String(line[line.index(close, offsetBy: 2)..<end])
                found.append(Link(text: String(line[line.index(after: index)..<close]), target: target, line: number))
                index = end
            }
            index = line.index(after: index)
        }
        return found
    }

    /// `target` relative to the folder of `page`, both relative to the repository's root.
    static func resolve(_ target: String, from page: String) -> String {
        var parts = page.split(separator: "/").dropLast().map(String.init)
        for part in target.split(separator: "/") {
            if part == ".." { _ = parts.popLast() } else if part != "." { parts.append(String(part)) }
        }
        return parts.joined(separator: "/")
    }
}
