import StrataCore

/// One page of a read with `$apply`: the aggregated rows, whole (a page is bounded by the page size),
/// with what the response needs around them.
package struct AggregatedRows: Sendable {
    /// The entity set the rows were aggregated from, which the context URL names.
    package var set: EntitySet
    /// The columns, in the order of each row's values.
    package var columns: [ApplyColumn]
    package var rows: [[ODataValue]]
    /// `$select`: the positions of the columns to write; nil for all.
    package var written: [Int]?
    /// `$count=true`: the number of rows the transformations produced.
    package var count: Int?
    /// Where the next page starts, when there is one: the offset into the result and the rows of
    /// `$top` still wanted.
    package var next: (offset: Int, remainingTop: Int?)?
}
