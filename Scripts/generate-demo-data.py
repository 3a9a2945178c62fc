#!/usr/bin/env python3
"""Write the demo services' data.sql files.

    python3 Scripts/generate-demo-data.py            # writes Sources/StrataDemo/SQL/*/data.sql
    python3 Scripts/generate-demo-data.py --out DIR  # writes DIR/<service>/data.sql instead

The output is deterministic: every random choice comes from a small SplitMix64 generator with a
fixed seed per service (not Python's `random`, whose algorithms may change between versions), so
the same script writes byte-identical files on every run and every machine.

The data reproduces the samples' data (the CarDealer, SpeakEasy and hockey samples):

* cardealer (the CarDealer sample): Person 1 Bob Samson, Car 2 Ford Explorer, Car 5 Ford Mustang, PersonCar 1
  and 2 with the exact timestamps of the sample's JSON, then a few hundred further people, cars,
  ownerships and maintenance records so that paging and filtering mean something.
* speakeasy (the SpeakEasy sample): the eight speakers of the sample's Program.cs, its eight event locations, and
  100 events generated the way Program.cs generates them.
* hockey (the hockey sample): a 30-team league with fictional players and real product lines from the
  brands the assignment names.

Each data.sql is portable SQL that runs unchanged on SQLite and PostgreSQL: multi-row
INSERT ... VALUES statements of at most 200 rows, in foreign-key order, with explicit ids (the
server resets identity sequences after loading). Schemas are hand-written next to them.
"""

import argparse
import datetime
import os
import sys

MASK64 = (1 << 64) - 1
ROWS_PER_INSERT = 200


# ---------------------------------------------------------------------------------------------
# Deterministic randomness
# ---------------------------------------------------------------------------------------------

class Rng:
    """SplitMix64. Small, well known, and identical on every Python version."""

    def __init__(self, seed):
        self.state = seed & MASK64

    def next64(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, n):
        """Uniform integer in [0, n)."""
        if n <= 0:
            raise ValueError("below(n) needs n > 0")
        limit = ((1 << 64) // n) * n
        while True:
            x = self.next64()
            if x < limit:
                return x % n

    def randint(self, lo, hi):
        """Uniform integer in [lo, hi]."""
        return lo + self.below(hi - lo + 1)

    def random(self):
        """Uniform float in [0, 1) with 53 bits."""
        return (self.next64() >> 11) / float(1 << 53)

    def chance(self, p):
        return self.random() < p

    def choice(self, items):
        return items[self.below(len(items))]

    def weighted(self, items, weights):
        total = sum(weights)
        x = self.below(total)
        for item, w in zip(items, weights):
            if x < w:
                return item
            x -= w
        raise AssertionError("unreachable")

    def shuffle(self, items):
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def guid(self):
        """A version-4 style GUID, lowercase, as .NET's Guid.ToString() prints it."""
        hi, lo = self.next64(), self.next64()
        hi = (hi & ~(0xF << 12)) | (0x4 << 12)            # version 4
        lo = (lo & ~(0x3 << 62)) | (0x2 << 62)            # RFC 4122 variant
        h = "%016x%016x" % (hi, lo)
        return "%s-%s-%s-%s-%s" % (h[0:8], h[8:12], h[12:16], h[16:20], h[20:32])


# ---------------------------------------------------------------------------------------------
# Time: all values are UTC, kept as integer milliseconds since the Unix epoch
# ---------------------------------------------------------------------------------------------

EPOCH = datetime.datetime(1970, 1, 1)
SECOND = 1000
MINUTE = 60 * SECOND
HOUR = 60 * MINUTE
DAY = 24 * HOUR


def ms(text):
    """'YYYY-MM-DD HH:MM:SS.SSS' (or a prefix of it) -> milliseconds since the epoch."""
    for fmt in ("%Y-%m-%d %H:%M:%S.%f", "%Y-%m-%d %H:%M:%S", "%Y-%m-%d"):
        try:
            dt = datetime.datetime.strptime(text, fmt)
            break
        except ValueError:
            continue
    else:
        raise ValueError("bad timestamp " + text)
    delta = dt - EPOCH
    return (delta.days * 86400 + delta.seconds) * 1000 + delta.microseconds // 1000


def fmt_ts(t):
    dt = EPOCH + datetime.timedelta(milliseconds=t)
    return "%04d-%02d-%02d %02d:%02d:%02d.%03d" % (
        dt.year, dt.month, dt.day, dt.hour, dt.minute, dt.second, dt.microsecond // 1000)


def day_start(t):
    return t - t % DAY


def year_of(t):
    return (EPOCH + datetime.timedelta(milliseconds=t)).year


class Timestamp:
    """Marks an int as a timestamp for the SQL writer."""
    __slots__ = ("ms",)

    def __init__(self, t):
        self.ms = t


class Decimal2:
    """Marks an int number of cents as a DECIMAL(p,2) for the SQL writer."""
    __slots__ = ("cents",)

    def __init__(self, cents):
        self.cents = cents


# ---------------------------------------------------------------------------------------------
# SQL writing
# ---------------------------------------------------------------------------------------------

def sql_literal(v):
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, Timestamp):
        return "'" + fmt_ts(v.ms) + "'"
    if isinstance(v, Decimal2):
        sign = "-" if v.cents < 0 else ""
        c = abs(v.cents)
        return "%s%d.%02d" % (sign, c // 100, c % 100)
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    raise TypeError("no SQL literal for %r" % (v,))


class SqlFile:
    def __init__(self, service, description):
        self.parts = [
            "-- Demo data for the %s service: %s\n" % (service, description),
            "-- Generated by Scripts/generate-demo-data.py. Do not edit by hand: change the script\n",
            "-- and run it again. Portable SQL, applied after schema.sql on SQLite and on\n",
            "-- PostgreSQL alike. Explicit ids. The server resets identity sequences afterwards.\n",
        ]
        self.counts = []

    def insert(self, table, columns, rows):
        self.counts.append((table, len(rows)))
        head = 'INSERT INTO "%s" (%s) VALUES\n' % (table, ", ".join('"%s"' % c for c in columns))
        for start in range(0, len(rows), ROWS_PER_INSERT):
            chunk = rows[start:start + ROWS_PER_INSERT]
            lines = []
            for row in chunk:
                if len(row) != len(columns):
                    raise ValueError("row width mismatch in %s: %r" % (table, row))
                lines.append("(" + ", ".join(sql_literal(v) for v in row) + ")")
            self.parts.append("\n" + head + ",\n".join(lines) + ";\n")

    def text(self):
        return "".join(self.parts)


# =============================================================================================
# cardealer (the CarDealer sample)
# =============================================================================================

FIRST_NAMES = [
    # (name, weight): common names more often
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

LAST_NAMES = [
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

# (make, model, first model year, last model year) -- model years as sold in the US.
CAR_MODELS = [
    ("Ford", "Explorer", 1991, 2012), ("Ford", "Mustang", 1965, 2012), ("Ford", "F-150", 1975, 2012),
    ("Ford", "Focus", 2000, 2012), ("Ford", "Taurus", 1986, 2012), ("Ford", "Escape", 2001, 2012),
    ("Ford", "Fusion", 2006, 2012), ("Ford", "Ranger", 1983, 2011), ("Ford", "Expedition", 1997, 2012),
    ("Chevrolet", "Malibu", 1997, 2012), ("Chevrolet", "Impala", 2000, 2012),
    ("Chevrolet", "Silverado", 1999, 2012), ("Chevrolet", "Tahoe", 1995, 2012),
    ("Chevrolet", "Cobalt", 2005, 2010), ("Chevrolet", "Equinox", 2005, 2012),
    ("Chevrolet", "Cavalier", 1982, 2005), ("Chevrolet", "Corvette", 1953, 2012),
    ("Toyota", "Camry", 1983, 2012), ("Toyota", "Corolla", 1968, 2012), ("Toyota", "Prius", 2001, 2012),
    ("Toyota", "RAV4", 1996, 2012), ("Toyota", "Tacoma", 1995, 2012), ("Toyota", "Highlander", 2001, 2012),
    ("Toyota", "Sienna", 1998, 2012), ("Toyota", "4Runner", 1984, 2012),
    ("Honda", "Accord", 1976, 2012), ("Honda", "Civic", 1973, 2012), ("Honda", "CR-V", 1997, 2012),
    ("Honda", "Odyssey", 1995, 2012), ("Honda", "Pilot", 2003, 2012), ("Honda", "Fit", 2007, 2012),
    ("Nissan", "Altima", 1993, 2012), ("Nissan", "Sentra", 1982, 2012), ("Nissan", "Maxima", 1982, 2012),
    ("Nissan", "Pathfinder", 1987, 2012), ("Nissan", "Rogue", 2008, 2012), ("Nissan", "Frontier", 1998, 2012),
    ("Dodge", "Grand Caravan", 1987, 2012), ("Dodge", "Charger", 2006, 2012), ("Dodge", "Durango", 1998, 2012),
    ("Dodge", "Ram 1500", 1994, 2010), ("Dodge", "Neon", 1995, 2005),
    ("Jeep", "Wrangler", 1987, 2012), ("Jeep", "Grand Cherokee", 1993, 2012), ("Jeep", "Liberty", 2002, 2012),
    ("Jeep", "Cherokee", 1984, 2001),
    ("Volkswagen", "Jetta", 1980, 2012), ("Volkswagen", "Passat", 1990, 2012), ("Volkswagen", "Golf", 1985, 2012),
    ("Volkswagen", "Beetle", 1998, 2012),
    ("Subaru", "Outback", 1995, 2012), ("Subaru", "Forester", 1998, 2012), ("Subaru", "Impreza", 1993, 2012),
    ("Hyundai", "Sonata", 1989, 2012), ("Hyundai", "Elantra", 1992, 2012), ("Hyundai", "Santa Fe", 2001, 2012),
    ("Kia", "Optima", 2001, 2012), ("Kia", "Sorento", 2003, 2012), ("Kia", "Soul", 2010, 2012),
    ("BMW", "3 Series", 1977, 2012), ("BMW", "5 Series", 1975, 2012), ("BMW", "X5", 2000, 2012),
    ("Mercedes-Benz", "C-Class", 1994, 2012), ("Mercedes-Benz", "E-Class", 1994, 2012),
    ("Audi", "A4", 1996, 2012), ("Audi", "A6", 1995, 2012),
    ("Mazda", "Mazda3", 2004, 2012), ("Mazda", "Mazda6", 2003, 2012), ("Mazda", "MX-5 Miata", 1990, 2012),
    ("Mazda", "CX-7", 2007, 2012),
    ("GMC", "Sierra", 1999, 2012), ("GMC", "Yukon", 1992, 2012),
    ("Chrysler", "300", 2005, 2012), ("Chrysler", "Town & Country", 1990, 2012),
    ("Buick", "LaCrosse", 2005, 2012), ("Buick", "Century", 1973, 2005),
    ("Cadillac", "Escalade", 1999, 2012), ("Cadillac", "CTS", 2003, 2012),
    ("Lexus", "RX 350", 2007, 2012), ("Lexus", "ES 350", 2007, 2012),
    ("Acura", "TL", 1996, 2012), ("Acura", "MDX", 2001, 2012),
    ("Volvo", "XC90", 2003, 2012), ("Volvo", "S60", 2001, 2012),
    ("Pontiac", "Grand Prix", 1962, 2008), ("Pontiac", "G6", 2005, 2010),
    ("Saturn", "Ion", 2003, 2007), ("Mercury", "Grand Marquis", 1983, 2011),
    ("Tesla", "Roadster", 2008, 2012), ("Mini", "Cooper", 2002, 2012),
]
# Popular models more often (weights by make).
MAKE_WEIGHT = {
    "Ford": 5, "Chevrolet": 5, "Toyota": 5, "Honda": 5, "Nissan": 4, "Dodge": 3, "Jeep": 3,
    "Volkswagen": 2, "Subaru": 2, "Hyundai": 2, "Kia": 2, "BMW": 2, "Mercedes-Benz": 2, "Audi": 1,
    "Mazda": 2, "GMC": 2, "Chrysler": 2, "Buick": 1, "Cadillac": 1, "Lexus": 1, "Acura": 1,
    "Volvo": 1, "Pontiac": 1, "Saturn": 1, "Mercury": 1, "Tesla": 1, "Mini": 1,
}

# (description, price in cents or None, relative frequency, cost varies with the car)
MAINTENANCE_KINDS = [
    ("Oil change", 2999, 30, False),
    ("Synthetic oil change", 5999, 12, False),
    ("Tire rotation", 1999, 16, False),
    ("Wheel alignment", 7999, 6, False),
    ("Brake pads - front", 14999, 7, True),
    ("Brake pads - rear", 13999, 5, True),
    ("Brake rotor replacement", 24999, 3, True),
    ("Brake fluid flush", 8999, 3, False),
    ("Transmission fluid service", 12999, 4, True),
    ("Coolant flush", 9999, 4, False),
    ("Battery replacement", 11999, 4, True),
    ("Engine air filter replacement", 2499, 8, False),
    ("Cabin air filter replacement", 3499, 5, False),
    ("Spark plug replacement", 11999, 3, True),
    ("Timing belt replacement", 49999, 1, True),
    ("Serpentine belt replacement", 8999, 2, True),
    ("Wiper blade replacement", 2999, 5, False),
    ("A/C recharge", 12999, 2, False),
    ("Tire replacement (set of 4)", 49999, 3, True),
    ("State safety inspection", 3500, 6, False),
    ("Check engine light diagnostic", 8999, 3, False),
    ("Warranty repair", None, 2, True),
]

MAINTENANCE_NOTES = [
    "Customer declined cabin air filter.",
    "Recommended rear brakes at next visit.",
    "Used OEM parts.",
    "Customer supplied own parts.",
    "Topped off washer fluid at no charge.",
    "Tires at 4/32\", recommend replacement soon.",
    "Check engine light was on: loose gas cap, tightened and cleared code.",
    "Noise from front left wheel, could not reproduce.",
    "Customer's extended warranty applied.",
    "Coupon applied: 10% off.",
    "Waited in lobby.",
    "Loaner car provided.",
    "Next oil change due in 3,000 miles.",
    "Minor oil leak at valve cover gasket, monitor.",
    "Rust on rear rotors, resurfaced.",
    "Reset maintenance reminder.",
    "Vehicle dropped off after hours.",
    "Battery tested weak (380 CCA), replaced.",
]


def gen_cardealer():
    rng = Rng(0x000CA4DEA1E4)  # the CarDealer sample's generator
    out = SqlFile("cardealer", "people, their cars, and maintenance (the CarDealer sample).")

    window_end = ms("2012-12-31 23:59:59.999")

    # --- Maintenance catalogue: set up just before the first person was entered -------------
    maint_rows = []
    t = ms("2009-10-31 16:41:07.213")
    for i, (desc, price, _, _) in enumerate(MAINTENANCE_KINDS, start=1):
        t += rng.randint(4 * SECOND, 40 * SECOND)
        maint_rows.append((i, desc, None if price is None else Decimal2(price), Timestamp(t)))
    maint_weights = [k[2] for k in MAINTENANCE_KINDS]

    # --- People -----------------------------------------------------------------------------
    n_people = 300
    first_items = [n for n, _ in FIRST_NAMES]
    first_weights = [w for _, w in FIRST_NAMES]
    last_items = [n for n, _ in LAST_NAMES]
    last_weights = [w for _, w in LAST_NAMES]

    people = [(1, "Bob", "Samson", "543872934", ms("2009-10-31 17:08:28.440"))]
    used_names = {("Bob", "Samson")}
    used_ssn = {"543872934"}
    # createDate: increasing with the id, from just after Bob to mid 2012
    lo, hi = ms("2009-11-01 09:12:00.000"), ms("2012-06-30 22:00:00.000")
    dates = sorted(lo + rng.below(hi - lo) for _ in range(n_people - 1))
    # a few names that must be there, for filters and quoting: apostrophes and non-ASCII
    must_have = [("Zoë", "Müller"), ("Siobhan", "O'Brien"), ("Patrick", "O'Brien"),
                 ("Renée", "D'Angelo"), ("José", "Núñez"), ("Björn", "Lindström"),
                 ("Łukasz", "Dvořák"), ("Chloë", "O'Connor")]
    preset = {}
    candidates = list(range(2, n_people + 1))
    rng.shuffle(candidates)
    for pid, name in zip(candidates, must_have):
        preset[pid] = name
        used_names.add(name)
    for pid, created in zip(range(2, n_people + 1), dates):
        while pid not in preset:
            first = rng.weighted(first_items, first_weights)
            last = rng.weighted(last_items, last_weights)
            if (first, last) not in used_names:
                break
        if pid in preset:
            first, last = preset[pid]
        used_names.add((first, last))
        ssn = None
        if not rng.chance(0.1):
            while True:
                area = rng.randint(1, 899)
                if area == 666:
                    continue
                ssn = "%03d%02d%04d" % (area, rng.randint(1, 99), rng.randint(1, 9999))
                if ssn not in used_ssn:
                    break
            used_ssn.add(ssn)
        people.append((pid, first, last, ssn, created))

    # --- Cars -------------------------------------------------------------------------------
    n_cars = 400
    model_weights = [MAKE_WEIGHT[m[0]] for m in CAR_MODELS]
    cars = {}  # id -> (make, model, manufactureDate or None, createStamp)
    cars[2] = ("Ford", "Explorer", ms("2004-10-31 17:08:28.440"), ms("2009-10-31 17:09:00.840"))
    cars[5] = ("Ford", "Mustang", ms("2004-02-02 00:00:00.000"), ms("2009-11-01 21:06:03.660"))
    stamps = {
        1: ms("2009-10-31 17:02:51.337"),
        3: ms("2009-11-01 10:44:19.052"),
        4: ms("2009-11-01 15:27:46.918"),
    }
    lo, hi = ms("2009-11-02 08:00:00.000"), ms("2012-09-28 22:00:00.000")
    for cid, stamp in zip(range(6, n_cars + 1), sorted(lo + rng.below(hi - lo) for _ in range(n_cars - 5))):
        stamps[cid] = stamp
    for cid in range(1, n_cars + 1):
        if cid in cars:
            continue
        stamp = stamps[cid]
        cyear = year_of(stamp)
        while True:
            make, model, first_year, last_year = rng.weighted(CAR_MODELS, model_weights)
            # model year: mostly the last ten years, newer ones more often
            age = min(rng.below(13), rng.below(13))
            myear = cyear + 1 - age
            if not first_year <= myear <= last_year:
                continue
            # built between August of the year before the model year and July of the model
            # year, and at least three weeks before the dealer first saw it
            built_lo = ms("%04d-08-01" % (myear - 1))
            built_hi = min(ms("%04d-07-31" % myear), stamp - 21 * DAY)
            if built_hi > built_lo:
                break
        manufactured = day_start(built_lo + rng.below(built_hi - built_lo))
        if rng.chance(0.04):
            manufactured = None
        cars[cid] = (make, model, manufactured, stamp)

    # --- Ownerships (PersonCar) ---------------------------------------------------------------
    # Bob (person 1) has exactly cars 2 and 5, and nobody else ever owned them.
    pc_seed = [
        (1, 1, 2, ms("2009-11-01 19:30:13.990")),
        (2, 1, 5, ms("2009-11-01 21:07:08.720")),
    ]
    floor = pc_seed[-1][3]
    free_cars = [c for c in range(1, n_cars + 1) if c not in (2, 5)]
    rng.shuffle(free_cars)
    # about 8% of cars stay on the lot (no owner); the rest get one or two owners
    owned_cars = free_cars[: int(len(free_cars) * 0.92)]
    owner_slots = []
    for c in owned_cars:
        owner_slots.append(c)
        if rng.chance(0.22):
            owner_slots.append(c)
    rng.shuffle(owner_slots)

    # how many cars each other person has: some none, most one or two, a few several
    counts = {}
    for pid in range(2, n_people + 1):
        counts[pid] = rng.weighted([0, 1, 2, 3, 4, 5], [13, 43, 27, 10, 5, 2])
    links = []  # (personID, carID)
    slot = 0
    # hand out cars in random person order, so that running short of cars hits nobody in particular
    order = list(range(2, n_people + 1))
    rng.shuffle(order)
    for pid in order:
        mine = set()
        for _ in range(counts[pid]):
            if slot >= len(owner_slots):
                break
            c = owner_slots[slot]
            if c in mine:
                # swap in the next car that this person does not have yet
                for k in range(slot + 1, len(owner_slots)):
                    if owner_slots[k] not in mine:
                        owner_slots[slot], owner_slots[k] = owner_slots[k], owner_slots[slot]
                        break
                c = owner_slots[slot]
                if c in mine:
                    break
            slot += 1
            mine.add(c)
            links.append((pid, c))

    # times: after both the person and the car exist; a car's second owner comes later
    person_created = {p[0]: p[4] for p in people}
    by_car = {}
    for pid, c in links:
        by_car.setdefault(c, []).append(pid)
    timed = []
    for c in sorted(by_car):
        owners = by_car[c]
        base = max(cars[c][3], floor)
        bases = sorted((max(base, person_created[p]), p) for p in owners)
        prev = None
        for b, p in bases:
            start = b if prev is None else max(b, prev + 45 * DAY)
            if start > window_end - 7 * DAY:
                continue  # too late for this owner: drop the link
            span = min(75 * DAY, window_end - start - DAY)
            t = start + HOUR + rng.below(span)
            timed.append((t, p, c))
            prev = t
    timed.sort()
    personcars = list(pc_seed)
    for i, (t, p, c) in enumerate(timed, start=3):
        personcars.append((i, p, c, t))

    # --- Maintenance records (PersonCarMaintenance) --------------------------------------------
    # An ownership lasts until the car's next owner takes it, or until the end of 2012.
    owner_end = {}
    per_car = {}
    for pc in personcars:
        per_car.setdefault(pc[2], []).append(pc)
    for c, pcs in per_car.items():
        pcs.sort(key=lambda r: r[3])
        for a, b in zip(pcs, pcs[1:] + [None]):
            owner_end[a[0]] = (b[3] - DAY) if b else window_end
    # miles per year per car
    rate = {c: rng.randint(7000, 17000) for c in cars}

    n_records = 900
    # Bob gets a handful of records on each of his cars; the rest are spread by time owned
    assignments = [1] * 6 + [2] * 5
    pc_ids = [pc[0] for pc in personcars]
    weights = []
    for pc in personcars:
        days = max(1, (owner_end[pc[0]] - pc[3]) // DAY)
        weights.append(int(days))
    while len(assignments) < n_records:
        assignments.append(rng.weighted(pc_ids, weights))
    pc_by_id = {pc[0]: pc for pc in personcars}

    records = []
    for pcid in assignments:
        _, pid, c, start = pc_by_id[pcid]
        end = owner_end[pcid]
        day = day_start(start + DAY + rng.below(max(DAY, end - start - DAY)))
        # service happens in US business hours (13:00-23:00 UTC)
        when = day + 13 * HOUR + rng.below(10 * HOUR)
        if when <= start:
            when = start + HOUR + rng.below(HOUR)
        if when > window_end:
            when = window_end - rng.below(6 * HOUR)
        kind = rng.weighted(list(range(1, len(MAINTENANCE_KINDS) + 1)), maint_weights)
        records.append((when, pcid, c, kind))
    records.sort()

    pcm_rows = []
    for i, (when, pcid, c, kind) in enumerate(records, start=1):
        desc, price, _, varies = MAINTENANCE_KINDS[kind - 1]
        make, model, manufactured, car_stamp = cars[c]
        built = manufactured if manufactured is not None else car_stamp - 3 * 365 * DAY
        mileage = 12 + (rate[c] * max(0, when - built)) // (365 * DAY)
        if rng.chance(0.03):
            mileage = None  # odometer not recorded
        notes = None
        if kind == len(MAINTENANCE_KINDS):  # warranty repair
            cost = Decimal2(0)
            notes = rng.choice([
                "Replaced window regulator under factory warranty.",
                "Recall campaign: ignition switch replaced.",
                "Warranty: replaced leaking water pump.",
                "Warranty: replaced faulty O2 sensor.",
                "Recall campaign: reflashed transmission control module.",
            ])
        else:
            if varies:
                cents = price + price * rng.randint(-10, 35) // 100
            else:
                cents = price
            if rng.chance(0.08):
                cents = cents * 9 // 10
                if rng.chance(0.5):
                    notes = "Coupon applied: 10% off."
            cost = Decimal2(cents)
            if rng.chance(0.02):
                cost = None  # not billed yet
            if notes is None and rng.chance(0.18):
                notes = rng.choice(MAINTENANCE_NOTES)
        created = when + 5 * MINUTE + rng.below(3 * HOUR)
        pcm_rows.append((i, pcid, kind, Timestamp(when), mileage, cost, notes, Timestamp(created)))

    out.insert("Person", ["personID", "firstName", "lastName", "ssn", "createDate"],
               [(p[0], p[1], p[2], p[3], Timestamp(p[4])) for p in people])
    out.insert("Car", ["carID", "make", "model", "manufactureDate", "createStamp"],
               [(cid, m[0], m[1], None if m[2] is None else Timestamp(m[2]), Timestamp(m[3]))
                for cid, m in sorted(cars.items())])
    out.insert("PersonCar", ["personCarID", "personID", "carID", "createStamp"],
               [(pc[0], pc[1], pc[2], Timestamp(pc[3])) for pc in personcars])
    out.insert("Maintenance", ["maintenanceID", "description", "price", "createStamp"], maint_rows)
    out.insert("PersonCarMaintenance",
               ["personCarMaintenanceID", "personCarID", "maintenanceID", "serviceDate", "mileage",
                "cost", "notes", "createStamp"], pcm_rows)
    return out


# =============================================================================================
# speakeasy (the SpeakEasy sample)
# =============================================================================================

# From the sample's Program.cs, in its order.
SPEAKER_NAMES = ["Bart Tubalinal", "Bert Johnson", "Travis Nielsen", "Matt Morse", "Mo Omar",
                 "Darya Orlova", "Callie Jones", "Ela Gardner"]
SPEAKER_TITLES = ["Solutions Architect", "Solutions Architect", "Principal Consultant",
                  "Practice Manager", "Principal Consultant", "Consultant", "Consultant", "Consultant"]
SPEAKER_IMGS = ["BTubalinal.jpg", "BJohnson.jpg", "TNielsen.jpg", "MMorse.jpg", "MOmar.jpg",
                "DOrlova.jpg", "CJones.jpg", "EGardner.jpg"]
EVENT_NAMES = ["Mobile Mondays", "iOS Meetup", "Windows Phone Meetup", "Android Meetup",
               "HTML5 Meetup", "SharePoint Saturdays"]
EVENT_LOCATIONS = ["Chicago, IL", "Milwaukee, WI", "Madison, WI", "Boston, MA", "Washington, DC",
                   "Los Angeles, CA", "Las Vegas, NV", "New York City, NY"]
# The sample's defaultDescription. Program.cs wraps it over several source lines inside a verbatim
# string; the wrapping is layout, not content, so it is kept here as one paragraph.
LOREM = (
    "Lorem ipsum dolor sit amet, consectetur adipiscing elit. "
    "In commodo fermentum adipiscing. Maecenas id dolor velit, sit amet commodo ipsum. Cras lacus dui, bibendum "
    "et commodo at, scelerisque ac enim. Mauris nec purus ante. Vestibulum ante ipsum primis in faucibus orci luctus "
    "et ultrices posuere cubilia Curae; Praesent ut lobortis lorem. Nullam tempor, erat dignissim sodales blandit, "
    "turpis velit fringilla augue, posuere ultricies augue augue quis quam. Quisque sed felis augue. Nam sit amet "
    "enim tortor. Aenean ut fringilla leo. Phasellus tincidunt turpis ut diam dictum id ullamcorper nunc faucibus. "
    "Nunc semper dapibus orci sit amet suscipit. Maecenas viverra est volutpat lectus lacinia suscipit. Nullam "
    "sapien elit, fermentum et pretium vitae, sodales quis eros. Ut et nulla urna. Nunc congue viverra nisi, eget "
    "porta est lobortis non. Cras in turpis urna, sed porta ipsum. In suscipit purus a nibh facilisis eget "
    "pharetra odio rhoncus. Morbi faucibus blandit mattis."
)
# The blob container "speakers", as a URL relative to the server.
IMG_BASE_URL = "/blobs/speakers"


def slug(text):
    out = []
    for ch in text.lower():
        if ch.isalnum():
            out.append(ch)
        elif out and out[-1] != "-":
            out.append("-")
    return "".join(out).strip("-")


def gen_speakeasy():
    rng = Rng(0x5EA4EA5E001)  # the SpeakEasy sample's generator
    out = SqlFile("speakeasy", "speakers, events and locations (the SpeakEasy sample).")

    # When the sample's setup program ran: DateTime.Now at that moment.
    now = ms("2012-03-19 14:27:53.317")

    speakers = []
    t = now + 412
    for name, title, img in zip(SPEAKER_NAMES, SPEAKER_TITLES, SPEAKER_IMGS):
        bio = "%s is a %s in the %s" % (name, title, LOREM)
        speakers.append(("speakers", rng.guid(), Timestamp(t), name, title, bio,
                         "%s/%s" % (IMG_BASE_URL, img)))
        t += rng.randint(1, 9)

    # Program.cs: 100 times pick a name, a location and a speaker at random and a date between
    # now and 2012-12-31, skipping exact duplicates. (Its Random.Next(0, Length - 1) never picks
    # the last element of each array; here every name, location and speaker can be picked.)
    max_date = ms("2012-12-31 00:00:00.000")
    events = []
    seen = set()
    t = now + 2417
    while len(events) < 100:
        name = rng.choice(EVENT_NAMES)
        location = rng.choice(EVENT_LOCATIONS)
        speaker = rng.choice(speakers)
        date = now + int((max_date - now) * rng.random())
        key = (name, location, speaker[1], date)
        if key in seen:
            continue
        seen.add(key)
        t += rng.randint(0, 3)
        events.append(("Events", rng.guid(), Timestamp(t), Timestamp(date), name, location, LOREM,
                       speaker[1], speaker[3]))

    locations = []
    t = now + 3120
    for loc in EVENT_LOCATIONS:
        city, state = [s.strip() for s in loc.rsplit(",", 1)]
        t += rng.randint(1, 9)
        locations.append(("locations", slug(loc), Timestamp(t), city, state))

    out.insert("Speakers", ["PartitionKey", "RowKey", "Timestamp", "Name", "Title", "Bio", "ImageUrl"],
               speakers)
    out.insert("Events", ["PartitionKey", "RowKey", "Timestamp", "EventDate", "EventName",
                          "EventLocation", "EventDescription", "SpeakerKey", "SpeakerName"], events)
    out.insert("Locations", ["PartitionKey", "RowKey", "Timestamp", "City", "State"], locations)
    return out


# =============================================================================================
# hockey (the hockey sample)
# =============================================================================================

# The 30 NHL clubs of the 2013-14 season (the assignment is from March 2014):
# (name, home city, conference, division, first season of the franchise)
TEAMS = [
    ("Boston Bruins", "Boston", "Eastern", "Atlantic", 1924),
    ("Buffalo Sabres", "Buffalo", "Eastern", "Atlantic", 1970),
    ("Detroit Red Wings", "Detroit", "Eastern", "Atlantic", 1926),
    ("Florida Panthers", "Sunrise", "Eastern", "Atlantic", 1993),
    ("Montreal Canadiens", "Montreal", "Eastern", "Atlantic", 1909),
    ("Ottawa Senators", "Ottawa", "Eastern", "Atlantic", 1992),
    ("Tampa Bay Lightning", "Tampa", "Eastern", "Atlantic", 1992),
    ("Toronto Maple Leafs", "Toronto", "Eastern", "Atlantic", 1917),
    ("Carolina Hurricanes", "Raleigh", "Eastern", "Metropolitan", 1972),
    ("Columbus Blue Jackets", "Columbus", "Eastern", "Metropolitan", 2000),
    ("New Jersey Devils", "Newark", "Eastern", "Metropolitan", 1974),
    ("New York Islanders", "Uniondale", "Eastern", "Metropolitan", 1972),
    ("New York Rangers", "New York", "Eastern", "Metropolitan", 1926),
    ("Philadelphia Flyers", "Philadelphia", "Eastern", "Metropolitan", 1967),
    ("Pittsburgh Penguins", "Pittsburgh", "Eastern", "Metropolitan", 1967),
    ("Washington Capitals", "Washington", "Eastern", "Metropolitan", 1974),
    ("Chicago Blackhawks", "Chicago", "Western", "Central", 1926),
    ("Colorado Avalanche", "Denver", "Western", "Central", 1972),
    ("Dallas Stars", "Dallas", "Western", "Central", 1967),
    ("Minnesota Wild", "Saint Paul", "Western", "Central", 2000),
    ("Nashville Predators", "Nashville", "Western", "Central", 1998),
    ("St. Louis Blues", "St. Louis", "Western", "Central", 1967),
    ("Winnipeg Jets", "Winnipeg", "Western", "Central", 1999),
    ("Anaheim Ducks", "Anaheim", "Western", "Pacific", 1993),
    ("Calgary Flames", "Calgary", "Western", "Pacific", 1972),
    ("Edmonton Oilers", "Edmonton", "Western", "Pacific", 1972),
    ("Los Angeles Kings", "Los Angeles", "Western", "Pacific", 1967),
    ("Phoenix Coyotes", "Glendale", "Western", "Pacific", 1972),
    ("San Jose Sharks", "San Jose", "Western", "Pacific", 1991),
    ("Vancouver Canucks", "Vancouver", "Western", "Pacific", 1970),
]

# Fictional players: first and last names drawn from the countries NHL players come from,
# combined at random within one country. (origin, weight, first names, last names)
PLAYER_NAMES = [
    ("English Canada and the US", 48, [
        "Adam", "Aidan", "Alex", "Andrew", "Austin", "Blake", "Brad", "Brandon", "Brendan", "Brett",
        "Brock", "Cam", "Carter", "Chris", "Cody", "Cole", "Colton", "Connor", "Curtis", "Dallas",
        "Dan", "Derek", "Devin", "Drew", "Dylan", "Eric", "Evan", "Garrett", "Graham", "Grant",
        "Hunter", "Jack", "Jake", "Jared", "Jason", "Jeff", "Jordan", "Josh", "Justin", "Kyle",
        "Landon", "Liam", "Logan", "Luke", "Mark", "Matt", "Mike", "Nate", "Nick", "Noah", "Owen",
        "Patrick", "Reid", "Riley", "Ryan", "Scott", "Sean", "Shane", "Spencer", "Taylor",
        "Travis", "Trevor", "Tyler", "Wade", "Zach",
    ], [
        "Abbott", "Archer", "Barrett", "Bishop", "Blackwood", "Bradley", "Brennan", "Caldwell",
        "Cameron", "Carlisle", "Connolly", "Cullen", "Dawson", "Delaney", "Donnelly", "Dorsey",
        "Dunlop", "Emery", "Fairbanks", "Fenwick", "Fletcher", "Forsyth", "Garland", "Gillespie",
        "Gorman", "Granger", "Halloran", "Harding", "Hartley", "Hawkins", "Hendry", "Holloway",
        "Keating", "Kendrick", "Kinsella", "Langdon", "Larkin", "Lockhart", "MacAulay",
        "MacKinnon", "Maddox", "McAllister", "McCrae", "McKenna", "Mercer", "Munro", "Oakley",
        "O'Dell", "O'Rourke", "Prentice", "Quinlan", "Radford", "Ridley", "Sheridan", "Sinclair",
        "Slater", "Stanfield", "Sutherland", "Wardlaw", "Whitfield", "Yorke",
    ]),
    ("Quebec", 12, [
        "Mathieu", "Jean-François", "Étienne", "Olivier", "Maxime", "Félix", "Gabriel",
        "Alexandre", "Marc-André", "Philippe", "Julien", "Louis", "Samuel", "Vincent",
    ], [
        "Beaulieu", "Bélanger", "Boucher", "Chartrand", "Cloutier", "Cormier", "Desjardins",
        "Doucet", "Duchesne", "Gagnon", "Gallant", "Lachance", "Lafleche", "Leclair", "Morin",
        "Nadeau", "Ouellette", "Paquette", "Pelletier", "Renaud", "Rousseau", "Sauvé", "Thibault",
        "Tremblay", "Vachon",
    ]),
    ("Sweden", 10, [
        "Mikael", "Niklas", "Oskar", "Henrik", "Erik", "Jesper", "Mattias", "Viktor", "Anton",
        "Linus", "Johan", "Gustav", "Fredrik", "Jonas",
    ], [
        "Bergqvist", "Dahlgren", "Ekholm", "Fransson", "Hedlund", "Lindahl", "Lundgren", "Nyström",
        "Öberg", "Sjöberg", "Wallin", "Håkansson", "Strömberg", "Engqvist",
    ]),
    ("Finland", 7, [
        "Teemu", "Jussi", "Mikko", "Sami", "Aleksi", "Joonas", "Lauri", "Antti", "Janne", "Ville",
    ], [
        "Aaltonen", "Heikkinen", "Kettunen", "Korhonen", "Laaksonen", "Mäkelä", "Nieminen",
        "Rantanen", "Virtanen", "Lehtinen", "Hämäläinen",
    ]),
    ("Russia", 8, [
        "Dmitri", "Ilya", "Sergei", "Pavel", "Nikita", "Artem", "Evgeni", "Alexei", "Vladimir",
        "Andrei",
    ], [
        "Belov", "Fedorov", "Golubev", "Kuznetsov", "Morozov", "Orlov", "Sokolov", "Volkov",
        "Zaitsev", "Lebedev", "Nikitin",
    ]),
    ("Czech Republic and Slovakia", 8, [
        "Tomáš", "Jakub", "Ondřej", "Lukáš", "Marek", "Patrik", "Radek", "Jan", "Marián", "Juraj",
    ], [
        "Dvořáček", "Hrubý", "Kratochvíl", "Novotný", "Procházka", "Svoboda", "Šimek", "Horváth",
        "Kováč", "Krejčí",
    ]),
    ("Latvia, Germany, Switzerland and Denmark", 7, [
        "Kristaps", "Jānis", "Lars", "Mats", "Sebastian", "Tobias", "Dennis", "Yannick",
        "Frederik", "Nico",
    ], [
        "Ozoliņš", "Bērziņš", "Brunner", "Keller", "Meier", "Schneider", "Vogel", "Hansen",
        "Jensen", "Lindgaard",
    ]),
]

GOALIE_NUMBERS = [1, 29, 30, 31, 32, 33, 34, 35, 37, 39, 40, 41, 45, 50, 60, 70, 72]


# Real product lines of the brands the assignment names, with 2013-14 list prices (USD).
# (brand, category, model, price in cents, sizes, who uses it: "S" skater, "G" goalie, "*" anyone)
SKATE_SIZES = ["6.0 D", "7.0 D", "7.5 D", "8.0 D", "8.5 D", "8.5 EE", "9.0 D", "9.0 EE", "9.5 D",
               "10.0 D", "10.5 EE", "11.0 D", "12.0 D"]
STICK_SIZES = ["Sr 75", "Sr 77", "Sr 85", "Sr 87", "Sr 95", "Sr 102", "Int 55", "Int 65"]
HELMET_SIZES = ["S", "M", "L"]
GLOVE_SIZES = ['13"', '14"', '15"']
SHIN_SIZES = ['14"', '15"', '16"', '17"']
UPPER_SIZES = ["S", "M", "L", "XL"]
GOALIE_PAD_SIZES = ['33"+1', '34"+1', '34"+2', '35"+1', '36"+1']
MASK_SIZES = ["Sr", "Sr XL"]
RUNNER_SIZES = ["254 mm", "263 mm", "272 mm", "280 mm", "288 mm"]

EQUIPMENT = [
    ("Bauer", "Skates", "Supreme TotalOne NXG", 79999, SKATE_SIZES, "S"),
    ("Bauer", "Skates", "Supreme One.9", 69999, SKATE_SIZES, "S"),
    ("Bauer", "Skates", "Supreme One.7", 39999, SKATE_SIZES, "S"),
    ("Bauer", "Skates", "Vapor APX2", 84999, SKATE_SIZES, "S"),
    ("Bauer", "Skates", "Vapor X80", 39999, SKATE_SIZES, "S"),
    ("Bauer", "Skates", "Supreme One.9 Goalie", 59999, SKATE_SIZES, "G"),
    ("Bauer", "Stick", "Supreme TotalOne NXG", 26999, STICK_SIZES, "S"),
    ("Bauer", "Stick", "Vapor APX2", 25999, STICK_SIZES, "S"),
    ("Bauer", "Stick", "Nexus 8000", 22999, STICK_SIZES, "S"),
    ("Bauer", "Stick", "Vapor X60", 14999, STICK_SIZES, "S"),
    ("Bauer", "Helmet", "RE-AKT", 22999, HELMET_SIZES, "S"),
    ("Bauer", "Helmet", "IMS 9.0", 19999, HELMET_SIZES, "S"),
    ("Bauer", "Helmet", "4500", 8999, HELMET_SIZES, "S"),
    ("Bauer", "Gloves", "Supreme TotalOne NXG", 17999, GLOVE_SIZES, "S"),
    ("Bauer", "Gloves", "Vapor APX2", 17999, GLOVE_SIZES, "S"),
    ("Bauer", "Pads", "Supreme TotalOne NXG Shin Guard", 14999, SHIN_SIZES, "S"),
    ("Bauer", "Pads", "Vapor APX2 Shoulder Pad", 17999, UPPER_SIZES, "S"),
    ("Bauer", "Pads", "Supreme One.9 Elbow Pad", 7999, UPPER_SIZES, "S"),
    ("Bauer", "Pants", "Nexus 1000", 14999, UPPER_SIZES, "S"),
    ("Bauer", "Goalie Pads", "Supreme One.9", 169999, GOALIE_PAD_SIZES, "G"),
    ("Bauer", "Goalie Pads", "Reactor 9000", 159999, GOALIE_PAD_SIZES, "G"),
    ("Bauer", "Goalie Mask", "NME 9", 79999, MASK_SIZES, "G"),
    ("CCM", "Skates", "RBZ", 79999, SKATE_SIZES, "S"),
    ("CCM", "Skates", "RBZ 90", 49999, SKATE_SIZES, "S"),
    ("CCM", "Skates", "U+ Crazy Light", 69999, SKATE_SIZES, "S"),
    ("CCM", "Skates", "Tacks", 84999, SKATE_SIZES, "S"),
    ("CCM", "Stick", "RBZ Stage 2", 25999, STICK_SIZES, "S"),
    ("CCM", "Stick", "RBZ", 22999, STICK_SIZES, "S"),
    ("CCM", "Stick", "U+ Crazy Light", 21999, STICK_SIZES, "S"),
    ("CCM", "Helmet", "Resistance", 24999, HELMET_SIZES, "S"),
    ("CCM", "Helmet", "V10", 12999, HELMET_SIZES, "S"),
    ("CCM", "Gloves", "RBZ", 14999, GLOVE_SIZES, "S"),
    ("CCM", "Gloves", "U+ Crazy Light", 16999, GLOVE_SIZES, "S"),
    ("CCM", "Pads", "U+ Crazy Light Shin Guard", 12999, SHIN_SIZES, "S"),
    ("CCM", "Goalie Pads", "Extreme Flex II", 179999, GOALIE_PAD_SIZES, "G"),
    ("Easton", "Stick", "Stealth CX", 24999, STICK_SIZES, "S"),
    ("Easton", "Stick", "Mako II", 26999, STICK_SIZES, "S"),
    ("Easton", "Stick", "Stealth RS", 19999, STICK_SIZES, "S"),
    ("Easton", "Stick", "Synergy HTX", 14999, STICK_SIZES, "S"),
    ("Easton", "Skates", "Mako II", 79999, SKATE_SIZES, "S"),
    ("Easton", "Skates", "Stealth RS", 54999, SKATE_SIZES, "S"),
    ("Easton", "Helmet", "E700", 14999, HELMET_SIZES, "S"),
    ("Easton", "Helmet", "E600", 11999, HELMET_SIZES, "S"),
    ("Easton", "Gloves", "Mako", 15999, GLOVE_SIZES, "S"),
    ("Easton", "Gloves", "Stealth CX", 13999, GLOVE_SIZES, "S"),
    ("Easton", "Pads", "Mako Shin Guard", 11999, SHIN_SIZES, "S"),
    ("Graf", "Skates", "Supra 735", 34999, SKATE_SIZES, "S"),
    ("Graf", "Skates", "Supra 705", 24999, SKATE_SIZES, "S"),
    ("Graf", "Skates", "Ultra G75", 64999, SKATE_SIZES, "S"),
    ("Graf", "Skates", "Ultra G35", 39999, SKATE_SIZES, "S"),
    ("TUUK", "Blades", "LightSpeed 2 Runner", 5999, RUNNER_SIZES, "S"),
    ("TUUK", "Blades", "LightSpeed Edge Holder", 8999, RUNNER_SIZES, "S"),
    ("TUUK", "Blades", "LightSpeed Edge Runner", 7999, RUNNER_SIZES, "S"),
    ("Reebok", "Skates", "20K Pump", 79999, SKATE_SIZES, "S"),
    ("Reebok", "Skates", "11K Pump", 59999, SKATE_SIZES, "S"),
    ("Reebok", "Stick", "20K Sickick", 24999, STICK_SIZES, "S"),
    ("Reebok", "Stick", "11K Sickick III", 19999, STICK_SIZES, "S"),
    ("Reebok", "Stick", "RibCor", 22999, STICK_SIZES, "S"),
    ("Reebok", "Helmet", "11K", 14999, HELMET_SIZES, "S"),
    ("Reebok", "Gloves", "20K", 16999, GLOVE_SIZES, "S"),
    ("Reebok", "Pads", "20K Shin Guard", 12999, SHIN_SIZES, "S"),
    ("Reebok", "Goalie Pads", "Premier XLT", 179999, GOALIE_PAD_SIZES, "G"),
    ("Reebok", "Goalie Pads", "Larceny", 99999, GOALIE_PAD_SIZES, "G"),
    ("Sherwood", "Stick", "T90", 19999, STICK_SIZES, "S"),
    ("Sherwood", "Stick", "Nexon N12", 24999, STICK_SIZES, "S"),
    ("Sherwood", "Stick", "Nexon 10", 17999, STICK_SIZES, "S"),
    ("Sherwood", "Stick", "5030 Coda", 3999, STICK_SIZES, "S"),
    ("Winwell", "Gloves", "AMP500", 5999, GLOVE_SIZES, "S"),
    ("Winwell", "Gloves", "AMP700", 7999, GLOVE_SIZES, "S"),
    ("Winwell", "Pads", "AMP500 Shin Guard", 4999, SHIN_SIZES, "S"),
    ("Winwell", "Pads", "AMP500 Shoulder Pad", 5999, UPPER_SIZES, "S"),
    ("Winwell", "Pads", "AMP500 Elbow Pad", 3499, UPPER_SIZES, "S"),
    ("Jofa", "Helmet", "690", 8999, HELMET_SIZES, "S"),
    ("Jofa", "Helmet", "390", 6999, HELMET_SIZES, "S"),
    ("Jofa", "Helmet", "715", 9999, HELMET_SIZES, "S"),
]


def gen_hockey():
    rng = Rng(0x40C4E7003)  # the hockey sample's generator
    out = SqlFile("hockey", "teams, players and equipment (the hockey sample).")

    teams = [(i, *t) for i, t in enumerate(TEAMS, start=1)]

    players = []
    used_names = set()
    pid = 0
    for team in teams:
        tid = team[0]
        roster = ["G"] * 2 + ["D"] * 7 + ["C"] * 4 + ["LW"] * 4 + ["RW"] * 4
        if rng.chance(0.3):
            roster.remove(rng.choice(["C", "LW", "RW", "D"]))
        if rng.chance(0.2):
            roster.append("G")
        numbers = set()
        for pos in roster:
            while True:
                _, _, firsts, lasts = rng.weighted(PLAYER_NAMES, [g[1] for g in PLAYER_NAMES])
                first, last = rng.choice(firsts), rng.choice(lasts)
                if (first, last) not in used_names:
                    break
            used_names.add((first, last))
            while True:
                n = rng.choice(GOALIE_NUMBERS) if pos == "G" else rng.randint(2, 98)
                if n not in numbers and (pos == "G" or n not in (1, 30, 31, 35)):
                    break
            numbers.add(n)
            # ages 19 to 37 in the 2013-14 season, most in their mid twenties
            year = 1977 + (rng.below(19) + rng.below(19)) // 2
            born = ms("%04d-01-01" % year) + rng.below(365) * DAY
            shoots = "L" if rng.chance(0.62 if pos != "G" else 0.75) else "R"
            pid += 1
            players.append((pid, tid, first, last, pos, n, Timestamp(born), shoots))

    goalies = [p[0] for p in players if p[4] == "G"]
    skaters = [p[0] for p in players if p[4] != "G"]
    equipment = []
    # weights: skater gear is more common than goalie gear; blades and wooden sticks less so
    weights = []
    for e in EQUIPMENT:
        if e[5] == "G":
            weights.append(3)
        elif e[1] in ("Stick", "Skates"):
            weights.append(6)
        elif e[1] == "Blades":
            weights.append(3)
        else:
            weights.append(4)
    n_items = 360
    for eid in range(1, n_items + 1):
        brand, category, model, price, sizes, who = rng.weighted(EQUIPMENT, weights)
        size = rng.choice(sizes)
        player = None
        if rng.chance(0.72):
            player = rng.choice(goalies if who == "G" else skaters)
        in_stock = not rng.chance(0.12)
        equipment.append((eid, player, category, brand, model, size, Decimal2(price), in_stock))

    out.insert("Teams", ["teamID", "name", "city", "conference", "division", "founded"], teams)
    out.insert("Players", ["playerID", "teamID", "firstName", "lastName", "position", "jerseyNumber",
                           "birthDate", "shoots"], players)
    out.insert("Equipment", ["equipmentID", "playerID", "category", "brand", "model", "size", "price",
                             "inStock"], equipment)
    return out


# =============================================================================================

SERVICES = [
    ("cardealer", gen_cardealer),
    ("speakeasy", gen_speakeasy),
    ("hockey", gen_hockey),
]


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    default_out = os.path.join(os.path.dirname(here), "Sources", "StrataDemo", "SQL")
    parser = argparse.ArgumentParser(description="Write the demo services' data.sql files.")
    parser.add_argument("--out", default=default_out,
                        help="folder holding one subfolder per service (default: %(default)s)")
    parser.add_argument("--quiet", action="store_true", help="print nothing")
    args = parser.parse_args(argv)

    for service, generate in SERVICES:
        sql = generate()
        folder = os.path.join(args.out, service)
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, "data.sql")
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(sql.text())
        if not args.quiet:
            summary = ", ".join("%s %d" % (t, n) for t, n in sql.counts)
            print("%s: %s" % (os.path.relpath(path), summary))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
