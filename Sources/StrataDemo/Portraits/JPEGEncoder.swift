/// A baseline JPEG encoder (JFIF, YCbCr without subsampling, the standard Huffman tables): enough
/// to make small, valid, deterministic pictures for the demo without an image library.
struct JPEGEncoder {
    var quality = 90

    /// Encodes RGB pixels (3 bytes each, row by row). Width and height must be multiples of 8,
    /// which the demo's pictures are; that spares edge padding.
    func encode(width: Int, height: Int, rgb: [UInt8]) -> [UInt8] {
        precondition(width % 8 == 0 && height % 8 == 0 && rgb.count == width * height * 3)
        let luminance = JPEGTables.scaled(JPEGTables.luminanceQuantization, quality: quality)
        let chrominance = JPEGTables.scaled(JPEGTables.chrominanceQuantization, quality: quality)
        var out: [UInt8] = [0xFF, 0xD8]
        // APP0: JFIF 1.01, no density unit, 1:1 aspect, no thumbnail.
        segment(0xE0, Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0], into: &out)
        segment(0xDB, [0] + JPEGTables.zigzag.map { UInt8(luminance[$0]) } + [1] + JPEGTables.zigzag.map { UInt8(chrominance[$0]) },
                into: &out)
        // SOF0: 8-bit samples, three components sampled 1×1; Y uses table 0, Cb and Cr table 1.
        segment(0xC0, [8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), 3,
                       1, 0x11, 0, 2, 0x11, 1, 3, 0x11, 1], into: &out)
        var tables: [UInt8] = []
        for (id, spec) in [(0x00, JPEGTables.luminanceDC), (0x10, JPEGTables.luminanceAC),
                           (0x01, JPEGTables.chrominanceDC), (0x11, JPEGTables.chrominanceAC)] {
            tables += [UInt8(id)] + spec.counts + spec.symbols
        }
        segment(0xC4, tables, into: &out)
        segment(0xDA, [3, 1, 0x00, 2, 0x11, 3, 0x11, 0, 63, 0], into: &out)
        out += scan(width: width, height: height, rgb: rgb, luminance: luminance, chrominance: chrominance)
        out += [0xFF, 0xD9]
        return out
    }

    private func segment(_ marker: UInt8, _ payload: [UInt8], into out: inout [UInt8]) {
        let length = payload.count + 2
        out += [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    /// The entropy-coded data: for each 8×8 block, left to right and top to bottom, its Y, Cb and
    /// Cr blocks transformed, quantized and Huffman-coded.
    private func scan(width: Int, height: Int, rgb: [UInt8], luminance: [Int], chrominance: [Int]) -> [UInt8] {
        let luminanceCodes = (dc: JPEGTables.luminanceDC.codes, ac: JPEGTables.luminanceAC.codes)
        let chrominanceCodes = (dc: JPEGTables.chrominanceDC.codes, ac: JPEGTables.chrominanceAC.codes)
        var bits = BitWriter()
        var previousDC = [0, 0, 0]
        var blocks = [[Int]](repeating: [Int](repeating: 0, count: 64), count: 3)
        for top in stride(from: 0, to: height, by: 8) {
            for left in stride(from: 0, to: width, by: 8) {
                for y in 0..<8 {
                    for x in 0..<8 {
                        let p = ((top + y) * width + left + x) * 3
                        let (luma, blue, red) = Self.ycbcr(Int(rgb[p]), Int(rgb[p + 1]), Int(rgb[p + 2]))
                        blocks[0][y * 8 + x] = luma - 128
                        blocks[1][y * 8 + x] = blue - 128
                        blocks[2][y * 8 + x] = red - 128
                    }
                }
                for component in 0..<3 {
                    IntegerDCT.forward(&blocks[component])
                    let table = component == 0 ? luminance : chrominance
                    let codes = component == 0 ? luminanceCodes : chrominanceCodes
                    let quantized = JPEGTables.zigzag.map { Self.quantize(blocks[component][$0], by: table[$0] * 8) }
                    encodeBlock(quantized, previousDC: &previousDC[component], dc: codes.dc, ac: codes.ac, into: &bits)
                }
            }
        }
        return bits.finish()
    }

    /// JFIF's conversion in 16-bit fixed point (integers, so the result is the same everywhere).
    static func ycbcr(_ r: Int, _ g: Int, _ b: Int) -> (Int, Int, Int) {
        let y = (19595 * r + 38470 * g + 7471 * b + 32768) >> 16
        let cb = ((-11059 * r - 21709 * g + 32768 * b + 32768) >> 16) + 128
        let cr = ((32768 * r - 27439 * g - 5329 * b + 32768) >> 16) + 128
        return (min(max(y, 0), 255), min(max(cb, 0), 255), min(max(cr, 0), 255))
    }

    /// Division rounded to nearest, symmetric around zero (as libjpeg quantizes).
    static func quantize(_ value: Int, by divisor: Int) -> Int {
        value < 0 ? -((-value + divisor / 2) / divisor) : (value + divisor / 2) / divisor
    }

    private func encodeBlock(_ coefficients: [Int], previousDC: inout Int, dc: [UInt8: (code: UInt32, length: Int)],
                             ac: [UInt8: (code: UInt32, length: Int)], into bits: inout BitWriter) {
        let difference = coefficients[0] - previousDC
        previousDC = coefficients[0]
        let dcCategory = Self.category(difference)
        bits.write(dc[UInt8(dcCategory)]!)
        bits.write(Self.amplitude(difference, category: dcCategory), length: dcCategory)
        var run = 0
        for k in 1..<64 {
            let value = coefficients[k]
            if value == 0 {
                run += 1
                continue
            }
            while run > 15 {
                bits.write(ac[0xF0]!)
                run -= 16
            }
            let category = Self.category(value)
            bits.write(ac[UInt8(run << 4 | category)]!)
            bits.write(Self.amplitude(value, category: category), length: category)
            run = 0
        }
        if run > 0 { bits.write(ac[0x00]!) }
    }

    /// The number of bits of a value's magnitude (the "SSSS" category of T.81).
    static func category(_ value: Int) -> Int {
        var magnitude = abs(value), bits = 0
        while magnitude > 0 {
            magnitude >>= 1
            bits += 1
        }
        return bits
    }

    /// A value's bits as T.81 writes them: negative values as value − 1 in `category` bits.
    static func amplitude(_ value: Int, category: Int) -> UInt32 {
        let adjusted = value < 0 ? value + (1 << category) - 1 : value
        return UInt32(adjusted & ((1 << category) - 1))
    }
}

/// Packs codes into bytes, most significant bit first, with a 0x00 stuffed after every 0xFF as
/// the entropy-coded segment requires.
struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private var buffer: UInt32 = 0
    private var count = 0

    mutating func write(_ code: (code: UInt32, length: Int)) {
        write(code.code, length: code.length)
    }

    mutating func write(_ value: UInt32, length: Int) {
        for shift in stride(from: length - 1, through: 0, by: -1) {
            buffer = buffer << 1 | (value >> UInt32(shift) & 1)
            count += 1
            if count == 8 { flushByte() }
        }
    }

    private mutating func flushByte() {
        let byte = UInt8(buffer & 0xFF)
        bytes.append(byte)
        if byte == 0xFF { bytes.append(0) }
        buffer = 0
        count = 0
    }

    /// The bytes, the last one padded with 1 bits.
    mutating func finish() -> [UInt8] {
        while count != 0 { write(1, length: 1) }
        return bytes
    }
}
