extension CarDealerRows {
    // The demo's lists (Scripts/generate-demo-data.py), shortened where it changes nothing.

    static let firstNames: [(String, Int)] = [
        ("James", 6), ("John", 6), ("Robert", 5), ("Michael", 6), ("William", 5), ("David", 6),
        ("Richard", 4), ("Joseph", 4), ("Thomas", 4), ("Charles", 3), ("Christopher", 4),
        ("Daniel", 4), ("Matthew", 4), ("Anthony", 3), ("Mark", 3), ("Donald", 2), ("Steven", 3),
        ("Paul", 3), ("Andrew", 3), ("Joshua", 3), ("Kevin", 3), ("Brian", 3), ("George", 2),
        ("Edward", 2), ("Ronald", 2), ("Timothy", 2), ("Jason", 3), ("Jeffrey", 2), ("Ryan", 3),
        ("Jacob", 2), ("Gary", 2), ("Eric", 2), ("Jonathan", 2), ("Stephen", 2), ("Larry", 1),
        ("Justin", 2), ("Scott", 2), ("Brandon", 2), ("Frank", 1), ("Gregory", 1), ("Raymond", 1),
        ("Patrick", 2), ("Sean", 2), ("Bob", 1), ("Carlos", 2), ("Luis", 2), ("José", 2),
        ("André", 1), ("Björn", 1), ("Søren", 1), ("François", 1), ("Łukasz", 1), ("Hiroshi", 1),
        ("Wei", 1), ("Rajesh", 1), ("Mohammed", 1), ("Dmitri", 1), ("Liam", 1), ("Declan", 1),
        ("Mary", 5), ("Patricia", 4), ("Jennifer", 5), ("Linda", 4), ("Elizabeth", 4),
        ("Barbara", 3), ("Susan", 3), ("Jessica", 4), ("Sarah", 4), ("Karen", 3), ("Nancy", 2),
        ("Lisa", 3), ("Betty", 1), ("Margaret", 2), ("Sandra", 2), ("Ashley", 3), ("Kimberly", 3),
        ("Emily", 3), ("Donna", 2), ("Michelle", 3), ("Dorothy", 1), ("Carol", 2), ("Amanda", 3),
        ("Melissa", 3), ("Deborah", 2), ("Stephanie", 3), ("Rebecca", 2), ("Laura", 3),
        ("Sharon", 2), ("Cynthia", 2), ("Kathleen", 2), ("Amy", 2), ("Shirley", 1), ("Angela", 2),
        ("Helen", 1), ("Anna", 2), ("Brenda", 1), ("Pamela", 1), ("Nicole", 2), ("Emma", 2),
        ("Samantha", 2), ("Katherine", 2), ("Christine", 2), ("Rachel", 2), ("Megan", 2),
        ("Maria", 2), ("Siobhan", 1), ("Zoë", 1), ("Chloë", 1), ("Renée", 1), ("Noémie", 1),
        ("Mónica", 1), ("Ingrid", 1), ("Priya", 1), ("Mei", 1), ("Yuki", 1), ("Aisha", 1),
    ]

    static let lastNames: [(String, Int)] = [
        ("Smith", 8), ("Johnson", 7), ("Williams", 6), ("Brown", 6), ("Jones", 6), ("Miller", 5),
        ("Davis", 5), ("Wilson", 4), ("Anderson", 4), ("Taylor", 4), ("Thomas", 3), ("Moore", 3),
        ("Jackson", 3), ("Martin", 3), ("Lee", 3), ("Thompson", 3), ("White", 3), ("Harris", 3),
        ("Clark", 3), ("Lewis", 3), ("Robinson", 2), ("Walker", 2), ("Young", 2), ("Allen", 2),
        ("King", 2), ("Wright", 2), ("Scott", 2), ("Hill", 2), ("Green", 2), ("Adams", 2),
        ("Baker", 2), ("Nelson", 2), ("Carter", 2), ("Mitchell", 2), ("Roberts", 2), ("Turner", 2),
        ("Phillips", 2), ("Campbell", 2), ("Parker", 2), ("Evans", 2), ("Edwards", 2),
        ("Collins", 2), ("Stewart", 2), ("Morris", 2), ("Murphy", 2), ("Cook", 2), ("Rogers", 2),
        ("Reed", 1), ("Bailey", 1), ("Cooper", 1), ("Richardson", 1), ("Cox", 1), ("Howard", 1),
        ("Ward", 1), ("Peterson", 1), ("Gray", 1), ("Watson", 1), ("Brooks", 1), ("Kelly", 1),
        ("Sanders", 1), ("Price", 1), ("Bennett", 1), ("Wood", 1), ("Barnes", 1), ("Ross", 1),
        ("Henderson", 1), ("Coleman", 1), ("Jenkins", 1), ("Perry", 1), ("Powell", 1), ("Long", 1),
        ("Patterson", 1), ("Hughes", 1), ("Flores", 1), ("Washington", 1), ("Butler", 1),
        ("Simmons", 1), ("Foster", 1), ("Bryant", 1), ("Alexander", 1), ("Russell", 1),
        ("Griffin", 1), ("Hayes", 1), ("Myers", 1), ("Ford", 1), ("Hamilton", 1), ("Graham", 1),
        ("Sullivan", 1), ("Wallace", 1), ("Samson", 1), ("Fitzgerald", 1), ("McDonald", 1),
        ("MacLeod", 1), ("O'Brien", 2), ("O'Connor", 2), ("O'Neill", 1), ("O'Malley", 1),
        ("D'Angelo", 1), ("D'Souza", 1), ("García", 2), ("Rodríguez", 2), ("Martínez", 2),
        ("Hernández", 2), ("López", 1), ("González", 1), ("Pérez", 1), ("Sánchez", 1),
        ("Ramírez", 1), ("Núñez", 1), ("Müller", 1), ("Schröder", 1), ("Weiß", 1), ("Becker", 1),
        ("Kowalski", 1), ("Nowak", 1), ("Dvořák", 1), ("Novák", 1), ("Lindström", 1),
        ("Johansson", 1), ("Nguyen", 2), ("Tran", 1), ("Kim", 2), ("Park", 1), ("Chen", 2),
        ("Wang", 1), ("Li", 1), ("Patel", 2), ("Shah", 1), ("Singh", 1), ("Tanaka", 1),
        ("Yamamoto", 1), ("Ivanov", 1), ("Rossi", 1), ("Russo", 1), ("Dubois", 1), ("Lefèvre", 1),
        ("Smith-Jones", 1), ("Van der Berg", 1), ("de la Cruz", 1),
    ]

    struct CarModel {
        var make: String
        var model: String
        var from: Int
        var to: Int
    }

    static let carModels: [CarModel] = [
        ("Ford", "Explorer", 1991, 2012), ("Ford", "Mustang", 1965, 2012), ("Ford", "F-150", 1975, 2012),
        ("Ford", "Focus", 2000, 2012), ("Ford", "Taurus", 1986, 2012), ("Ford", "Escape", 2001, 2012),
        ("Chevrolet", "Malibu", 1997, 2012), ("Chevrolet", "Impala", 2000, 2012),
        ("Chevrolet", "Silverado", 1999, 2012), ("Chevrolet", "Corvette", 1953, 2012),
        ("Toyota", "Camry", 1983, 2012), ("Toyota", "Corolla", 1968, 2012), ("Toyota", "Prius", 2001, 2012),
        ("Toyota", "RAV4", 1996, 2012), ("Honda", "Accord", 1976, 2012), ("Honda", "Civic", 1973, 2012),
        ("Honda", "CR-V", 1997, 2012), ("Honda", "Odyssey", 1995, 2012),
        ("Nissan", "Altima", 1993, 2012), ("Nissan", "Sentra", 1982, 2012), ("Nissan", "Rogue", 2008, 2012),
        ("Dodge", "Grand Caravan", 1987, 2012), ("Dodge", "Charger", 2006, 2012),
        ("Jeep", "Wrangler", 1987, 2012), ("Jeep", "Grand Cherokee", 1993, 2012),
        ("Volkswagen", "Jetta", 1980, 2012), ("Volkswagen", "Golf", 1985, 2012),
        ("Subaru", "Outback", 1995, 2012), ("Subaru", "Forester", 1998, 2012),
        ("Hyundai", "Sonata", 1989, 2012), ("Hyundai", "Elantra", 1992, 2012),
        ("Kia", "Optima", 2001, 2012), ("Kia", "Soul", 2010, 2012),
        ("BMW", "3 Series", 1977, 2012), ("BMW", "X5", 2000, 2012),
        ("Mercedes-Benz", "C-Class", 1994, 2012), ("Mercedes-Benz", "E-Class", 1994, 2012),
        ("Audi", "A4", 1996, 2012), ("Mazda", "Mazda3", 2004, 2012), ("Mazda", "MX-5 Miata", 1990, 2012),
        ("GMC", "Sierra", 1999, 2012), ("Chrysler", "Town & Country", 1990, 2012),
        ("Buick", "LaCrosse", 2005, 2012), ("Cadillac", "Escalade", 1999, 2012),
        ("Lexus", "RX 350", 2007, 2012), ("Acura", "MDX", 2001, 2012), ("Volvo", "XC90", 2003, 2012),
        ("Pontiac", "G6", 2005, 2010), ("Saturn", "Ion", 2003, 2007), ("Mercury", "Grand Marquis", 1983, 2011),
        ("Tesla", "Roadster", 2008, 2012), ("Mini", "Cooper", 2002, 2012),
    ].map { CarModel(make: $0.0, model: $0.1, from: $0.2, to: $0.3) }

    static let makeWeight: [String: Int] = [
        "Ford": 5, "Chevrolet": 5, "Toyota": 5, "Honda": 5, "Nissan": 4, "Dodge": 3, "Jeep": 3,
        "Volkswagen": 2, "Subaru": 2, "Hyundai": 2, "Kia": 2, "BMW": 2, "Mercedes-Benz": 2, "Audi": 1,
        "Mazda": 2, "GMC": 2, "Chrysler": 2, "Buick": 1, "Cadillac": 1, "Lexus": 1, "Acura": 1,
        "Volvo": 1, "Pontiac": 1, "Saturn": 1, "Mercury": 1, "Tesla": 1, "Mini": 1,
    ]

    struct MaintenanceKind {
        var description: String
        var cents: Int?
        var frequency: Int
        var varies: Bool
    }

    static let maintenanceKinds: [MaintenanceKind] = [
        ("Oil change", 2999, 30, false), ("Synthetic oil change", 5999, 12, false),
        ("Tire rotation", 1999, 16, false), ("Wheel alignment", 7999, 6, false),
        ("Brake pads - front", 14999, 7, true), ("Brake pads - rear", 13999, 5, true),
        ("Brake rotor replacement", 24999, 3, true), ("Brake fluid flush", 8999, 3, false),
        ("Transmission fluid service", 12999, 4, true), ("Coolant flush", 9999, 4, false),
        ("Battery replacement", 11999, 4, true), ("Engine air filter replacement", 2499, 8, false),
        ("Cabin air filter replacement", 3499, 5, false), ("Spark plug replacement", 11999, 3, true),
        ("Timing belt replacement", 49999, 1, true), ("Serpentine belt replacement", 8999, 2, true),
        ("Wiper blade replacement", 2999, 5, false), ("A/C recharge", 12999, 2, false),
        ("Tire replacement (set of 4)", 49999, 3, true), ("State safety inspection", 3500, 6, false),
        ("Check engine light diagnostic", 8999, 3, false), ("Warranty repair", nil, 2, true),
    ].map { MaintenanceKind(description: $0.0, cents: $0.1, frequency: $0.2, varies: $0.3) }

    static let notes = [
        "Customer declined cabin air filter.", "Recommended rear brakes at next visit.", "Used OEM parts.",
        "Customer supplied own parts.", "Topped off washer fluid at no charge.",
        "Tires at 4/32\", recommend replacement soon.", "Noise from front left wheel, could not reproduce.",
        "Coupon applied: 10% off.", "Waited in lobby.", "Loaner car provided.",
        "Next oil change due in 3,000 miles.", "Reset maintenance reminder.",
    ]
}
