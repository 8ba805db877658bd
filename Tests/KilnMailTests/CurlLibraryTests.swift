import KilnMail
import Testing

@Suite("libcurl")
struct CurlLibraryTests {
    @Test("libcurl is linked and speaks SMTP and SMTPS")
    func protocols() {
        #expect(CurlLibrary.version.split(separator: ".").count == 3)
        #expect(CurlLibrary.protocols.isSuperset(of: ["smtp", "smtps"]), "install libcurl4-openssl-dev (curl built with SMTP)")
    }
}
