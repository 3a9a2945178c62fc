/// The forward 8×8 DCT in integer arithmetic, as libjpeg's `jfdctint.c` ("slow but accurate")
/// computes it: the same bytes on every platform, unlike a floating-point transform whose last
/// bits depend on the math library. Outputs are 8 times the true coefficients (quantization
/// divides by 8 × the table entry).
enum IntegerDCT {
    private static let constBits = 13
    private static let pass1Bits = 2
    private static let fix0_298631336 = 2446, fix0_390180644 = 3196, fix0_541196100 = 4433, fix0_765366865 = 6270
    private static let fix0_899976223 = 7373, fix1_175875602 = 9633, fix1_501321110 = 12299, fix1_847759065 = 15137
    private static let fix1_961570560 = 16069, fix2_053119869 = 16819, fix2_562915447 = 20995, fix3_072711026 = 25172

    private static func descale(_ x: Int, _ n: Int) -> Int { (x + (1 << (n - 1))) >> n }

    /// Transforms a block of level-shifted samples (−128…127) in place.
    static func forward(_ block: inout [Int]) {
        for row in 0..<8 { pass(&block, start: row * 8, step: 1, first: true) }
        for column in 0..<8 { pass(&block, start: column, step: 8, first: false) }
    }

    /// One one-dimensional transform over 8 values `step` apart: rows first (scaled up by
    /// 2^pass1Bits for precision), then columns (scaled back down).
    private static func pass(_ d: inout [Int], start: Int, step: Int, first: Bool) {
        let i = (0..<8).map { start + $0 * step }
        let tmp0 = d[i[0]] + d[i[7]], tmp7 = d[i[0]] - d[i[7]]
        let tmp1 = d[i[1]] + d[i[6]], tmp6 = d[i[1]] - d[i[6]]
        let tmp2 = d[i[2]] + d[i[5]], tmp5 = d[i[2]] - d[i[5]]
        let tmp3 = d[i[3]] + d[i[4]], tmp4 = d[i[3]] - d[i[4]]

        let tmp10 = tmp0 + tmp3, tmp13 = tmp0 - tmp3
        let tmp11 = tmp1 + tmp2, tmp12 = tmp1 - tmp2
        let shift = first ? constBits - pass1Bits : constBits + pass1Bits
        if first {
            d[i[0]] = (tmp10 + tmp11) << pass1Bits
            d[i[4]] = (tmp10 - tmp11) << pass1Bits
        } else {
            d[i[0]] = descale(tmp10 + tmp11, pass1Bits)
            d[i[4]] = descale(tmp10 - tmp11, pass1Bits)
        }
        let z1 = (tmp12 + tmp13) * fix0_541196100
        d[i[2]] = descale(z1 + tmp13 * fix0_765366865, shift)
        d[i[6]] = descale(z1 - tmp12 * fix1_847759065, shift)

        let z5 = (tmp4 + tmp6 + tmp5 + tmp7) * fix1_175875602
        let o1 = -(tmp4 + tmp7) * fix0_899976223
        let o2 = -(tmp5 + tmp6) * fix2_562915447
        let o3 = -(tmp4 + tmp6) * fix1_961570560 + z5
        let o4 = -(tmp5 + tmp7) * fix0_390180644 + z5
        d[i[7]] = descale(tmp4 * fix0_298631336 + o1 + o3, shift)
        d[i[5]] = descale(tmp5 * fix2_053119869 + o2 + o4, shift)
        d[i[3]] = descale(tmp6 * fix3_072711026 + o2 + o3, shift)
        d[i[1]] = descale(tmp7 * fix1_501321110 + o1 + o4, shift)
    }
}
