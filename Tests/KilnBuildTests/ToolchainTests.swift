import KilnBuild
import Testing

@Suite("Toolchain")
struct ToolchainTests {
    @Test("The Swift toolchain on the PATH is found and reports its version")
    func version() async throws {
        let version = try #require(await Toolchain.version(), "swift must be on the PATH")
        #expect(version.hasPrefix("Swift version 6"))
    }
}
