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

/// What ARCHITECTURE.md and the modules' READMEs say each module imports, checked against the
/// sources' `import` lines and Package.swift: a claim that stops being true fails here.
@Suite("ARCHITECTURE.md and the module READMEs say what each module imports, truly")
struct ModuleClaimsTests {
    static let root = Executables.packageRoot
    /// The toolchain's own modules, which no claim names.
    static let system: Set<String> = [
        "Foundation", "FoundationEssentials", "FoundationNetworking", "Glibc", "Darwin", "Synchronization", "Dispatch", "RegexBuilder",
    ]
    static let modules = ["KilnCore", "KilnPresentation", "KilnStore", "KilnGit", "KilnBuild", "KilnMail", "KilnWeb", "KilnServer", "kiln"]

    /// The modules `module`'s sources import, the toolchain's left out.
    static func imports(of module: String) throws -> Set<String> {
        var found: Set<String> = []
        let directory = root + "/Sources/" + module
        let files = try #require(FileManager.default.enumerator(atPath: directory)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        for file in files {
            // Only lines that name `import` go through the regex, which a debug build runs slowly
            // enough to make this test take 26 s when every line did.
            for line in try String(contentsOfFile: directory + "/" + file, encoding: .utf8).split(separator: "\n") where line.contains("import ") {
                if let match = line.firstMatch(of: /^(?:@[A-Za-z_]+ |public |internal |package |private |fileprivate )*import ([A-Za-z0-9_]+)$/) {
                    found.insert(String(match.1))
                }
            }
        }
        return found.subtracting(system)
    }

    /// ARCHITECTURE.md's module table: module → the names its imports column lists.
    static func architectureTable() throws -> [String: Set<String>] {
        var table: [String: Set<String>] = [:]
        for line in try String(contentsOfFile: root + "/ARCHITECTURE.md", encoding: .utf8).split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4, let module = cells[1].firstMatch(of: /^`([A-Za-z]+)`$/)?.1 else { continue }
            table[String(module)] = Set(cells[cells.count - 2].matches(of: /`([A-Za-z0-9_]+)`/).map { String($0.1) })
        }
        return table
    }

    /// Package.swift's targets: name → the names of their dependencies (targets and products).
    static func declared() async throws -> [String: Set<String>] {
        let scratch = try TemporaryDirectory()
        let dump = try await runProcess("/usr/bin/env", ["swift", "package", "--scratch-path", scratch.path, "dump-package"], in: root)
        try #require(dump.status == 0, "swift package dump-package: \(dump.standardError)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(dump.standardOutput.utf8)) as? [String: Any])
        var targets: [String: Set<String>] = [:]
        for target in json["targets"] as? [[String: Any]] ?? [] {
            guard let name = target["name"] as? String else { continue }
            let names = (target["dependencies"] as? [[String: Any]] ?? []).compactMap { dependency in
                dependency.values.compactMap { ($0 as? [Any])?.first as? String }.first
            }
            targets[name] = Set(names)
        }
        return targets
    }

    @Test("ARCHITECTURE.md's table names exactly what each module imports, and Package.swift declares each")
    func architecture() async throws {
        let table = try Self.architectureTable()
        let declared = try await Self.declared()
        #expect(Set(table.keys) == Set(Self.modules), "the table's modules: \(table.keys.sorted())")
        for module in Self.modules {
            let imported = try Self.imports(of: module)
            let claimed = table[module] ?? []
            #expect(claimed == imported, "\(module): ARCHITECTURE.md says \(claimed.sorted()); its sources import \(imported.sorted())")
            let undeclared = imported.subtracting(declared[module] ?? [])
            #expect(undeclared.isEmpty, "\(module) imports \(undeclared.sorted()) without declaring it in Package.swift")
        }
    }

    /// A README's sentence, and what it means for the imports.
    struct Claim: Sendable, CustomStringConvertible {
        var readme: String
        var sentence: String
        var holds: @Sendable ([String: Set<String>]) -> Bool
        var description: String { "\(readme): \(sentence)" }
    }

    static let claims: [Claim] = [
        Claim(readme: "Sources/KilnCore/README.md", sentence: "depends on Yams, and on swift-log") { $0["KilnCore"] == ["Yams", "Logging"] },
        Claim(readme: "Sources/KilnPresentation/README.md", sentence: "Depends on KilnCore only") { $0["KilnPresentation"] == ["KilnCore"] },
        Claim(readme: "Sources/KilnWeb/README.md", sentence: "imports KilnCore, KilnPresentation and KilnStore only") { imports in
            Set((imports["KilnWeb"] ?? []).filter { $0.hasPrefix("Kiln") }) == ["KilnCore", "KilnPresentation", "KilnStore"]
        },
        Claim(readme: "Sources/KilnStore/README.md", sentence: "The only module that imports GRDB or PostgresNIO") { imports in
            imports.filter { $0.value.contains("GRDB") || $0.value.contains("PostgresNIO") }.keys.sorted() == ["KilnStore"]
        },
        Claim(readme: "Sources/CGit2/README.md", sentence: "Only `KilnGit` imports it") { imports in
            imports.filter { $0.value.contains("CGit2") }.keys.sorted() == ["KilnGit"]
        },
        Claim(readme: "Sources/CCurl/README.md", sentence: "Only `KilnMail` imports it") { imports in
            imports.filter { $0.value.contains("CCurl") }.keys.sorted() == ["KilnMail"]
        },
        Claim(readme: "Sources/CMalloc/README.md", sentence: "Only `kiln` imports it") { imports in
            imports.filter { $0.value.contains("CMalloc") }.keys.sorted() == ["kiln"]
        },
        Claim(readme: "Sources/KilnServer/README.md", sentence: "KilnWeb never imports KilnServer") { imports in
            !(imports["KilnWeb"] ?? []).contains("KilnServer")
        },
    ]

    @Test("Each module README's sentence about imports is still there and still true", arguments: claims)
    func readme(_ claim: Claim) throws {
        let text = try String(contentsOfFile: Self.root + "/" + claim.readme, encoding: .utf8)
        let flowing = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(flowing.contains(claim.sentence), "\(claim.readme) no longer says '\(claim.sentence)': update this test with what it says now")
        var imports: [String: Set<String>] = [:]
        for module in Self.modules { imports[module] = try Self.imports(of: module) }
        #expect(claim.holds(imports), "\(claim) — not true of the sources: \(imports.mapValues { $0.sorted() })")
    }
}
