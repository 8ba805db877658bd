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

/// Each executable line of the package's own sources, by file (relative to the package), with
/// how often it ran, as llvm-cov counts lines.
public struct LineCoverage: Sendable, Hashable {
    public var files: [String: [Int: Int]]

    public init(files: [String: [Int: Int]] = [:]) {
        self.files = files
    }
}

/// How much of a change its tests ran: of the lines it added or modified (`ChangedLines`) that
/// llvm-cov counts as executable, how many ran. Files whose changed lines hold nothing executable
/// are left out, as `diff-cover` leaves them.
public struct PatchCoverage: Sendable, Hashable, Codable {
    public struct File: Sendable, Hashable, Codable {
        public var path: String
        public var covered: Int
        public var coverable: Int
        /// The changed executable lines no test ran, in order.
        public var uncovered: [Int]
        /// Every changed executable line, in order, which a matrix's union needs (nil in a figure
        /// stored before it was kept: the union then counts this file's uncovered lines alone).
        public var lines: [Int]?
        /// The whole file's executable lines that ran, and those that did not, in order, for its
        /// view with coverage (nil in a figure stored before they were kept).
        public var run: [Int]?
        public var notRun: [Int]?

        public init(
            path: String, covered: Int, coverable: Int, uncovered: [Int], lines: [Int]? = nil, run: [Int]? = nil, notRun: [Int]? = nil
        ) {
            self.path = path
            self.covered = covered
            self.coverable = coverable
            self.uncovered = uncovered
            self.lines = lines
            self.run = run
            self.notRun = notRun
        }
    }

    public var covered: Int
    public var coverable: Int
    /// By path.
    public var files: [File]

    public init(covered: Int, coverable: Int, files: [File]) {
        self.covered = covered
        self.coverable = coverable
        self.files = files
    }

    /// `changed` measured against `lines`.
    public init(changed: ChangedLines, lines: LineCoverage) {
        var files: [File] = []
        for (path, changedLines) in changed.lines.sorted(by: { $0.key < $1.key }) {
            guard let counts = lines.files[path] else { continue }
            let executable = changedLines.filter { counts[$0] != nil }.sorted()
            guard !executable.isEmpty else { continue }
            let uncovered = executable.filter { counts[$0] == 0 }
            files.append(
                File(
                    path: path, covered: executable.count - uncovered.count, coverable: executable.count, uncovered: uncovered, lines: executable,
                    run: counts.filter { $0.value > 0 }.keys.sorted(), notRun: counts.filter { $0.value == 0 }.keys.sorted()))
        }
        self.init(covered: files.reduce(0) { $0 + $1.covered }, coverable: files.reduce(0) { $0 + $1.coverable }, files: files)
    }

    /// A matrix's figure: a changed line counts as coverable when any cell's build had it
    /// executable, and as run when any cell's tests ran it. Nil when no cell measured one.
    public static func union(_ cells: [PatchCoverage]) -> PatchCoverage? {
        guard !cells.isEmpty else { return nil }
        var coverable: [String: Set<Int>] = [:]
        var ran: [String: Set<Int>] = [:]
        // the whole files' lines, where every cell kept them
        var executable: [String: Set<Int>?] = [:]
        var fileRan: [String: Set<Int>] = [:]
        for file in cells.flatMap(\.files) {
            let lines = Set(file.lines ?? file.uncovered)
            coverable[file.path, default: []].formUnion(lines)
            ran[file.path, default: []].formUnion(lines.subtracting(file.uncovered))
            if let run = file.run, let notRun = file.notRun {
                executable[file.path] = (executable[file.path] ?? []).map { $0.union(run).union(notRun) }
                fileRan[file.path, default: []].formUnion(run)
            } else {
                executable[file.path] = .some(nil)
            }
        }
        let files = coverable.keys.sorted().map { path in
            let lines = coverable[path] ?? [], covered = ran[path] ?? []
            let whole = executable[path] ?? nil, run = fileRan[path] ?? []
            return File(
                path: path, covered: covered.count, coverable: lines.count, uncovered: lines.subtracting(covered).sorted(), lines: lines.sorted(),
                run: whole.map { _ in run.sorted() }, notRun: whole.map { $0.subtracting(run).sorted() })
        }
        return PatchCoverage(covered: files.reduce(0) { $0 + $1.covered }, coverable: files.reduce(0) { $0 + $1.coverable }, files: files)
    }

    /// `lines` as runs of consecutive lines, in order: [3, 4, 5, 9] is 3...5 and 9...9.
    public static func runs(_ lines: [Int]) -> [ClosedRange<Int>] {
        var runs: [ClosedRange<Int>] = []
        for line in Set(lines).sorted() {
            if let last = runs.last, last.upperBound == line - 1 {
                runs[runs.count - 1] = last.lowerBound...line
            } else {
                runs.append(line...line)
            }
        }
        return runs
    }

    /// Percent of the coverable changed lines that ran, to a tenth; nil when none is coverable.
    public var percent: Double? {
        coverable > 0 ? (Double(covered) / Double(coverable) * 1000).rounded() / 10 : nil
    }
}

/// `coverage:` in a bot file: what the change's coverage must reach on its commit status.
public struct CoverageSettings: Sendable, Hashable {
    /// `patch`: the percentage below which the coverage status fails; nil: it only informs.
    public var patch: Int?
    /// `min-lines`: a change with fewer coverable lines never fails.
    public var minLines: Int
    /// `comments`: the uncovered changed lines as review comments.
    public var comments: Bool

    public init(patch: Int? = nil, minLines: Int = 5, comments: Bool = false) {
        self.patch = patch
        self.minLines = minLines
        self.comments = comments
    }

    /// Whether `coverage` fails the status: below `patch`, with at least `minLines` coverable lines.
    public func fails(_ coverage: PatchCoverage) -> Bool {
        guard let patch, coverage.coverable >= minLines, let percent = coverage.percent else { return false }
        return percent < Double(patch)
    }
}
