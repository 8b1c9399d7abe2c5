import Testing

@Test func placeholder_TabCoreTests() { #expect(true) }
