import StrataCore

/// Which end of a relationship holds the foreign key columns.
enum LinkSides {
    /// True when the entity the navigation starts from holds the foreign key (it is the association's
    /// dependent end), so linking changes its own columns; false when the related entities hold it.
    static func holdsForeignKey(_ navigation: NavigationProperty, model: ServiceModel) -> Bool {
        guard let association = model.associations.first(where: { "\(model.namespace).\($0.name)" == navigation.relationship || $0.name == navigation.relationship }) else {
            return navigation.multiplicity != .many
        }
        return navigation.fromRole == association.dependent.role
    }
}
