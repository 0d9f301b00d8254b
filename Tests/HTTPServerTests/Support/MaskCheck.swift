import Testing

/// Checks a byte-class test (a pair of masks) against the RFC's list of its characters, for all 256 bytes.
func expectMask(_ isMember: (UInt8) -> Bool, matches list: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let members = Set(Array(list.utf8))
    for b in 0...255 {
        #expect(isMember(UInt8(b)) == members.contains(UInt8(b)), "byte \(b)", sourceLocation: sourceLocation)
    }
}
