import KilnCore
import Testing

@Suite("Matrix: cells from axes and exclusions")
struct MatrixTests {
    @Test("Cells are every combination in the file's order, less the excluded, named by their values")
    func cells() {
        let matrix = Matrix(
            configurations: [.debug, .release], sanitizers: [.none, .thread], exclude: [Matrix.Exclusion(configuration: .release, sanitizer: .thread)]
        )
        #expect(matrix.cells.map(\.name) == ["default-debug-none", "default-debug-thread", "default-release-none"])
        #expect(Matrix(exclude: [Matrix.Exclusion(toolchain: "default")]).cells.isEmpty)
        #expect(Matrix().cells == [Cell()], "no axes: one cell, the bot as it is")
    }

    @Test("A bot runs in a cell with the cell's configuration and the sanitizer's arguments added to its own")
    func running() throws {
        let bot = try BotFile.decode(
            "repository: {url: https://example.com/app.git}\nbuild: {arguments: [-Xswiftc, -g]}\ntest: {arguments: [--parallel]}\nmatrix: {configuration: release, sanitizer: [address]}\n",
            file: "Bots/app.yml")
        let cell = try #require(bot.matrix?.cells.first)
        #expect(bot.matrix?.cells.count == 1 && cell.name == "default-release-address")
        let running = bot.running(in: cell)
        #expect(running.build.configuration == .release)
        #expect(running.build.arguments == ["-Xswiftc", "-g", "--sanitize=address"])
        #expect(running.test.arguments == ["--parallel", "--sanitize=address"])
        #expect(bot.running(in: Cell()) == bot.running(in: Cell()) && bot.running(in: Cell()).build.arguments == ["-Xswiftc", "-g"])
    }
}
