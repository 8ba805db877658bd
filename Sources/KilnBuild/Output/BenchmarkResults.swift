import Foundation
import KilnCore

/// What package-benchmark measured, read from its machine-readable output
/// (`--format histogramPercentiles`): one file per benchmark and metric,
/// `Current_run.<Target>.<Benchmark>.<metric>.histogram.percentiles.tsv`, a header and then a
/// `percentile<TAB>value` row per percentile. The p50 of each is kept.
///
/// The benchmark's name comes with its spaces made `_` by the file name: it is shown with
/// spaces again.
public enum BenchmarkResults {
    /// One benchmark × metric.
    public struct Measurement: Sendable, Hashable {
        public var target: String
        public var benchmark: String
        /// package-benchmark's name for it: `mallocCountTotal`, `wallClock`.
        public var metric: String
        public var p50: Double

        /// The word the regression's message uses for a counter ("mallocs"); nil for a time,
        /// or a figure that is neither (peak memory, throughput), which is kept and not judged.
        public var counter: String? { BenchmarkResults.counters[metric] }

        /// As a test's result: suite the target, name "benchmark · metric", its p50 the one value.
        /// Times are in seconds, as XCTest's measurements; package-benchmark writes nanoseconds.
        public var testCase: TestCase {
            let value = BenchmarkResults.times.contains(metric) ? p50 / 1_000_000_000 : p50
            return TestCase(
                suite: target, name: "\(benchmark) · \(metric)", status: .passed, duration: 0,
                measurement: TestMeasurement(values: [value]))
        }
    }

    /// The counters judged by any increase, and their words.
    static let counters: [String: String] = [
        "mallocCountTotal": "mallocs", "mallocCountSmall": "small mallocs", "mallocCountLarge": "large mallocs", "memoryLeaked": "leaks",
        "allocatedResidentMemory": "allocated bytes", "retainCount": "retains", "releaseCount": "releases",
        "retainReleaseDelta": "retain/release delta",
        "objectAllocCount": "object allocations", "instructions": "instructions", "syscalls": "syscalls", "readSyscalls": "read syscalls",
        "writeSyscalls": "write syscalls", "contextSwitches": "context switches", "threads": "threads",
    ]
    /// The metrics that are times (nanoseconds in the files).
    static let times: Set<String> = ["wallClock", "cpuUser", "cpuSystem", "cpuTotal"]

    /// Every measurement in `directory`, sorted.
    public static func read(directory: String) -> [Measurement] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.compactMap { name in
            guard let parts = parse(fileName: name),
                let text = try? String(contentsOfFile: directory + "/" + name, encoding: .utf8),
                let p50 = median(in: text)
            else { return nil }
            return Measurement(target: parts.target, benchmark: parts.benchmark, metric: parts.metric, p50: p50)
        }.sorted { ($0.target, $0.benchmark, $0.metric) < ($1.target, $1.benchmark, $1.metric) }
    }

    /// The target, benchmark and metric a file's name stands for.
    static func parse(fileName: String) -> (target: String, benchmark: String, metric: String)? {
        let prefix = "Current_run.", suffix = ".histogram.percentiles.tsv"
        guard fileName.hasPrefix(prefix), fileName.hasSuffix(suffix) else { return nil }
        let parts = fileName.dropFirst(prefix.count).dropLast(suffix.count).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 3, let target = parts.first, let metric = parts.last else { return nil }
        let benchmark = parts.dropFirst().dropLast().joined(separator: ".").replacingOccurrences(of: "_", with: " ")
        return (String(target), benchmark, String(metric))
    }

    /// The value of the 50th percentile's row.
    static func median(in text: String) -> Double? {
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: "\t")
            if fields.count >= 2, fields[0] == "50" { return Double(fields[1]) }
        }
        return nil
    }
}
