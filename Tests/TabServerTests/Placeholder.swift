import Testing

@Test func placeholder_TabServerTests() { #expect(true) }
