import Testing

@Test func placeholder_TabProtocolTests() { #expect(true) }
