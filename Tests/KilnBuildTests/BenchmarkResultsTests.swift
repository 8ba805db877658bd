import Foundation
import KilnBuild
import KilnCore
import KilnTestSupport
import Testing

@Suite("package-benchmark's percentiles, as Kiln reads them")
struct BenchmarkResultsTests {
    @Test("Each file is a benchmark × metric: its p50, times in seconds, counters named for the regression's words")
    func read() throws {
        let directory = try TemporaryDirectory()
        let rows = (0...100).map { "\($0)\t\(1000 + $0)" }.joined(separator: "\n")
        try directory.write("Current_run.Parse.Parse_1_KiB.mallocCountTotal.histogram.percentiles.tsv", "Percentile\tMalloc (total) *\n\(rows)\n")
        try directory.write("Current_run.Parse.Parse_1_KiB.wallClock.histogram.percentiles.tsv", "Percentile\tTime (wall clock) (ns) *\n\(rows)\n")
        try directory.write("Current_run.Parse.v1.2_format.throughput.histogram.percentiles.tsv", "Percentile\t# *\n\(rows)\n")
        try directory.write("Parse.Parse_1_KiB.p90.json", "{}")
        let measured = BenchmarkResults.read(directory: directory.path)
        #expect(measured.map(\.benchmark) == ["Parse 1 KiB", "Parse 1 KiB", "v1.2 format"])
        let mallocs = try #require(measured.first { $0.metric == "mallocCountTotal" })
        #expect(mallocs.target == "Parse" && mallocs.p50 == 1050 && mallocs.counter == "mallocs")
        #expect(mallocs.testCase.suite == "Parse" && mallocs.testCase.name == "Parse 1 KiB · mallocCountTotal")
        #expect(mallocs.testCase.measurement?.values == [1050])
        let time = try #require(measured.first { $0.metric == "wallClock" })
        #expect(time.counter == nil && time.testCase.measurement?.values == [1050 / 1_000_000_000])
        #expect(measured.first { $0.metric == "throughput" }?.counter == nil, "kept, not judged")
    }

    @Test("A counter regresses on any increase beyond the tolerance, by one at least; no baseline is none")
    func judge() {
        #expect(PerformanceRegression.judgeCounter(19, baseline: [12, 12, 13], tolerance: 0.1, host: "h", counter: "mallocs") != nil)
        #expect(PerformanceRegression.judgeCounter(13, baseline: [12, 12, 12], tolerance: 0.1, host: "h", counter: "mallocs") == nil)
        #expect(PerformanceRegression.judgeCounter(2, baseline: [1], tolerance: 0.5, host: "h", counter: "mallocs") != nil)
        #expect(PerformanceRegression.judgeCounter(1_000, baseline: [], tolerance: 0.1, host: "h", counter: "mallocs") == nil)
        let regression = PerformanceRegression.judgeCounter(19, baseline: [12], tolerance: 0.1, host: "build-2", counter: "mallocs")
        #expect(regression?.message(suite: "Parse", name: "Parse 1 KiB · mallocCountTotal") == "Parse 1 KiB: mallocs p50 12 → 19 (+58%) on build-2")
    }
}
