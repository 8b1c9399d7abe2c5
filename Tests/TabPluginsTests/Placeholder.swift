import Testing

@Test func placeholder_TabPluginsTests() { #expect(true) }
